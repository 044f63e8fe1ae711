"""What every resource-provider plugin must do for Pulumi's engine, asserted against Terrarium's
plugin and against the reference plugin built on the `pulumi` package's own server."""

import json

import grpc

from engine import empty_pb2, plain, provider_pb2, struct

INVOKES = {
    "terrarium": (
        "random:index/uuidV5:uuidV5",
        {"namespace": "dns", "name": "example.com"},
        "cfbff0d1-9375-5685-968c-48ce8b15ae17",
    ),
    "reference": ("reference:index/echo:echo", {"text": "hello"}, "hello"),
}


def test_the_plugin_prints_exactly_its_port_and_serves_there(any_plugin):
    _, plugin = any_plugin
    assert plugin.port_line.strip().isdigit() and plugin.port_line.endswith("\n")
    assert 0 < plugin.port < 65536
    # The engine counts Unimplemented as alive.
    assert plugin.health() in ("SERVING", "UNIMPLEMENTED")


def test_plugin_info_and_a_handshake_the_engine_accepts(any_plugin):
    kind, plugin = any_plugin
    info = plugin.provider.GetPluginInfo(empty_pb2.Empty())
    assert info.version == ("1.2.3" if kind == "terrarium" else "0.0.1")
    request = provider_pb2.ProviderHandshakeRequest(
        engine_address=plugin.engine.address, configure_with_urn=True, supports_views=True
    )
    if kind == "terrarium":
        # Terrarium answers the handshake: secrets and resource references accepted.
        answer = plugin.provider.Handshake(request)
        assert answer.accept_secrets and answer.accept_resources
        return
    try:
        answer = plugin.provider.Handshake(request)
        assert answer.accept_secrets and answer.accept_resources
    except grpc.RpcError as e:
        # The reference plugin's server may not know it; the engine falls back then.
        assert e.code() == grpc.StatusCode.UNIMPLEMENTED


def test_the_schema_is_a_valid_package_schema(any_plugin):
    kind, plugin = any_plugin
    schema = json.loads(plugin.provider.GetSchema(provider_pb2.GetSchemaRequest(version=0)).schema)
    assert schema["name"] == ("random" if kind == "terrarium" else "reference")


def test_configure_then_invoke_a_function(any_plugin):
    kind, plugin = any_plugin
    answer = plugin.provider.Configure(
        provider_pb2.ConfigureRequest(args=struct({}), acceptSecrets=True, acceptResources=True)
    )
    assert answer.acceptSecrets
    token, args, expected = INVOKES[kind]
    result = plugin.provider.Invoke(provider_pb2.InvokeRequest(tok=token, args=struct(args)))
    assert list(result.failures) == []
    assert plain(result)["return"]["result"] == expected


def test_cancel_is_answered(any_plugin):
    _, plugin = any_plugin
    plugin.provider.Cancel(empty_pb2.Empty())
