"""The WIT ``behaviour`` interface: what the schema says about planning and validation, as
data the host runs for every language (docs/planning.md), and the hooks the host calls back
for what is code (custom validators, the plan hook)."""

from __future__ import annotations

from typing import Any, Callable

from wit_world import exports
from wit_world.exports import behaviour as b
from wit_world.imports import types as t

from . import _wire as wire
from .diagnostics import Diagnostic, TerraformError
from .schema import _MISSING, Model, Type, schema_of
from .validators import Validator
from .values import to_python

_U64_MAX = 2**64 - 1


class Hooks:
    """The code a schema names (custom validators, computed defaults, conditional
    replacements), by hook id: numbered in schema order, so the same in every instance. Each
    entry is the function, the type of the value it gets and the type of what it returns."""

    def __init__(self) -> None:
        self.code: list[tuple[Callable[..., Any], Type, Type | None]] = []

    def add(self, fn: Callable[..., Any], given: Type, returns: Type | None = None) -> int:
        self.code.append((fn, given, returns))
        return len(self.code) - 1


def _count(min: int, max: int | None) -> b.CountRange:
    return b.CountRange(min, _U64_MAX if max is None else max)


def _validator(v: Any, ty: Type, hooks: Hooks) -> Any:
    if not isinstance(v, Validator):
        if callable(v):
            doc = (getattr(v, "__doc__", None) or getattr(v, "__name__", "")).strip()
            return b.Validator_Custom(b.CustomValidator(hooks.add(v, ty), doc))
        raise TypeError(f"{v!r} is not a validator (use terrarium.validators, or a function)")
    a = v.args
    number = lambda n: None if n is None else wire._wit_number(n)  # noqa: E731
    return {
        "length": lambda: b.Validator_Length(_count(*a)),
        "pattern": lambda: b.Validator_Pattern(a[0]),
        "one-of": lambda: b.Validator_OneOf(list(a)),
        "range": lambda: b.Validator_Range(b.NumberRange(number(a[0]), number(a[1]))),
        "size": lambda: b.Validator_Size(_count(*a)),
        "conflicts-with": lambda: b.Validator_ConflictsWith(list(a)),
        "also-requires": lambda: b.Validator_AlsoRequires(list(a)),
        "exactly-one-of": lambda: b.Validator_ExactlyOneOf(list(a)),
        "at-least-one-of": lambda: b.Validator_AtLeastOneOf(list(a)),
    }[v.kind]()


def schema_behaviour(model: Model | None, hooks: Hooks, plan_hook: bool = False) -> b.SchemaBehaviour:
    attributes: list[b.AttributeBehaviour] = []
    replace_blocks: list[list[str]] = []

    def walk(model: Model, path: list[str]) -> None:
        for f in model.fields:
            here = [*path, f.name]
            o = f.options
            if f.is_block and o.requires_replace:
                replace_blocks.append(here)
            if f.nested:
                walk(schema_of(f.nested[1]), here)
            if f.is_block:
                continue
            if not (o.default is not _MISSING or o.use_state_for_unknown or o.unknown_on_update or o.requires_replace or o.validators):
                continue
            if o.default is _MISSING:
                default = None
            elif callable(o.default):  # computed from the object holding the attribute
                default = b.DefaultValue_Computed(hooks.add(o.default, Type("model", model=model.cls), f.type))
            else:
                try:
                    default = b.DefaultValue_Value(wire.encode(o.default, f.type))
                except (TypeError, ValueError) as e:
                    raise TypeError(f"{model.cls.__name__}.{f.name}: default={o.default!r} does not fit its type: {e}") from None
            if callable(o.requires_replace):  # decided from the prior and planned values
                replace = b.ReplaceRule_WhenGuestSays(hooks.add(o.requires_replace, f.type))
            else:
                replace = b.ReplaceRule_Always() if o.requires_replace else b.ReplaceRule_Never()
            attributes.append(
                b.AttributeBehaviour(
                    path=here,
                    default=default,
                    use_state_for_unknown=o.use_state_for_unknown,
                    unknown_on_update=o.unknown_on_update,
                    requires_replace=replace,
                    validators=[_validator(v, f.type, hooks) for v in o.validators],
                )
            )

    if model is not None:
        walk(model, [])
    return b.SchemaBehaviour(attributes, replace_blocks, plan_hook)


def make_behaviour(provider_cls: type, resource_plan: Callable[[b.PlanResourceRequest], b.PlanResourceResponse]) -> type:
    """The class componentize-py exports as the WIT ``behaviour`` interface."""
    hooks = Hooks()

    def has_plan_hook(cls: type) -> bool:
        from .provider import Resource

        # The host calls the plan hook of a type that overrides `plan` or `plan_destroy`.
        return any(getattr(cls, m, None) is not getattr(Resource, m, None) for m in ("plan", "plan_destroy"))

    def named(classes: list[type], hook: bool = False, model: str = "state") -> list[b.NamedBehaviour]:
        return [
            b.NamedBehaviour(
                c.type_name,
                schema_behaviour(schema_of(getattr(c, model)), hooks, hook and has_plan_hook(c)),
            )
            for c in sorted(classes, key=lambda c: c.type_name)
            if getattr(c, model, None) is not None
        ]

    behaviour = b.ProviderBehaviour(
        provider=schema_behaviour(schema_of(provider_cls.config) if provider_cls.config else None, hooks),
        resources=named(provider_cls.resources, hook=True),
        data_sources=named(provider_cls.data_sources),
        ephemeral_resources=named(provider_cls.ephemeral_resources),
        # A list block's `config` and an action's configuration have defaults and
        # validators as a resource's attributes do.
        list_resources=named(provider_cls.list_resources, model="list_config"),
        actions=named(provider_cls.actions, model="config"),
    )

    class Behaviour(exports.Behaviour):
        def get_behaviour(self) -> b.ProviderBehaviour:
            return behaviour

        def compute_defaults(self, requests: list[b.DefaultRequest]) -> list[t.Value]:
            def one(r: b.DefaultRequest) -> t.Value:
                fn, parent, returns = hooks.code[r.id]
                return wire.encode(fn(to_python(wire.decode(r.parent_config), parent)), returns)

            return [one(r) for r in requests]

        def decide_replacements(self, requests: list[b.ReplaceRequest]) -> list[bool]:
            def one(r: b.ReplaceRequest) -> bool:
                fn, ty, _ = hooks.code[r.id]
                return bool(fn(to_python(wire.decode(r.prior), ty), to_python(wire.decode(r.planned), ty)))

            return [one(r) for r in requests]

        def validate_values(self, requests: list[b.ValidateRequest]) -> list[t.Diagnostic]:
            found: list[Diagnostic] = []
            for r in requests:
                check, ty, _ = hooks.code[r.id]
                path = tuple(_step(s) for s in r.path)
                try:
                    message = check(to_python(wire.decode(r.value), ty))
                except TerraformError as e:
                    found += [Diagnostic(d.severity, d.summary, d.detail, d.path or path) for d in e.diagnostics]
                    continue
                if isinstance(message, str) and message:
                    found.append(Diagnostic("error", "Invalid value", message, path))
            return wire.diagnostics(found)

        def plan_resource(self, request: b.PlanResourceRequest) -> b.PlanResourceResponse:
            return resource_plan(request)

    return Behaviour


def _step(s: Any) -> Any:
    from .diagnostics import Key

    if isinstance(s, t.PathStep_Key):
        return Key(s.value)
    return s.value
