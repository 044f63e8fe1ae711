"""examples/pets/python through `terrarium harness`: the SPEC.md behaviour, planned by the host.

Needs the built component (``make build-guests``) and the terrarium binary: the end-to-end
suite runs it with TERRARIUM_BIN and TERRARIUM_COMPONENTS_DIR set.
"""

import json
import os
from pathlib import Path

import pytest

from terrarium.testing import UNKNOWN, Failure, FunctionFailed, Harness

COMPONENT = Path(os.environ.get("TERRARIUM_COMPONENTS_DIR", ".")) / "pets_py.wasm"


@pytest.fixture
def pets(tmp_path):
    with Harness(COMPONENT, allow_dirs=[f"{tmp_path}:rw"]) as h:
        h.configure({"directory": str(tmp_path)})
        yield h


def test_create_plans_defaults_at_depth_and_unknown_computed_values(pets, tmp_path):
    config = {"name": "rex", "owner": {"name": "ann"}, "toys": [{"kind": "ball"}], "collar": [{"size": "M"}]}
    plan = pets.plan("pets_pet", None, config)
    assert plan.planned["id"] is UNKNOWN
    assert (plan.planned["species"], plan.planned["legs"]) == ("dog", 4)
    assert plan.planned["owner"]["notify"] is False
    assert plan.planned["toys"][0]["color"] == "red" and plan.planned["toys"][0]["serial"] is UNKNOWN
    assert plan.planned["collar"][0]["material"] == "leather"

    created = pets.create("pets_pet", config)
    assert created.state["id"] == "pet-1"
    assert created.state["toys"] == [{"kind": "ball", "color": "red", "serial": "pet-1-toy-0"}]
    stored = json.loads((tmp_path / "pet-1.json").read_text())
    assert "id" not in stored and stored["name"] == "rex"
    assert (tmp_path / "next-id").read_text() == "2"


def test_update_keeps_the_id_and_serials_and_a_name_change_replaces(pets):
    created = pets.create("pets_pet", {"name": "rex", "toys": [{"kind": "ball"}]})
    more = {"name": "rex", "legs": 3, "tags": ["good"], "toys": [{"kind": "ball"}, {"kind": "rope"}]}
    plan = pets.plan("pets_pet", created.state, more)
    assert plan.planned["id"] == "pet-1" and plan.requires_replace == []
    assert plan.planned["toys"][0]["serial"] == "pet-1-toy-0" and plan.planned["toys"][1]["serial"] is UNKNOWN
    updated = pets.update("pets_pet", created.state, more)
    assert updated.state["toys"][1]["serial"] == "pet-1-toy-1"
    assert updated.state["tags"] == ["good"]

    renamed = pets.update("pets_pet", updated.state, {"name": "max"})
    assert renamed.plan.requires_replace == ["name"] and renamed.state["id"] == "pet-2"


def test_unknowns_in_a_nested_set_are_matched_by_name_and_kept(pets):
    created = pets.create("pets_pet", {"name": "rex", "vaccines": [{"name": "rabies"}]})
    assert created.state["vaccines"] == [{"name": "rabies", "batch": "pet-1-rabies"}]
    more = {"name": "rex", "vaccines": [{"name": "flu"}, {"name": "rabies"}]}
    plan = pets.plan("pets_pet", created.state, more)
    batches = {v["name"]: v["batch"] for v in plan.planned["vaccines"]}
    assert batches == {"rabies": "pet-1-rabies", "flu": UNKNOWN}
    updated = pets.update("pets_pet", created.state, more)
    assert sorted(v["batch"] for v in updated.state["vaccines"]) == ["pet-1-flu", "pet-1-rabies"]


def test_a_collar_size_change_replaces_on_a_nested_path(pets):
    created = pets.create("pets_pet", {"name": "rex", "collar": [{"size": "M"}]})
    plan = pets.plan("pets_pet", created.state, {"name": "rex", "collar": [{"size": "L"}]})
    assert plan.requires_replace == ["collar[0].size"]


def test_drift_import_and_destroy(pets, tmp_path):
    created = pets.create("pets_pet", {"name": "rex", "secret": "s3"})
    (tmp_path / "pet-1.json").unlink()
    assert pets.read("pets_pet", created.state).state is None

    again = pets.create("pets_pet", {"name": "tom", "species": "cat"})
    imported = pets.import_("pets_pet", again.state["id"])
    assert imported.state == again.state
    with pytest.raises(Failure) as missing:
        pets.import_("pets_pet", "pet-9")
    assert missing.value.diagnostics[0].summary == "Cannot import"
    assert missing.value.diagnostics[0].detail == "no pet with id pet-9"

    assert pets.destroy("pets_pet", again.state).state is None
    assert not (tmp_path / f"{again.state['id']}.json").exists()


def test_validators_and_diagnostics_carry_attribute_paths(pets):
    with pytest.raises(Failure) as bad:
        pets.validate("pets_pet", {"name": "", "species": "fish", "legs": 9})
    assert sorted(d.attribute for d in bad.value.diagnostics) == ["legs", "name", "species"]

    with Harness(COMPONENT) as h, pytest.raises(Failure) as relative:
        h.configure({"directory": "pets"})
    d = relative.value.diagnostics[0]
    assert (d.summary, d.attribute) == ("Relative directory", "directory")


def test_the_data_source_and_the_function(pets):
    pets.create("pets_pet", {"name": "rex", "tags": ["a", "b"]})
    read = pets.read_data("pets_pet", {"id": "pet-1"})
    assert read.state == {"id": "pet-1", "name": "rex", "species": "dog", "legs": 4, "tags": ["a", "b"]}
    with pytest.raises(Failure) as missing:
        pets.read_data("pets_pet", {"id": "pet-7"})
    assert (missing.value.diagnostics[0].summary, missing.value.diagnostics[0].attribute) == ("No such pet", "id")

    assert pets.call("greeting", "rex") == "Hello, rex!"
    with pytest.raises(FunctionFailed) as empty:
        pets.call("greeting", "")
    assert (empty.value.text, empty.value.argument) == ("name must not be empty", 0)
