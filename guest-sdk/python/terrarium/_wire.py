"""The WIT data model (terrarium:provider types) to and from the SDK's Python values. Only
this module and :mod:`terrarium._guest` know the WIT bindings; they exist inside the
component only."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from wit_world.imports import types as t

from .diagnostics import Diagnostic, Key
from .schema import Model, Type, schema_of
from .values import UNKNOWN, to_tree

_I64 = (-(2**63), 2**63 - 1)


# ---- values ---------------------------------------------------------------------------------


def decode(value: t.Value) -> Any:
    """A WIT value as a generic tree: None, UNKNOWN, primitives, lists and dicts."""
    nodes = value.nodes

    def node(i: int) -> Any:
        n = nodes[i]
        if isinstance(n, t.Node_Null):
            return None
        if isinstance(n, t.Node_Unknown):
            return UNKNOWN
        if isinstance(n, (t.Node_Bool, t.Node_String)):
            return n.value
        if isinstance(n, t.Node_Number):
            return _number(n.value)
        if isinstance(n, (t.Node_List, t.Node_Set, t.Node_Tuple)):
            return [node(c) for c in n.value]
        if isinstance(n, (t.Node_Map, t.Node_Object)):
            return {e.key: node(e.value) for e in n.value}
        if isinstance(n, t.Node_Dynamic):
            return node(n.value.value)
        raise TypeError(f"unexpected value node {n!r}")

    return node(0) if nodes else None


def _number(n: t.Number) -> Any:
    if isinstance(n, t.Number_Int):
        return n.value
    if isinstance(n, t.Number_Float):
        return n.value
    d = Decimal(n.value)
    return int(d) if d == d.to_integral_value() and "e" not in n.value.lower() else d


def encode(obj: Any, ty: Type) -> t.Value:
    """The Python value ``obj`` of type ``ty`` as a WIT value."""
    nodes: list[Any] = []

    def add(tree: Any, ty: Type) -> int:
        i = len(nodes)
        nodes.append(None)
        nodes[i] = build(tree, ty)
        return i

    def build(tree: Any, ty: Type) -> Any:
        if tree is None:
            return t.Node_Null()
        if tree is UNKNOWN:
            return t.Node_Unknown(t.Refinements(None, None, None, None, None, None))
        kind = ty.kind
        if kind == "dynamic":
            return t.Node_Dynamic(t.Typed(json.dumps(_infer(tree)), add(tree, _inferred(tree))))
        if kind == "string":
            return t.Node_String(tree)
        if kind == "bool":
            return t.Node_Bool(tree)
        if kind == "number":
            return t.Node_Number(_wit_number(tree))
        if kind == "model":
            fields = schema_of(ty.model).fields
            return t.Node_Object([t.Entry(f.name, add(tree.get(f.name), f.type)) for f in fields])
        if kind == "list":
            return t.Node_List([add(x, ty.element) for x in tree])
        if kind == "set":
            return t.Node_Set([add(x, ty.element) for x in tree])
        if kind == "map":
            return t.Node_Map([t.Entry(k, add(v, ty.element)) for k, v in sorted(tree.items())])
        if kind == "tuple":
            return t.Node_Tuple([add(x, e) for x, e in zip(tree, ty.element)])
        if kind == "object":
            return t.Node_Object([t.Entry(k, add(v, ty.element[k])) for k, v in sorted(tree.items())])
        raise TypeError(f"unexpected type {ty!r}")

    add(to_tree(obj, ty), ty)
    return t.Value(nodes)


def _wit_number(n: Any) -> t.Number:
    if isinstance(n, int):
        return t.Number_Int(n) if _I64[0] <= n <= _I64[1] else t.Number_Decimal(str(n))
    if isinstance(n, float):
        return t.Number_Float(n)
    return t.Number_Decimal(str(n))


def _infer(tree: Any) -> Any:
    """The Terraform type JSON of a plain value of a dynamic attribute."""
    if isinstance(tree, bool):
        return "bool"
    if isinstance(tree, (int, float, Decimal)):
        return "number"
    if isinstance(tree, str) or tree is None:
        return "string"
    if isinstance(tree, (list, tuple, set)):
        return ["tuple", [_infer(x) for x in tree]]
    return ["object", {k: _infer(v) for k, v in tree.items()}]


def _inferred(tree: Any) -> Type:
    j = _infer(tree)

    def of(j: Any) -> Type:
        if isinstance(j, str):
            return Type(j)
        if j[0] == "tuple":
            return Type("tuple", tuple(of(x) for x in j[1]))
        return Type("object", {k: of(v) for k, v in j[1].items()})

    return of(j)


# ---- schemas --------------------------------------------------------------------------------


def _description(text: str) -> t.Description:
    return t.Description(text, t.TextKind.PLAIN)


_OBJECT_NESTING = {
    "single": t.ObjectNesting.SINGLE,
    "list": t.ObjectNesting.LIST,
    "set": t.ObjectNesting.SET,
    "map": t.ObjectNesting.MAP,
}
_BLOCK_NESTING = {
    "single": t.BlockNesting.SINGLE,
    "list": t.BlockNesting.LIST,
    "set": t.BlockNesting.SET,
    "map": t.BlockNesting.MAP,
}


def schema(model: Model | None, version: int | None = None) -> t.Schema:
    """A model as a WIT schema: blocks[0] is the model, nested ones follow."""
    blocks: list[Any] = []

    def add(model: Model | None, only_attributes: bool = False) -> int:
        i = len(blocks)
        blocks.append(None)
        attributes, block_types = [], []
        for f in model.fields if model else []:
            o = f.options
            nested = f.nested
            if f.is_block:
                nesting, cls = nested
                block_types.append(
                    t.NestedBlock(f.name, add(schema_of(cls)), _BLOCK_NESTING[nesting], o.min_items, o.max_items)
                )
                continue
            attributes.append(
                t.Attribute(
                    name=f.name,
                    type=None if nested else json.dumps(f.type.json()),
                    nested=t.NestedAttributes(_OBJECT_NESTING[nested[0]], add(schema_of(nested[1]), True))
                    if nested
                    else None,
                    description=_description(o.description),
                    required=f.required,
                    optional=f.optional,
                    computed=f.computed,
                    sensitive=o.sensitive,
                    write_only=o.write_only,
                    deprecated=o.deprecated is not None,
                    deprecation_message=o.deprecated or "",
                )
            )
        blocks[i] = t.Block(
            attributes, block_types, _description(model.description if model else ""), False, ""
        )
        return i

    add(model)
    return t.Schema(version if version is not None else (model.version if model else 0), blocks)


def type_json(ty: Type) -> str:
    return json.dumps(ty.json())


# ---- diagnostics ----------------------------------------------------------------------------


def path(steps: tuple) -> list[Any]:
    out: list[Any] = []
    for s in steps:
        if isinstance(s, Key):
            out.append(t.PathStep_Key(str(s)))
        elif isinstance(s, int):
            out.append(t.PathStep_Index(s))
        else:
            out.append(t.PathStep_Attribute(s))
    return out


def diagnostics(diags: list[Diagnostic]) -> list[t.Diagnostic]:
    severity = {"error": t.Severity.ERROR, "warning": t.Severity.WARNING}
    return [t.Diagnostic(severity[d.severity], d.summary, d.detail, path(d.path)) for d in diags]
