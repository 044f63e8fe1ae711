"""The component's export: the WIT ``provider`` interface answered from a
:class:`terrarium.Provider` subclass. Built by :func:`terrarium.export`."""

from __future__ import annotations

import traceback
from datetime import timezone
from typing import Any, Callable

from componentize_py_types import Err
from wit_world import exports
from wit_world.exports import provider as p
from wit_world.imports import types as t

from . import _wire as wire
from .diagnostics import Diagnostic, FunctionError, TerraformError, take_warnings
from .provider import MovedState, Opened, PrivateState, Renewed
from .provider import Provider as UserProvider
from .schema import Type, schema_of, type_of
from .values import to_python


def _model_type(cls: type | None) -> Type | None:
    return Type("model", model=cls) if cls is not None else None


class _Failed(Exception):
    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = diagnostics


def _guard(what: str, call: Callable[[], Any]) -> tuple[Any, list[Diagnostic]]:
    """Runs provider code: its result and diagnostics (warnings, or the error it raised)."""
    take_warnings()
    try:
        result = call()
        return result, take_warnings()
    except TerraformError as e:
        return None, take_warnings() + e.diagnostics
    except _Failed as e:
        return None, take_warnings() + e.diagnostics
    except Exception as e:  # a bug in the provider: say where, do not crash the instance
        detail = "".join(traceback.format_exception(e)).strip()
        return None, take_warnings() + [Diagnostic("error", f"{what} failed", detail)]


def make_export(provider_cls: type[UserProvider]) -> tuple[type, type | None]:
    """The classes componentize-py exports as the WIT ``provider`` and ``behaviour``
    interfaces (no ``behaviour`` with a WIT that lacks it)."""
    provider = provider_cls()
    config_ty = _model_type(provider_cls.config)
    resources = {r.type_name: r for r in provider_cls.resources}
    data_sources = {d.type_name: d for d in provider_cls.data_sources}
    ephemerals = {e.type_name: e for e in provider_cls.ephemeral_resources}
    functions = {f.name: f for f in provider_cls.functions}
    instances: dict[type, Any] = {}

    def instance(cls: type) -> Any:
        if cls not in instances:
            instances[cls] = cls(provider)
        return instances[cls]

    def find(kind: str, table: dict[str, type], name: str) -> type:
        if name not in table:
            known = ", ".join(sorted(table)) or "none"
            raise _Failed([Diagnostic("error", f"Unknown {kind} type", f"This provider has no {kind} type {name!r}. Its {kind} types are: {known}.")])
        return table[name]

    def state_type(cls: type) -> Type:
        return _model_type(cls.state)

    def value(v: t.Value | None, ty: Type) -> Any:
        return None if v is None else to_python(wire.decode(v), ty)

    def null() -> t.Value:
        return t.Value([t.Node_Null()])

    def function_schema(f: Any) -> t.Function:
        def param(name: str, hint: Any) -> t.Parameter:
            ty, nullable = type_of(hint, f"{f.name}({name})")
            return t.Parameter(name, wire.type_json(ty), wire._description(""), nullable, False)

        returns, _ = type_of(f.returns, f"{f.name} -> return")
        return t.Function(
            f.name,
            [param(n, h) for n, h in f.parameters],
            None,
            wire.type_json(returns),
            f.summary,
            wire._description(f.description),
            "",
        )

    def validate(kind: str, table: dict[str, type], name: str, config: t.Value) -> list[t.Diagnostic]:
        def run() -> None:
            cls = find(kind, table, name)
            instance(cls).validate(value(config, state_type(cls)))

        _, diags = _guard(f"validate {name}", run)
        return wire.diagnostics(diags)

    def from_config(kind: str, table: dict[str, type], name: str, config: t.Value, method: str) -> tuple[t.Value, list[t.Diagnostic]]:
        """A data source's read or an ephemeral resource's open: configuration in, value out."""

        def run() -> Any:
            cls = find(kind, table, name)
            ty = state_type(cls)
            return wire.encode(getattr(instance(cls), method)(value(config, ty)), ty)

        result, diags = _guard(f"{method} {kind} {name}", run)
        return result or null(), wire.diagnostics(diags)

    class Export(exports.Provider):
        def get_schema(self) -> t.ProviderSchema:
            named = lambda table: [t.NamedSchema(n, wire.schema(schema_of(c.state))) for n, c in sorted(table.items())]  # noqa: E731
            return t.ProviderSchema(
                provider=wire.schema(schema_of(provider_cls.config) if provider_cls.config else None),
                provider_meta=None,
                resources=named(resources),
                data_sources=named(data_sources),
                functions=[function_schema(f) for _, f in sorted(functions.items())],
                resource_identities=[],
                ephemeral_resources=named(ephemerals),
                list_resources=[],
                actions=[],
                capabilities=t.ServerCapabilities(
                    any(_overrides(r, "plan_destroy") for r in resources.values()),
                    False,
                    any(r.moves_from for r in resources.values()),
                    False,
                ),
                diagnostics=[],
            )

        def validate_provider_config(self, config: t.Value) -> list[t.Diagnostic]:
            _, diags = _guard("validate the provider configuration", lambda: provider.validate(value(config, config_ty) if config_ty else None))
            return wire.diagnostics(diags)

        def validate_resource_config(self, type_name: str, config: t.Value, client: t.ClientCapabilities) -> list[t.Diagnostic]:
            return validate("resource", resources, type_name, config)

        def validate_data_source_config(self, type_name: str, config: t.Value) -> list[t.Diagnostic]:
            return validate("data source", data_sources, type_name, config)

        def configure(self, request: p.ConfigureRequest) -> list[t.Diagnostic]:
            instances.clear()
            config = value(request.config, config_ty) if config_ty else None
            _, diags = _guard("configure", lambda: provider.configure(config))
            return wire.diagnostics(diags)

        def read_resource(self, request: p.ReadResourceRequest) -> p.ReadResourceResponse:
            def run() -> Any:
                cls = find("resource", resources, request.type_name)
                ty = state_type(cls)
                current = value(request.current_state, ty)
                return wire.encode(instance(cls).read_with_private(current, private), ty)

            private = PrivateState(bytes(request.private))
            state, diags = _guard(f"read {request.type_name}", run)
            return p.ReadResourceResponse(state or null(), private.encode(), None, wire.diagnostics(diags), None)

        def plan_resource_change(self, request: p.PlanResourceChangeRequest) -> p.PlanResourceChangeResponse:
            # A host that plans from the declared behaviour never calls this; one that does
            # not would plan nothing of it (defaults, unknowns, replacements), so say so.
            needs = Diagnostic(
                "error",
                "This provider needs a newer Terrarium",
                "It declares its planning rules for the host to run (the behaviour interface), "
                "and this terrarium does not run them; install a newer terrarium.",
            )
            return p.PlanResourceChangeResponse(
                request.proposed_new_state, [], request.prior_private, None, wire.diagnostics([needs]), None
            )

        def apply_resource_change(self, request: p.ApplyResourceChangeRequest) -> p.ApplyResourceChangeResponse:
            # What a failed create or update reached (TerraformError.with_state).
            reached: list[t.Value] = []

            def run() -> Any:
                cls = find("resource", resources, request.type_name)
                ty = state_type(cls)
                r = instance(cls)
                prior = value(request.prior_state, ty)
                planned = value(request.planned_state, ty)
                if planned is None:
                    r.delete(prior)
                    return null()
                try:
                    if prior is None:
                        new = r.create_with_private(planned, private)
                    else:
                        new = r.update_with_private(prior, planned, private)
                except TerraformError as e:
                    if e.state is not None:
                        reached.append(wire.encode(e.state, ty))
                    raise
                return wire.encode(new, ty)

            private = PrivateState(bytes(request.planned_private))
            state, diags = _guard(f"apply {request.type_name}", run)
            if state is None:
                # Record what the failed change reached, so Terraform keeps track of the object
                # (tainted, after a create); else the object is as it was before.
                state = reached[0] if reached else request.prior_state
            return p.ApplyResourceChangeResponse(state, private.encode(), wire.diagnostics(diags), None)

        def import_resource_state(self, request: p.ImportResourceStateRequest) -> p.ImportResourceStateResponse:
            def run() -> Any:
                cls = find("resource", resources, request.type_name)
                return wire.encode(instance(cls).import_state(request.id), state_type(cls))

            state, diags = _guard(f"import {request.type_name}", run)
            imported = [p.ImportedResource(request.type_name, state, b"", None)] if state is not None else []
            return p.ImportResourceStateResponse(imported, None, wire.diagnostics(diags))

        def upgrade_resource_state(self, request: p.UpgradeResourceStateRequest) -> p.UpgradeResourceStateResponse:
            def run() -> Any:
                cls = find("resource", resources, request.type_name)
                ty = state_type(cls)
                raw = wire.decode(request.raw_state)
                current = schema_of(cls.state).version
                if request.version == current:
                    # The stored state is already in the current schema.
                    return wire.encode(to_python(raw, ty), ty)
                if request.version > current:
                    raise TerraformError(
                        "State written by a newer provider",
                        f"The {request.type_name} state has schema version {request.version}, but this provider only "
                        f"knows versions up to {current}. Use the provider version that wrote the state, or newer.",
                    )
                return wire.encode(instance(cls).upgrade(request.version, raw), ty)

            state, diags = _guard(f"upgrade the state of {request.type_name}", run)
            return p.UpgradeResourceStateResponse(state or null(), wire.diagnostics(diags))

        def upgrade_resource_identity(self, request: p.UpgradeResourceIdentityRequest) -> p.UpgradeResourceIdentityResponse:
            return p.UpgradeResourceIdentityResponse(null(), _unsupported("resource identities"))

        def move_resource_state(self, request: p.MoveResourceStateRequest) -> p.MoveResourceStateResponse:
            def run() -> Any:
                cls = find("resource", resources, request.target_type_name)
                if request.source_type_name not in cls.moves_from:
                    accepted = ", ".join(cls.moves_from) or "none"
                    raise TerraformError(
                        "Unsupported resource move",
                        f"{request.source_type_name} cannot be moved into {request.target_type_name} "
                        f"(it accepts moves from: {accepted}).",
                    )
                source = MovedState(
                    request.source_provider_address,
                    request.source_type_name,
                    request.source_schema_version,
                    wire.decode(request.source_state),
                    bytes(request.source_private),
                )
                return wire.encode(instance(cls).move_state(source), state_type(cls))

            state, diags = _guard(f"move {request.source_type_name} into {request.target_type_name}", run)
            return p.MoveResourceStateResponse(state or null(), b"", None, wire.diagnostics(diags))

        def generate_resource_config(self, type_name: str, state: t.Value) -> p.GenerateResourceConfigResponse:
            return p.GenerateResourceConfigResponse(null(), _unsupported("generating configuration"))

        def read_data_source(self, request: p.ReadDataSourceRequest) -> p.ReadDataSourceResponse:
            state, diags = from_config("data source", data_sources, request.type_name, request.config, "read")
            return p.ReadDataSourceResponse(state, None, diags)

        def validate_ephemeral_resource_config(self, type_name: str, config: t.Value) -> list[t.Diagnostic]:
            return validate("ephemeral resource", ephemerals, type_name, config)

        def open_ephemeral_resource(self, request: p.OpenEphemeralResourceRequest) -> p.OpenEphemeralResourceResponse:
            def run() -> p.OpenEphemeralResourceResponse:
                cls = find("ephemeral resource", ephemerals, request.type_name)
                ty = state_type(cls)
                opened = instance(cls).open(value(request.config, ty))
                if not isinstance(opened, Opened):
                    opened = Opened(opened)
                return p.OpenEphemeralResourceResponse(
                    wire.encode(opened.result, ty), opened.private, _timestamp(opened.renew_at), None, []
                )

            opened, diags = _guard(f"open ephemeral resource {request.type_name}", run)
            if opened is None:
                return p.OpenEphemeralResourceResponse(null(), None, None, None, wire.diagnostics(diags))
            opened.diagnostics = wire.diagnostics(diags)
            return opened

        def renew_ephemeral_resource(self, type_name: str, private: bytes | None) -> p.RenewEphemeralResourceResponse:
            def run() -> Renewed:
                renewed = instance(find("ephemeral resource", ephemerals, type_name)).renew(private)
                return Renewed(private) if renewed is None else renewed

            renewed, diags = _guard(f"renew ephemeral resource {type_name}", run)
            if renewed is None:
                return p.RenewEphemeralResourceResponse(private, None, wire.diagnostics(diags))
            return p.RenewEphemeralResourceResponse(renewed.private, _timestamp(renewed.renew_at), wire.diagnostics(diags))

        def close_ephemeral_resource(self, type_name: str, private: bytes | None) -> list[t.Diagnostic]:
            _, diags = _guard(
                f"close ephemeral resource {type_name}",
                lambda: instance(find("ephemeral resource", ephemerals, type_name)).close(private),
            )
            return wire.diagnostics(diags)

        def validate_list_resource_config(self, type_name: str, config: t.Value) -> list[t.Diagnostic]:
            return _unsupported("list resources")

        def list_resource(self, request: Any, results: Any) -> list[t.Diagnostic]:
            return _unsupported("list resources")

        def validate_action_config(self, type_name: str, config: t.Value) -> list[t.Diagnostic]:
            return _unsupported("actions")

        def plan_action(self, request: p.ActionRequest) -> p.PlanActionResponse:
            return p.PlanActionResponse(None, _unsupported("actions"))

        def invoke_action(self, request: p.ActionRequest, progress: Any) -> list[t.Diagnostic]:
            return _unsupported("actions")

        def call_function(self, name: str, arguments: list[t.Value]) -> t.Value:
            f = functions.get(name)
            if f is None:
                raise Err(p.FunctionError(f"This provider has no function {name!r}.", None))
            types = [type_of(h, name)[0] for _, h in f.parameters]
            returns, _ = type_of(f.returns, name)
            try:
                args = [to_python(wire.decode(a), ty) for a, ty in zip(arguments, types)]
                return wire.encode(f.call(*args), returns)
            except FunctionError as e:
                raise Err(p.FunctionError(e.text, e.argument))
            except Exception as e:
                raise Err(p.FunctionError(f"{name} failed: {e}", None))

        def stop(self) -> str | None:
            return None

    def plan_resource(request: Any) -> Any:
        from wit_world.exports import behaviour as b

        def run() -> Any:
            cls = find("resource", resources, request.type_name)
            ty = state_type(cls)
            prior = value(request.prior_state, ty)
            planned = value(request.planned_state, ty)
            if planned is None:
                # A destroy: it reaches the guest only for a provider with plan_destroy.
                instance(cls).plan_destroy(prior)
                return request.planned_state
            if not _overrides(cls, "plan"):  # only plan_destroy: the host's plan stands
                return request.planned_state
            config = value(request.config, ty)
            return wire.encode(instance(cls).plan(prior, planned, config), ty)

        planned, diags = _guard(f"plan {request.type_name}", run)
        return b.PlanResourceResponse(
            planned or request.planned_state,
            request.requires_replace,
            request.prior_private,
            None,
            wire.diagnostics(diags),
            None,
        )

    try:
        from . import _behaviour
    except ImportError:  # a WIT without the behaviour interface: the guest plans (proposal)
        return Export, None
    return Export, _behaviour.make_behaviour(provider_cls, plan_resource)


def _overrides(cls: type, method: str) -> bool:
    """Whether the resource class ``cls`` writes its own ``method``."""
    from .provider import Resource

    return getattr(cls, method, None) is not getattr(Resource, method, None)


def _timestamp(at: Any) -> t.Timestamp | None:
    """A ``datetime`` as a WIT timestamp (a naive one is taken as UTC)."""
    if at is None:
        return None
    if at.tzinfo is None:
        at = at.replace(tzinfo=timezone.utc)
    seconds = at.timestamp()
    whole = int(seconds // 1)
    return t.Timestamp(whole, int(round((seconds - whole) * 1e9)) % 1_000_000_000)


def _unsupported(what: str) -> list[t.Diagnostic]:
    return wire.diagnostics([Diagnostic("error", "Not supported", f"This provider does not support {what}.")])
