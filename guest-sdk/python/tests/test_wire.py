"""The SDK's WIT glue, natively against componentize-py's bindings of the real WIT: schemas,
values and diagnostics as the host receives them, and the export answering calls."""

from dataclasses import dataclass, replace
from decimal import Decimal

import pytest

from terrarium import UNKNOWN, Key, TerraformError, attribute, block
from terrarium.schema import Type, schema_of
from terrarium.validators import length


@dataclass(kw_only=True)
class Toy:
    kind: str
    serial: str | None = attribute(computed=True, use_state_for_unknown=True)


@dataclass(kw_only=True)
class Collar:
    size: str = attribute(requires_replace=True)


@dataclass(kw_only=True)
class Pet:
    id: str | None = attribute(computed=True)
    name: str = attribute(validators=[length(1, 8)])
    legs: int | None = attribute(default=4)
    secret: str | None = attribute(sensitive=True)
    labels: dict[str, str] | None = None
    toys: list[Toy] | None = None
    collar: list[Collar] = block(max_items=1)


def test_a_schema_is_flattened_into_blocks(bindings):
    from terrarium import _wire
    from wit_world.imports import types as t

    s = _wire.schema(schema_of(Pet))
    root = s.blocks[0]
    attrs = {a.name: a for a in root.attributes}
    assert attrs["legs"].type == '"number"' and attrs["legs"].optional and attrs["legs"].computed
    assert attrs["secret"].sensitive and attrs["labels"].type == '["map", "string"]'
    assert attrs["toys"].type is None and attrs["toys"].nested.nesting == t.ObjectNesting.LIST
    toy_block = s.blocks[attrs["toys"].nested.block]
    assert [a.name for a in toy_block.attributes] == ["kind", "serial"]
    (collar,) = root.block_types
    assert (collar.type_name, collar.nesting, collar.max_items) == ("collar", t.BlockNesting.LIST, 1)


def test_values_round_trip_through_the_flat_tree(bindings):
    from terrarium import _wire
    from terrarium.values import to_python

    ty = Type("model", model=Pet)
    pet = Pet(id=UNKNOWN, name="rex", legs=2**70, labels={"b": "2", "a": "1"}, toys=[Toy(kind="ball")], collar=[])
    wit = _wire.encode(pet, ty)
    assert to_python(_wire.decode(wit), ty) == pet
    assert to_python(_wire.decode(_wire.encode(replace(pet, legs=Decimal("0.1")), ty)), ty).legs == Decimal("0.1")


def test_diagnostic_paths_keep_attributes_indexes_and_keys(bindings):
    from terrarium import _wire
    from terrarium.diagnostics import Diagnostic
    from wit_world.imports import types as t

    (d,) = _wire.diagnostics([Diagnostic("error", "Bad", "why", ("labels", Key("a")))])
    assert d.attribute == [t.PathStep_Attribute("labels"), t.PathStep_Key("a")]
    assert d.severity == t.Severity.ERROR


def test_the_export_creates_updates_deletes_and_turns_errors_into_diagnostics(bindings):
    import terrarium
    from terrarium import _wire
    from wit_world.exports import provider as p
    from wit_world.imports import types as t

    calls = []

    class PetResource(terrarium.Resource[Pet]):
        type_name = "shop_pet"
        state = Pet

        def create(self, planned: Pet) -> Pet:
            calls.append("create")
            if planned.name == "bad":
                raise TerraformError("Bad name", "no", ("name",))
            return replace(planned, id="p-1", toys=[replace(t, serial="s") for t in planned.toys or []])

        def update(self, prior: Pet, planned: Pet) -> Pet:
            calls.append("update")
            return replace(planned, id=prior.id)

        def delete(self, prior: Pet) -> None:
            calls.append(f"delete {prior.id}")

    class ShopProvider(terrarium.Provider):
        resources = [PetResource]

    Provider, Behaviour = terrarium.export(ShopProvider)
    ty = Type("model", model=Pet)
    null = t.Value([t.Node_Null()])

    def apply(prior, planned):
        request = p.ApplyResourceChangeRequest("shop_pet", prior, planned, planned, b"", None, None)
        return Provider().apply_resource_change(request)

    planned = _wire.encode(Pet(id=UNKNOWN, name="rex", toys=[Toy(kind="ball", serial=UNKNOWN)], collar=[]), ty)
    created = apply(null, planned)
    assert created.diagnostics == []
    state = _wire.decode(created.new_state)
    assert state["id"] == "p-1" and state["toys"] == [{"kind": "ball", "serial": "s"}]

    updated = apply(created.new_state, _wire.encode(Pet(name="max", collar=[]), ty))
    assert _wire.decode(updated.new_state)["id"] == "p-1"
    assert _wire.decode(apply(created.new_state, null).new_state) is None
    assert calls == ["create", "update", "delete p-1"]

    failed = apply(null, _wire.encode(Pet(name="bad", collar=[]), ty))
    (d,) = failed.diagnostics
    assert (d.summary, d.attribute) == ("Bad name", [t.PathStep_Attribute("name")])

    unknown_type = Provider().read_resource(p.ReadResourceRequest("shop_nope", null, b"", None, t.ClientCapabilities(False, True), None))
    assert unknown_type.diagnostics[0].summary == "Unknown resource type"


def test_the_declared_behaviour_is_data_for_the_host(bindings):
    # The repository's WIT has the behaviour interface: these tests must run, never skip.
    assert bindings != "terrarium-provider", "the bindings lack the behaviour interface"
    import terrarium

    class PetResource(terrarium.Resource[Pet]):
        type_name = "shop_pet"
        state = Pet

    class ShopProvider(terrarium.Provider):
        resources = [PetResource]

    _, Behaviour = terrarium.export(ShopProvider)
    (named,) = Behaviour().get_behaviour().resources
    by_path = {tuple(a.path): a for a in named.behaviour.attributes}
    assert set(by_path) == {("name",), ("legs",), ("toys", "serial"), ("collar", "size")}
    assert by_path[("toys", "serial")].use_state_for_unknown
    assert by_path[("legs",)].default.value.nodes[0].value.value == 4
    assert by_path[("name",)].validators[0].value.max == 8
    assert not named.behaviour.plan_hook


def test_code_in_the_schema_is_answered_through_the_hooks(bindings):
    # The repository's WIT has the behaviour interface: these tests must run, never skip.
    assert bindings != "terrarium-provider", "the bindings lack the behaviour interface"
    import terrarium
    from terrarium import _wire
    from wit_world.exports import behaviour as b

    def even(n):
        """an even number"""
        return None if n % 2 == 0 else f"{n} is odd"

    @dataclass(kw_only=True)
    class Box:
        size: int = attribute(validators=[even], requires_replace=lambda prior, planned: planned < prior)
        label: str | None = attribute(default=lambda box: f"box-{box.size}")

    class BoxResource(terrarium.Resource[Box]):
        type_name = "shop_box"
        state = Box

    class ShopProvider(terrarium.Provider):
        resources = [BoxResource]

    _, Behaviour = terrarium.export(ShopProvider)
    hooks = Behaviour()
    (named,) = hooks.get_behaviour().resources
    size, label = sorted(named.behaviour.attributes, key=lambda a: a.path)[::-1]
    ty = Type("model", model=Box)
    number = Type("number")

    (default,) = hooks.compute_defaults([b.DefaultRequest(label.default.value, _wire.encode(Box(size=4), ty))])
    assert _wire.decode(default) == "box-4"
    replace_id = size.requires_replace.value
    shrink = b.ReplaceRequest(replace_id, _wire.encode(4, number), _wire.encode(2, number))
    grow = b.ReplaceRequest(replace_id, _wire.encode(2, number), _wire.encode(4, number))
    assert hooks.decide_replacements([shrink, grow]) == [True, False]
    check = size.validators[0].value
    assert check.description == "an even number"
    (odd,) = hooks.validate_values([b.ValidateRequest(check.id, _wire.encode(3, number), _wire.encode(Box(size=3), ty), _wire.path(("size",)))])
    assert (odd.detail, odd.attribute) == ("3 is odd", _wire.path(("size",)))


def test_the_replacement_export_names_the_types_that_delete_first(bindings):
    import terrarium
    from terrarium._guest import exported_replacement

    class Kept(terrarium.Resource[Pet]):
        type_name = "shop_kept"
        state = Pet

    class Fixed(terrarium.Resource[Pet]):
        type_name = "shop_fixed"
        state = Pet
        delete_before_replace = True

    class ShopProvider(terrarium.Provider):
        resources = [Kept, Fixed]

    terrarium.export(ShopProvider)
    assert exported_replacement()().delete_before_replace() == ["shop_fixed"]


@dataclass(kw_only=True)
class Route:
    via: str | None = attribute(computed=True)


@dataclass(kw_only=True)
class Address:
    ip: str | None = attribute(computed=True)
    route: list[Route] = block(computed=True)
    notes: list[Route] = block()


@dataclass(kw_only=True)
class Lan:
    size: int
    address: list[Address] = block(computed=True)


def test_the_computed_blocks_export_names_each_computed_block_by_its_path(bindings):
    import terrarium
    from terrarium._guest import exported_computed_blocks
    from wit_world.exports import computed_blocks as cb

    class LanResource(terrarium.Resource[Lan]):
        type_name = "shop_lan"
        state = Lan

    class LanData(terrarium.DataSource[Lan]):
        type_name = "shop_lan"
        state = Lan

    class ShopProvider(terrarium.Provider):
        resources = [LanResource]
        data_sources = [LanData]

    terrarium.export(ShopProvider)
    named = [(c.kind, c.type_name, c.path) for c in exported_computed_blocks()().computed_blocks()]
    assert named == [
        (cb.SchemaKind.RESOURCE, "shop_lan", ["address"]),
        (cb.SchemaKind.RESOURCE, "shop_lan", ["address", "route"]),
        (cb.SchemaKind.DATA_SOURCE, "shop_lan", ["address"]),
        (cb.SchemaKind.DATA_SOURCE, "shop_lan", ["address", "route"]),
    ]
    # The provider's create sees the planned blocks unknown, and its blocks are what it returns.
    ty = Type("model", model=Lan)
    from terrarium import _wire
    from terrarium.values import to_python

    planned = to_python(_wire.decode(_wire.encode(Lan(size=1, address=UNKNOWN), ty)), ty)
    assert planned.address is UNKNOWN
