"""The SDK's Python side, natively: schemas from dataclasses, values to and from JSON data."""

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import pytest

from terrarium import UNKNOWN, attribute, block, to_json
from terrarium.schema import schema_of
from terrarium.values import to_python, to_tree


@dataclass(kw_only=True)
class Toy:
    kind: str
    serial: str | None = attribute(computed=True)


@dataclass(kw_only=True)
class Pet:
    """A pet."""

    name: str = attribute(requires_replace=True)
    legs: int | None = attribute(default=4)
    id: str | None = attribute(computed=True)
    nick: str | None = attribute(computed=True, optional=True)
    tags: set[str] | None = None
    extra: Any = None
    toys: list[Toy] | None = None
    collar: list[Toy] = block(max_items=1)


def test_a_dataclass_is_a_schema():
    model = schema_of(Pet)
    flags = {f.name: (f.required, f.optional, f.computed) for f in model.fields}
    assert flags == {
        "name": (True, False, False),
        "legs": (False, True, True),
        "id": (False, False, True),
        "nick": (False, True, True),
        "tags": (False, True, False),
        "extra": (False, True, False),
        "toys": (False, True, False),
        "collar": (False, False, False),
    }
    assert model.description == "A pet."
    by_name = {f.name: f for f in model.fields}
    assert by_name["tags"].type.json() == ["set", "string"]
    assert by_name["extra"].type.json() == "dynamic"
    assert by_name["toys"].nested == ("list", Toy) and not by_name["toys"].is_block
    assert by_name["collar"].is_block


def test_a_field_without_a_terraform_type_is_refused_by_name():
    @dataclass
    class Bad:
        when: complex

    with pytest.raises(TypeError, match=r"Bad.when: .*complex"):
        schema_of(Bad)

    @dataclass
    class NotNullable:
        id: str = attribute(computed=True)

    with pytest.raises(TypeError, match=r"NotNullable.id: .*\| None"):
        schema_of(NotNullable)


def test_values_convert_both_ways_with_unknowns_and_exact_numbers():
    from terrarium.schema import Type

    ty = Type("model", model=Pet)
    tree = {"name": "rex", "legs": Decimal("0.1"), "id": UNKNOWN, "nick": None, "tags": ["a"], "extra": {"k": 1},
            "toys": [{"kind": "ball", "serial": None}], "collar": []}  # fmt: skip
    pet = to_python(tree, ty)
    assert pet.tags == {"a"} and pet.toys == [Toy(kind="ball")] and pet.id is UNKNOWN
    assert to_tree(pet, ty) == tree
    with pytest.raises(TypeError, match=r"toys\[0\]\.kind must be a str"):
        to_tree(Pet(name="rex", toys=[Toy(kind=3)]), ty)
    pet.id = "pet-1"
    assert to_json(pet)["tags"] == ["a"] and to_json(pet)["legs"] == 0.1
