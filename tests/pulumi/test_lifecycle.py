"""Full resource lifecycles through Terrarium's Pulumi plugin, RPC by RPC as the engine drives
them: check, diff, create (preview first), read, update, replace, delete; import; secrets;
data sources; validation failures with their property paths; cancel during a slow create."""

import threading
import time

import grpc
import pytest

from pulumi.runtime.proto import engine_pb2

from engine import UNKNOWN, Plugin, empty_pb2, is_secret, plain, provider_pb2 as pb, reveal, secret, struct, urn

STRING = "random:index/string:String"
PASSWORD = "random:index/password:Password"
INTEGER = "random:index/integer:Integer"
FILE = "files:index/file:File"


def check(plugin, token, name, news, olds=None):
    return plugin.provider.Check(
        pb.CheckRequest(urn=urn(token, name), type=token, name=name, olds=struct(olds or {}), news=struct(news))
    )


def diff(plugin, token, name, id, olds, news):
    return plugin.provider.Diff(
        pb.DiffRequest(id=id, urn=urn(token, name), type=token, name=name, olds=olds, news=struct(news))
    )


def create(plugin, token, name, inputs, preview=False, timeout=0):
    return plugin.provider.Create(
        pb.CreateRequest(urn=urn(token, name), type=token, name=name, properties=struct(inputs), preview=preview, timeout=timeout)
    )


def test_a_random_string_lives_through_create_read_replace_and_delete(random_plugin):
    p = random_plugin
    inputs = {"length": 12, "special": False, "minUpper": 2}
    checked = check(p, STRING, "s", inputs)
    assert list(checked.failures) == []
    # The checked inputs carry the defaults the provider plans (`upper = true`, ...).
    assert plain(checked.inputs) == {
        **inputs, "upper": True, "lower": True, "numeric": True,
        "minLower": 0, "minNumeric": 0, "minSpecial": 0,
    }

    # The shapes pulumi-terraform-bridge's recorded exchanges show (dynamic/testdata/
    # TestPrimitiveTypes/*.golden): a preview has no ID and computed values, `id` included.
    preview = create(p, STRING, "s", inputs, preview=True)
    assert preview.id == ""
    shown = plain(preview.properties)
    assert shown["result"] == UNKNOWN and shown["id"] == UNKNOWN and shown["length"] == 12

    created = create(p, STRING, "s", inputs)
    outputs = plain(created.properties)
    assert created.id == outputs["result"] and len(outputs["result"]) == 12
    assert outputs["special"] is False and outputs["upper"] is True

    read = p.provider.Read(pb.ReadRequest(id=created.id, urn=urn(STRING, "s"), type=STRING, properties=created.properties, inputs=struct(inputs)))
    assert read.id == created.id
    assert plain(read.properties) == outputs
    assert plain(read.inputs) == inputs

    unchanged = diff(p, STRING, "s", created.id, created.properties, inputs)
    assert unchanged.changes == pb.DiffResponse.DIFF_NONE

    longer = diff(p, STRING, "s", created.id, created.properties, {**inputs, "length": 16})
    assert longer.changes == pb.DiffResponse.DIFF_SOME
    assert list(longer.replaces) == ["length"]
    assert longer.detailedDiff["length"].kind == pb.PropertyDiff.UPDATE_REPLACE
    assert not longer.deleteBeforeReplace

    replacement = create(p, STRING, "s", {**inputs, "length": 16})
    assert len(plain(replacement.properties)["result"]) == 16
    for gone in (created, replacement):
        p.provider.Delete(pb.DeleteRequest(id=gone.id, urn=urn(STRING, "s"), type=STRING, properties=gone.properties))


def test_an_integer_updates_in_place_and_imports_by_id(random_plugin):
    p = random_plugin
    inputs = {"min": 1, "max": 100, "seed": "pulumi"}
    created = create(p, INTEGER, "i", inputs)
    result = plain(created.properties)["result"]
    assert 1 <= result <= 100

    wider = {**inputs, "max": 1000}
    d = diff(p, INTEGER, "i", created.id, created.properties, wider)
    assert d.changes == pb.DiffResponse.DIFF_SOME and list(d.replaces) == []
    assert d.detailedDiff["max"].kind == pb.PropertyDiff.UPDATE
    preview = p.provider.Update(pb.UpdateRequest(id=created.id, urn=urn(INTEGER, "i"), type=INTEGER, olds=created.properties, news=struct(wider), preview=True))
    assert plain(preview.properties)["max"] == 1000
    updated = p.provider.Update(pb.UpdateRequest(id=created.id, urn=urn(INTEGER, "i"), type=INTEGER, olds=created.properties, news=struct(wider)))
    assert plain(updated.properties)["result"] == result and plain(updated.properties)["max"] == 1000

    # Import: the engine sends only the ID (`pulumi import`).
    imported = p.provider.Read(pb.ReadRequest(id="42,1,50", urn=urn(INTEGER, "imported"), type=INTEGER))
    # As the bridge's import.golden: the outputs carry `id`, the inputs the configurable
    # attributes that are set.
    assert imported.id == "42"
    assert plain(imported.properties)["result"] == 42 and plain(imported.properties)["id"] == "42"
    assert plain(imported.inputs) == {"min": 1, "max": 50}

    with pytest.raises(grpc.RpcError) as bad:
        p.provider.Read(pb.ReadRequest(id="nonsense", urn=urn(INTEGER, "bad"), type=INTEGER))
    assert "Cannot import random_integer" in bad.value.details()


def test_sensitive_results_and_secret_inputs_stay_secret(random_plugin):
    p = random_plugin
    created = create(p, PASSWORD, "pw", {"length": 10})
    outputs = plain(created.properties)
    assert is_secret(outputs["result"]) and len(reveal(outputs["result"])) == 10
    preview = plain(create(p, PASSWORD, "pw", {"length": 10}, preview=True).properties)
    assert is_secret(preview["result"]) and reveal(preview["result"]) == UNKNOWN

    # A secret input comes back as a secret output.
    s = create(p, STRING, "secret-length", {"length": secret(8)})
    assert is_secret(plain(s.properties)["length"]) and reveal(plain(s.properties)["length"]) == 8


def test_check_fills_in_defaults_and_keeps_what_was_given(random_plugin):
    p = random_plugin
    given = {"length": secret(8), "upper": False, "keepers": {"a": "1"}}
    checked = plain(check(p, PASSWORD, "pw", given).inputs)
    # Given values stay as given (secrets too); only what the inputs leave out is filled in.
    assert checked["length"] == secret(8) and checked["upper"] is False and checked["keepers"] == {"a": "1"}
    assert checked["lower"] is True and checked["minSpecial"] == 0
    # Computed values and optional ones without a default are not inputs.
    assert "result" not in checked and "overrideSpecial" not in checked
    # With unknown inputs the defaults are still known.
    unknown = plain(check(p, STRING, "u", {"length": UNKNOWN}).inputs)
    assert unknown["length"] == UNKNOWN and unknown["special"] is True


def test_a_validation_error_names_its_property(random_plugin):
    p = random_plugin
    checked = check(p, STRING, "bad", {"length": 3, "minUpper": 5})
    assert [(f.property, f.reason) for f in checked.failures] == [
        ("length", "Length too short: The minimums ask for 5 characters, more than the length, 3.")
    ]
    missing = check(p, STRING, "bad", {"special": True})
    assert [(f.property, f.reason) for f in missing.failures] == [("length", 'missing required property "length"')]

    wrong = check(p, STRING, "bad", {"length": "many", "colour": "blue"})
    by_property = {f.property: f.reason for f in wrong.failures}
    assert set(by_property) == {"length", "colour"}, by_property
    assert "properties are" in by_property["colour"]


def test_a_data_source_is_invoked_as_a_function(random_plugin):
    p = random_plugin
    args = {"input": ["a", "b", "c", "d"], "seed": "fixed", "resultCount": 2}
    one = plain(p.provider.Invoke(pb.InvokeRequest(tok="random:index/getShuffle:getShuffle", args=struct(args))))
    two = plain(p.provider.Invoke(pb.InvokeRequest(tok="random:index/getShuffle:getShuffle", args=struct(args))))
    assert one == two and len(one["return"]["result"]) == 2
    assert set(one["return"]["result"]) <= {"a", "b", "c", "d"}
    missing = p.provider.Invoke(pb.InvokeRequest(tok="random:index/getShuffle:getShuffle", args=struct({"input": ["a"]})))
    assert missing.failures, "a missing required seed is a failure"


def test_a_file_is_created_updated_by_replacement_refreshed_and_deleted(files_plugin, files_dir):
    p = files_plugin
    path = files_dir / "hello.txt"
    inputs = {"filename": str(path), "content": "hello"}
    assert list(check(p, FILE, "f", inputs).failures) == []
    created = create(p, FILE, "f", inputs)
    assert path.read_text() == "hello"
    outputs = plain(created.properties)
    assert created.id and outputs["contentSha256"]

    changed = diff(p, FILE, "f", created.id, created.properties, {**inputs, "content": "bye"})
    assert "content" in changed.replaces

    # Drift: refresh sees the file gone and tells the engine with an empty ID.
    path.unlink()
    gone = p.provider.Read(pb.ReadRequest(id=created.id, urn=urn(FILE, "f"), type=FILE, properties=created.properties, inputs=struct(inputs)))
    assert gone.id == ""

    again = create(p, FILE, "f", inputs)
    p.provider.Delete(pb.DeleteRequest(id=again.id, urn=urn(FILE, "f"), type=FILE, properties=again.properties))
    assert not path.exists()


def test_the_sandbox_holds_under_pulumi(files_plugin, tmp_path):
    outside = tmp_path / "outside.txt"
    with pytest.raises(grpc.RpcError) as denied:
        create(files_plugin, FILE, "outside", {"filename": str(outside), "content": "x"})
    assert not outside.exists()
    assert denied.value.code() == grpc.StatusCode.UNKNOWN


def test_cancel_during_a_slow_create_returns_promptly(installed, engine, tmp_path):
    from conftest import start

    p = start([str(installed["slow"])], engine, tmp_path, "slow")
    log = tmp_path / "slow.stderr"
    try:
        outcome = {}

        def slow_create():
            try:
                outcome["created"] = create(p, "slow:index/server:Server", "s", {"bootSeconds": 600})
            except grpc.RpcError as e:
                outcome["error"] = e

        worker = threading.Thread(target=slow_create)
        worker.start()
        # The component's own log records reach the engine through its Log RPC, not stderr
        # (sent as they come, so perhaps a moment after the call that logged them). The server
        # is started, and its create waits for it to boot, when the record comes.
        deadline = time.monotonic() + 60
        while not [r for r in engine.logs if "slow_server started" in r.message]:
            assert time.monotonic() < deadline, [r.message for r in engine.logs]
            time.sleep(0.1)
        p.provider.Cancel(empty_pb2.Empty())
        worker.join(timeout=60)
        assert not worker.is_alive(), "Create did not return after Cancel"
        # The create stops waiting and returns the server as it is, for the engine to record.
        assert "error" not in outcome, outcome["error"].details()
        assert plain(outcome["created"].properties)["ready"] is False
    finally:
        p.stop()
    started = [r for r in engine.logs if "slow_server started" in r.message]
    assert started[0].severity == engine_pb2.INFO
    # ...attached to the resource the call was about, as the engine shows it.
    assert started[0].urn == urn("slow:index/server:Server", "s")
    assert "slow_server started" not in log.read_text()


def test_without_an_engine_the_component_logs_to_stderr(tmp_path):
    import os

    from engine import Plugin

    component = os.path.join(os.environ["TERRARIUM_COMPONENTS_DIR"], "slow_provider.wasm")
    stderr = tmp_path / "attach.stderr"
    p = Plugin([os.environ["TERRARIUM_BIN"], "serve-pulumi", "--name", "slow", "--component", component], None, stderr_path=stderr)
    try:
        create(p, "slow:index/server:Server", "s", {"bootSeconds": 0})
    finally:
        p.stop()
    assert "slow_server started" in stderr.read_text()


def test_the_plugin_stops_when_its_engine_is_gone(installed, tmp_path):
    from engine import Engine, Plugin

    own = Engine()
    p = Plugin([str(installed["random"])], own, env={"TERRARIUM_PULUMI_ENGINE_CHECK_SECONDS": "1"}, stderr_path=tmp_path / "gone.stderr")
    try:
        assert p.provider.GetPluginInfo(empty_pb2.Empty()).version
        own.stop()
        # As Pulumi's own plugins: the engine's health is asked for, and its absence ends the
        # plugin on its own (no signal is sent).
        assert p.process.wait(timeout=120) == 0
    finally:
        p.stop()
    assert "is gone" in (tmp_path / "gone.stderr").read_text()


def init_failure(error):
    """The pulumirpc.ErrorResourceInitFailed detail of a failed call, as the engine reads it
    (google.rpc.Status in the `grpc-status-details-bin` trailer)."""
    from google.rpc import status_pb2

    details = dict(error.trailing_metadata() or ()).get("grpc-status-details-bin")
    assert details, f"no error details: {error.details()}"
    status = status_pb2.Status.FromString(details)
    assert status.code == error.code().value[0] and status.message == error.details()
    found = [d for d in status.details if d.Is(pb.ErrorResourceInitFailed.DESCRIPTOR)]
    assert len(found) == 1, status.details
    failed = pb.ErrorResourceInitFailed()
    found[0].Unpack(failed)
    return failed


def test_a_create_that_fails_part_way_reports_what_it_made(installed, engine, tmp_path):
    from conftest import start

    p = start([str(installed["slow"])], engine, tmp_path, "slow-fail")
    try:
        inputs = {"bootSeconds": 1, "failBoot": True}
        with pytest.raises(grpc.RpcError) as failed:
            create(p, "slow:index/server:Server", "broken", inputs)
        assert "Server failed to boot" in failed.value.details()
        partial = init_failure(failed.value)
        # The server was started: the engine records it with its ID and state, to replace it.
        assert partial.id == "server-1"
        assert plain(partial.properties) == {
            "id": "server-1",
            "bootSeconds": 1,
            "failBoot": True,
            "ready": False,
            "protect": None,
            "reportUrl": None,
            # Write-only: never kept, so null in every output.
            "adminPassword": None,
            # The schema version the state was written with, for a later release's upgrade.
            "__meta": '{"schema_version":"1"}',
        }
        assert plain(partial.inputs) == inputs
        assert any("Server failed to boot" in r for r in partial.reasons)
    finally:
        p.stop()


def test_numbers_beyond_2_53_travel_exactly_as_text(random_plugin, engine):
    p = random_plugin
    # 2^53 + 1: a Pulumi number (a 64-bit float) would round it to 2^53.
    big = "9007199254740993"
    inputs = {"min": big, "max": big}
    created = create(p, INTEGER, "big", inputs)
    outputs = plain(created.properties)
    assert created.id == big
    assert outputs["result"] == big and outputs["min"] == big and outputs["max"] == big
    # Given back, the text reads as the exact number: no change, no drift.
    assert diff(p, INTEGER, "big", created.id, created.properties, inputs).changes == pb.DiffResponse.DIFF_NONE
    read = p.provider.Read(pb.ReadRequest(id=created.id, urn=urn(INTEGER, "big"), type=INTEGER, properties=created.properties, inputs=struct(inputs)))
    assert plain(read.properties)["result"] == big
    # The engine is told which property and why.
    deadline = time.monotonic() + 60
    while not [r for r in engine.logs if "result = 9007199254740993" in r.message]:
        assert time.monotonic() < deadline, [r.message for r in engine.logs]
        time.sleep(0.1)
    warning = [r for r in engine.logs if "result = 9007199254740993" in r.message][0]
    assert warning.severity == engine_pb2.WARNING and "string" in warning.message
    assert warning.urn == urn(INTEGER, "big")


def test_files_are_listed_in_pages_and_import_by_the_ids_list_gives(files_plugin, random_plugin, files_dir):
    p = files_plugin
    directory = files_dir / "listed"
    directory.mkdir()
    for name in ("a.txt", "b.txt", "c.txt", "d.md"):
        (directory / name).write_text(name)

    def listed(query=None, **kw):
        query = query or {"directory": str(directory), "suffix": ".txt"}
        return list(p.provider.List(pb.ListRequest(token=FILE, query=struct(query), **kw)))

    everything = listed()
    assert [r.WhichOneof("response") for r in everything] == ["result"] * 3
    assert [r.result.name for r in everything] == ["a.txt", "b.txt", "c.txt"]
    # Pages: a continuation token after a full page, and the next page from it.
    first = listed(page_size=2)
    assert [r.result.name for r in first[:2]] == ["a.txt", "b.txt"]
    assert first[2].WhichOneof("response") == "continuation"
    rest = listed(page_size=2, continuation_token=first[2].continuation.continuation_token)
    assert [r.result.name for r in rest] == ["c.txt"]
    assert [r.result.name for r in listed(limit=1)] == ["a.txt"]

    # A listed ID is importable: Read with only the ID imports the file.
    imported = p.provider.Read(pb.ReadRequest(id=everything[1].result.id, urn=urn(FILE, "b"), type=FILE))
    assert plain(imported.properties)["filename"] == str(directory / "b.txt")
    assert plain(imported.properties)["content"] == "b.txt"

    # A query with unknowns lists nothing yet.
    computed = listed({"directory": UNKNOWN})
    assert [r.WhichOneof("response") for r in computed] == ["computed"]
    with pytest.raises(grpc.RpcError) as bad:
        listed({"suffix": ".txt"})
    assert bad.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "directory" in bad.value.details()
    # A resource type without a list resource cannot be listed, and says so.
    with pytest.raises(grpc.RpcError) as unlisted:
        list(random_plugin.provider.List(pb.ListRequest(token=STRING, query=struct({}))))
    assert unlisted.value.code() == grpc.StatusCode.UNIMPLEMENTED
    assert "no list resource" in unlisted.value.details()


def test_a_providers_warnings_reach_the_engine_with_their_resource(installed, engine, tmp_path):
    # hostile's `many-diagnostics` answers ApplyResourceChange with warnings and one error: the
    # warnings reach the engine's Log, which shows them with the resource; the error fails the
    # create. They are the person's, not log lines: TERRARIUM_LOG=error does not hide them.
    p = Plugin(
        [str(installed["hostile"])],
        engine,
        env={"TERRARIUM_LOG": "error"},
        stderr_path=tmp_path / "hostile.stderr",
    )
    try:
        token = "hostile:index/probe:Probe"
        with pytest.raises(grpc.RpcError) as failed:
            create(p, token, "chatty", {"attack": "many-diagnostics", "target": "2"})
        assert "the error after the warnings" in failed.value.details()
        deadline = time.monotonic() + 60
        while len([r for r in engine.logs if "warning 1" in r.message]) < 1:
            assert time.monotonic() < deadline, [r.message for r in engine.logs]
            time.sleep(0.1)
        warnings = [r for r in engine.logs if r.message.startswith("terrarium.pulumi") and "warning " in r.message]
        assert [r.severity for r in warnings] == [engine_pb2.WARNING] * 2, [r.message for r in warnings]
        assert all(r.urn == urn(token, "chatty") for r in warnings)
    finally:
        p.stop()
