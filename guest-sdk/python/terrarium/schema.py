"""Schemas from dataclasses: one dataclass is both a type's state and its schema.

A field's type hint says its Terraform type (``str``, ``int``/``float``/``Decimal``,
``bool``, ``list[T]``, ``set[T]``, ``dict[str, T]``, ``typing.Any`` for dynamic) and whether it
is required (``T``) or optional (``T | None``). A dataclass as the type (or the element type of
a list, set or dict) is a nested attribute; :func:`block` makes it a nested block instead.
:func:`attribute` says the rest: computed, sensitive, defaults, plan behaviour, validators.
"""

from __future__ import annotations

import dataclasses
import decimal
import types
import typing
from dataclasses import dataclass, field
from typing import Any

#: The metadata key under which :func:`attribute` and :func:`block` keep their settings.
_META = "terrarium"

_MISSING = object()


@dataclass(frozen=True)
class Options:
    """What :func:`attribute` or :func:`block` says about a field."""

    description: str = ""
    computed: bool = False
    optional: bool | None = None
    sensitive: bool = False
    write_only: bool = False
    deprecated: str | None = None
    default: Any = _MISSING
    use_state_for_unknown: bool = False
    requires_replace: Any = False
    unknown_on_update: bool = False
    validators: tuple[Any, ...] = ()
    block: bool = False
    min_items: int = 0
    max_items: int = 0


def attribute(
    *,
    description: str = "",
    computed: bool = False,
    optional: bool | None = None,
    sensitive: bool = False,
    write_only: bool = False,
    deprecated: str | None = None,
    default: Any = _MISSING,
    use_state_for_unknown: bool = False,
    requires_replace: bool | typing.Callable[[Any, Any], bool] = False,
    unknown_on_update: bool = False,
    validators: typing.Sequence[Any] = (),
) -> Any:
    """A field of a schema dataclass with Terraform settings.

    ``default`` makes the attribute optional and computed: Terraform plans the default where
    the configuration leaves it unset (also inside nested objects); a function as the default
    computes it from the object holding the attribute. ``computed=True`` alone makes it set
    by the provider only; ``optional=True`` with it lets the configuration set it too.
    ``use_state_for_unknown`` keeps the prior value in plans instead of "known after apply";
    ``requires_replace`` replaces the object when the value changes (a function of the prior
    and planned values decides when). ``validators`` are :mod:`terrarium.validators`, or
    functions of the value that return an error message (or raise TerraformError).
    """
    options = Options(
        description=description,
        computed=computed or default is not _MISSING,
        optional=optional,
        sensitive=sensitive,
        write_only=write_only,
        deprecated=deprecated,
        default=default,
        use_state_for_unknown=use_state_for_unknown,
        requires_replace=requires_replace,
        unknown_on_update=unknown_on_update,
        validators=tuple(validators),
    )
    return field(default=None, metadata={_META: options})


def block(
    *,
    description: str = "",
    min_items: int = 0,
    max_items: int = 0,
    deprecated: str | None = None,
    requires_replace: bool = False,
    computed: bool = False,
) -> Any:
    """A nested block: a field typed ``list[Model]``, ``set[Model]``, ``dict[str, Model]`` or
    ``Model | None`` (a single block). An absent list, set or map block is empty.

    ``computed=True`` makes the provider set the block's contents, as it sets a computed
    attribute (protocol 6.11 computed nested blocks): the configuration may not write it, the
    plan has it unknown (:data:`terrarium.UNKNOWN`) on create and after a change, and
    ``create`` and ``update`` return the blocks the provider made (docs/planning.md)."""
    options = Options(
        description=description,
        computed=computed,
        block=True,
        requires_replace=requires_replace,
        min_items=min_items,
        max_items=max_items,
        deprecated=deprecated,
    )
    return field(default=None, metadata={_META: options})


# ---- types ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Type:
    """A Terraform type as the SDK sees it: a primitive, a collection of a type, a model
    (a dataclass: an object of its fields), or dynamic."""

    kind: str  # "string" | "number" | "bool" | "dynamic" | "list" | "set" | "map" | "model"
    element: Type | None = None
    model: type | None = None

    def json(self) -> Any:
        """Terraform's JSON type syntax."""
        if self.kind in ("string", "number", "bool", "dynamic"):
            return self.kind
        if self.kind == "model":
            fields = schema_of(self.model).fields
            attrs = {f.name: f.type.json() for f in fields}
            optional = sorted(f.name for f in fields if not f.required)
            return ["object", attrs, optional] if optional else ["object", attrs]
        return [self.kind, self.element.json()]


def _is_model(hint: Any) -> bool:
    return isinstance(hint, type) and dataclasses.is_dataclass(hint)


def type_of(hint: Any, where: str) -> tuple[Type, bool]:
    """The Terraform type of a type hint, and whether the hint allows None."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(args) != 1:
            raise TypeError(f"{where}: {hint} is not a Terraform type (use one type or T | None)")
        inner, _ = type_of(args[0], where)
        return inner, True
    if hint is str:
        return Type("string"), False
    if hint is bool:
        return Type("bool"), False
    if hint in (int, float, decimal.Decimal):
        return Type("number"), False
    if hint is Any:
        return Type("dynamic"), True
    if _is_model(hint):
        return Type("model", model=hint), False
    if origin in (list, typing.List, tuple):
        (arg, *_) = typing.get_args(hint) or (Any,)
        return Type("list", type_of(arg, where)[0]), False
    if origin in (set, frozenset, typing.Set):
        (arg,) = typing.get_args(hint) or (Any,)
        return Type("set", type_of(arg, where)[0]), False
    if origin in (dict, typing.Dict):
        key, value = typing.get_args(hint) or (str, Any)
        if key is not str:
            raise TypeError(f"{where}: map keys are strings in Terraform, not {key}")
        return Type("map", type_of(value, where)[0]), False
    raise TypeError(
        f"{where}: {hint!r} has no Terraform type; use str, int, float, Decimal, bool, "
        "list, set, dict[str, ...], typing.Any or a dataclass"
    )


# ---- schemas --------------------------------------------------------------------------------


@dataclass
class Field:
    """One attribute or block of a model, resolved from its dataclass field."""

    name: str
    type: Type
    options: Options
    required: bool
    optional: bool
    computed: bool

    @property
    def is_block(self) -> bool:
        return self.options.block

    @property
    def nested(self) -> tuple[str, type] | None:
        """For a nested attribute or block: its nesting and model."""
        t = self.type
        if t.kind == "model":
            return "single", t.model
        if t.kind in ("list", "set", "map") and t.element.kind == "model":
            return t.kind, t.element.model
        return None


@dataclass
class Model:
    """A dataclass read as a schema block."""

    cls: type
    description: str
    fields: list[Field]
    version: int = 0


_models: dict[type, Model] = {}


def _doc(cls: type) -> str:
    doc = (cls.__doc__ or "").strip()
    # dataclass writes its signature as the docstring of a class without one.
    if doc.startswith(cls.__name__ + "("):
        return ""
    return " ".join(doc.split())


def schema_of(cls: type) -> Model:
    """The schema of a dataclass (cached). Raises TypeError naming the field at fault."""
    if cls in _models:
        return _models[cls]
    if not _is_model(cls):
        raise TypeError(f"{cls!r} is not a dataclass; a schema is a @dataclass")
    hints = typing.get_type_hints(cls)
    fields = []
    for f in dataclasses.fields(cls):
        where = f"{cls.__name__}.{f.name}"
        options = f.metadata.get(_META, Options())
        ty, nullable = type_of(hints[f.name], where)
        if options.block:
            required = optional = False
            computed = options.computed
            if ty.kind != "model" and not (ty.element and ty.element.kind == "model"):
                raise TypeError(f"{where}: a block holds dataclasses, not {hints[f.name]}")
        else:
            computed = options.computed
            if options.default is not _MISSING:
                optional = True
            elif options.optional is not None:
                optional = options.optional
            else:
                optional = nullable and not computed
            required = not optional and not computed
            if not nullable and not required:
                raise TypeError(
                    f"{where}: an optional or computed attribute can be null; type it "
                    f"{hints[f.name]} | None"
                )
        fields.append(Field(f.name, ty, options, required, optional, computed))
    model = Model(cls, _doc(cls), fields, getattr(cls, "__terraform_version__", 0))
    _models[cls] = model
    return model


def computed_block_paths(model: Model | None) -> list[list[str]]:
    """The paths (block type names from the root down) of the computed blocks in ``model``:
    what the component names in the WIT ``computed-blocks`` export."""
    paths: list[list[str]] = []

    def walk(model: Model, path: list[str]) -> None:
        for f in model.fields:
            if f.is_block:
                here = [*path, f.name]
                if f.options.computed:
                    paths.append(here)
                walk(schema_of(f.nested[1]), here)

    if model is not None:
        walk(model, [])
    return paths
