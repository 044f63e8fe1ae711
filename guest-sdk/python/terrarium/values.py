"""Python values for Terraform values, driven by the schema's types.

null is ``None``, an unknown value ("known after apply") is :data:`UNKNOWN`, numbers are
``int``, ``float`` or ``decimal.Decimal`` (whichever is exact), lists are ``list``, maps
``dict``, objects of a model its dataclass. Sets are ``set`` of primitives, or a ``list``
when their elements are objects (dataclasses are not hashable).
"""

from __future__ import annotations

import dataclasses
from decimal import Decimal
from typing import Any

from .schema import Type, schema_of


class _Unknown:
    """The value of an attribute that is not known until apply."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNKNOWN"


#: Not known until apply.
UNKNOWN = _Unknown()


def is_unknown(value: Any) -> bool:
    return value is UNKNOWN


def to_python(tree: Any, ty: Type) -> Any:
    """A generic tree (None, UNKNOWN, primitives, lists, dicts) as the Python value of ``ty``."""
    if tree is None or tree is UNKNOWN:
        return tree
    kind = ty.kind
    if kind == "model":
        model = schema_of(ty.model)
        return ty.model(**{f.name: to_python(tree.get(f.name), f.type) for f in model.fields})
    if kind == "list":
        return [to_python(x, ty.element) for x in tree]
    if kind == "set":
        items = [to_python(x, ty.element) for x in tree]
        hashable = ty.element.kind in ("string", "number", "bool")
        return set(items) if hashable and UNKNOWN not in items else items
    if kind == "map":
        return {k: to_python(v, ty.element) for k, v in tree.items()}
    return tree


def field_value(obj: Any, name: str) -> Any:
    """A model's attribute, from its dataclass or from a dict."""
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name)


def to_tree(value: Any, ty: Type, path: tuple = ()) -> Any:
    """A Python value of ``ty`` as a generic tree; TypeError names the path at fault."""
    from .diagnostics import format_path

    if value is None or value is UNKNOWN:
        return value
    kind = ty.kind
    where = format_path(path) or "the value"

    def wrong(expected: str) -> TypeError:
        return TypeError(f"{where} must be {expected}, not {type(value).__name__} {value!r}")

    if kind == "string":
        if not isinstance(value, str):
            raise wrong("a str")
        return value
    if kind == "bool":
        if not isinstance(value, bool):
            raise wrong("a bool")
        return value
    if kind == "number":
        if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
            raise wrong("a number (int, float or Decimal)")
        return value
    if kind == "model":
        if not (dataclasses.is_dataclass(value) or isinstance(value, dict)):
            raise wrong(f"a {ty.model.__name__}")
        model = schema_of(ty.model)
        return {
            f.name: to_tree(field_value(value, f.name), f.type, (*path, f.name))
            for f in model.fields
        }
    if kind in ("list", "set"):
        if isinstance(value, (str, dict)) or not hasattr(value, "__iter__"):
            raise wrong(f"a {kind}")
        return [to_tree(x, ty.element, (*path, i)) for i, x in enumerate(value)]
    if kind == "map":
        if not isinstance(value, dict):
            raise wrong("a dict")
        from .diagnostics import Key

        return {k: to_tree(v, ty.element, (*path, Key(k))) for k, v in value.items()}
    return value


def to_json(value: Any) -> Any:
    """A Python value of a schema as plain JSON data: dataclasses as dicts, sets as sorted
    lists, Decimals as int or float. UNKNOWN is refused (it has no JSON)."""
    if value is UNKNOWN:
        raise ValueError("an unknown value has no JSON")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {k: to_json(v) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        return sorted(to_json(v) for v in value)
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value
