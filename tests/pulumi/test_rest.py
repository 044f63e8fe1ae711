"""The rest of the service: attach mode, DiffConfig, the Terraform mapping, and the RPCs that
answer Unimplemented with their reason."""

import json
import os

import grpc
import pytest

from pulumi.runtime.proto import plugin_pb2

from engine import Plugin, empty_pb2, provider_pb2 as pb, struct


def test_attach_mode_waits_for_an_engine_and_says_how_to_reach_it(engine, tmp_path):
    component = os.path.join(os.environ["TERRARIUM_COMPONENTS_DIR"], "random_provider.wasm")
    stderr = tmp_path / "attach.stderr"
    p = Plugin([os.environ["TERRARIUM_BIN"], "serve-pulumi", "--name", "random", "--component", component], None, stderr_path=stderr)
    try:
        p.provider.Attach(plugin_pb2.PluginAttach(address=engine.address))
        assert p.provider.GetPluginInfo(empty_pb2.Empty()).version == "0.0.0-dev"
        assert json.loads(p.provider.GetSchema(pb.GetSchemaRequest()).schema)["name"] == "random"
    finally:
        p.stop()
    assert f"PULUMI_DEBUG_PROVIDERS=random:{p.port}" in stderr.read_text()


def test_diff_config_compares_property_by_property(random_plugin):
    same = random_plugin.provider.DiffConfig(pb.DiffRequest(olds=struct({"a": "1"}), news=struct({"a": "1"})))
    assert same.changes == pb.DiffResponse.DIFF_NONE
    changed = random_plugin.provider.DiffConfig(pb.DiffRequest(olds=struct({"a": "1"}), news=struct({"a": "2"})))
    assert changed.changes == pb.DiffResponse.DIFF_SOME and list(changed.diffs) == ["a"]
    assert list(changed.replaces) == []


def test_the_terraform_mapping_names_every_type(random_plugin):
    assert list(random_plugin.provider.GetMappings(pb.GetMappingsRequest(key="terraform")).providers) == ["random"]
    mapping = random_plugin.provider.GetMapping(pb.GetMappingRequest(key="terraform", provider="random"))
    data = json.loads(mapping.data)
    assert mapping.provider == "random"
    assert data["resources"]["random_string"] == {"tok": "random:index/string:String"}
    assert data["dataSources"]["random_shuffle"] == {"tok": "random:index/getShuffle:getShuffle"}
    assert random_plugin.provider.GetMapping(pb.GetMappingRequest(key="other")).provider == ""


@pytest.mark.parametrize(
    "rpc, request_",
    [
        ("Construct", pb.ConstructRequest()),
        ("Call", pb.CallRequest()),
        ("Parameterize", pb.ParameterizeRequest()),
    ],
)
def test_what_a_component_cannot_serve_is_unimplemented_with_a_reason(random_plugin, rpc, request_):
    with pytest.raises(grpc.RpcError) as error:
        getattr(random_plugin.provider, rpc)(request_)
    assert error.value.code() == grpc.StatusCode.UNIMPLEMENTED
    assert error.value.details().startswith(f"{rpc} is not supported by Terrarium's Pulumi front end: ")


def test_an_unknown_token_names_the_known_ones(random_plugin):
    with pytest.raises(grpc.RpcError) as error:
        random_plugin.provider.Check(pb.CheckRequest(type="random:index/nope:Nope", news=struct({})))
    assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "random:index/string:String" in error.value.details()


def test_terrarium_dev_serves_pulumi_in_attach_mode_and_reloads_new_builds(engine, tmp_path):
    import shutil
    import time

    components = os.environ["TERRARIUM_COMPONENTS_DIR"]
    component = tmp_path / "provider.wasm"
    shutil.copy(os.path.join(components, "random_provider.wasm"), component)
    p = Plugin([os.environ["TERRARIUM_BIN"], "dev", str(component), "--pulumi", "random"], None, stderr_path=tmp_path / "dev.stderr")
    try:
        p.provider.Attach(plugin_pb2.PluginAttach(address=engine.address))

        def tokens():
            schema = json.loads(p.provider.GetSchema(pb.GetSchemaRequest()).schema)
            return set(schema["resources"])

        assert "random:index/string:String" in tokens()
        # A new build written over the component is swapped in for the next call.
        staged = tmp_path / "next.wasm"
        shutil.copy(os.path.join(components, "files_provider.wasm"), staged)
        os.replace(staged, component)
        deadline = time.monotonic() + 120
        while "random:index/filesFile:FilesFile" not in tokens():
            assert time.monotonic() < deadline, "the new build was not served within 120 s"
            time.sleep(0.5)
        assert "random:index/string:String" not in tokens()
    finally:
        p.stop()
