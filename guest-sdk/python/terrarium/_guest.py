"""The component's export: the WIT ``provider`` interface answered from a
:class:`terrarium.Provider` subclass. Built by :func:`terrarium.export`."""

from __future__ import annotations

import json
import traceback
from datetime import timezone
from typing import Any, Callable

from componentize_py_types import Err
from wit_world import exports
from wit_world.exports import provider as p
from wit_world.imports import types as t

from . import _wire as wire
from .diagnostics import DeferredReason, Diagnostic, FunctionError, TerraformError, format_path, take_warnings
from .provider import ListResults, MovedState, Opened, PrivateState, Progress, Renewed
from .provider import Provider as UserProvider
from .schema import Type, computed_block_paths, schema_of, type_of
from .values import to_python, to_tree


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


def _guard_deferrable(
    what: str, call: Callable[[], Any], client: t.ClientCapabilities
) -> tuple[Any, Any, list[Diagnostic]]:
    """:func:`_guard` for a call that may defer (``TerraformError.deferred``): its result,
    the deferral Terraform gets, and the diagnostics. A deferral Terraform does not accept
    becomes an error that says why, as in the Rust SDK."""
    asked: list[DeferredReason] = []

    def run() -> Any:
        try:
            return call()
        except TerraformError as e:
            if e.deferral is not None:
                asked.append(e.deferral)
            raise

    result, diags = _guard(what, run)
    if not asked:
        return result, None, diags
    reason = asked[0]
    if client.deferral_allowed:
        return result, getattr(t.DeferredReason, reason.name), diags
    diags.append(
        Diagnostic(
            "error",
            "Provider cannot proceed yet",
            f"{what} asked to defer this change ({reason.value}), but Terraform did not say it accepts deferred "
            "changes. Apply the resources it depends on first (for example with -target), or run a Terraform "
            "that supports deferral (-allow-deferral).",
        )
    )
    return result, None, diags


def make_export(provider_cls: type[UserProvider]) -> tuple[type, type | None]:
    """The classes componentize-py exports as the WIT ``provider`` and ``behaviour``
    interfaces (no ``behaviour`` with a WIT that lacks it)."""
    provider = provider_cls()
    config_ty = _model_type(provider_cls.config)
    resources = {r.type_name: r for r in provider_cls.resources}
    data_sources = {d.type_name: d for d in provider_cls.data_sources}
    ephemerals = {e.type_name: e for e in provider_cls.ephemeral_resources}
    lists = {r.type_name: r for r in provider_cls.list_resources}
    actions = {a.type_name: a for a in provider_cls.actions}
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

    def identity_schema(cls: type) -> t.NamedIdentitySchema:
        model = schema_of(cls.identity)
        attributes = [
            t.IdentityAttribute(f.name, wire.type_json(f.type), f.required, not f.required, f.options.description)
            for f in model.fields
        ]
        return t.NamedIdentitySchema(cls.type_name, t.IdentitySchema(model.version, attributes))

    def identity_of(cls: type, state: t.Value, operation: str | None) -> t.Value | None:
        """The identity of ``state`` (a WIT value of the type's state) for a type with one;
        None while it is not known. With ``operation`` (after which the object exists) an
        identity that is not known is the provider's bug."""
        if cls.identity is None:
            return None
        current = value(state, state_type(cls))
        if current is None:
            return None
        found = instance(cls).identity_of(current)
        if found is None:
            if operation is None:
                return None
            raise TerraformError(
                "Provider returned no identity",
                f"After {operation}, {cls.__name__}.identity_of of {cls.type_name} returned None: the identity must "
                "be known once the object exists. This is a bug in the provider.",
            )
        return wire.encode(found, _model_type(cls.identity))

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

    class Export(exports.Provider):
        def get_schema(self) -> t.ProviderSchema:
            named = lambda table: [t.NamedSchema(n, wire.schema(schema_of(c.state))) for n, c in sorted(table.items())]  # noqa: E731
            return t.ProviderSchema(
                provider=wire.schema(schema_of(provider_cls.config) if provider_cls.config else None),
                provider_meta=None,
                resources=named(resources),
                data_sources=named(data_sources),
                functions=[function_schema(f) for _, f in sorted(functions.items())],
                resource_identities=[identity_schema(c) for _, c in sorted(resources.items()) if c.identity is not None],
                ephemeral_resources=named(ephemerals),
                list_resources=[
                    t.NamedSchema(n, wire.schema(schema_of(c.list_config))) for n, c in sorted(lists.items())
                ],
                actions=[t.NamedSchema(n, wire.schema(schema_of(c.config))) for n, c in sorted(actions.items())],
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
                new = wire.encode(instance(cls).read_with_private(current, private), ty)
                return new, identity_of(cls, new, "read")

            private = PrivateState(bytes(request.private))
            read, deferred, diags = _guard_deferrable(f"read of {request.type_name}", run, request.client)
            if read is None:
                # Failed or deferred: the object is as it was.
                return p.ReadResourceResponse(
                    request.current_state, private.encode(), deferred, wire.diagnostics(diags), request.current_identity
                )
            state, identity = read
            return p.ReadResourceResponse(state, private.encode(), None, wire.diagnostics(diags), identity)

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
                    return null(), None
                try:
                    if prior is None:
                        new = r.create_with_private(planned, private)
                    else:
                        new = r.update_with_private(prior, planned, private)
                except TerraformError as e:
                    if e.state is not None:
                        reached.append(wire.encode(e.state, ty))
                    raise
                new_state = wire.encode(new, ty)
                return new_state, identity_of(cls, new_state, "create" if prior is None else "update")

            private = PrivateState(bytes(request.planned_private))
            applied, diags = _guard(f"apply {request.type_name}", run)
            if applied is None:
                # Record what the failed change reached, so Terraform keeps track of the object
                # (tainted, after a create); else the object is as it was before.
                if reached:
                    identity = None
                    cls = resources.get(request.type_name)
                    if cls is not None:
                        identity, more = _guard(f"the identity of {request.type_name}", lambda: identity_of(cls, reached[0], None))
                        diags += more
                    return p.ApplyResourceChangeResponse(
                        reached[0], private.encode(), wire.diagnostics(diags), identity or request.planned_identity
                    )
                return p.ApplyResourceChangeResponse(
                    request.prior_state, private.encode(), wire.diagnostics(diags), request.planned_identity
                )
            state, identity = applied
            return p.ApplyResourceChangeResponse(state, private.encode(), wire.diagnostics(diags), identity)

        def import_resource_state(self, request: p.ImportResourceStateRequest) -> p.ImportResourceStateResponse:
            given = request.identity if request.identity is not None and wire.decode(request.identity) is not None else None

            def run() -> Any:
                cls = find("resource", resources, request.type_name)
                r = instance(cls)
                if given is None:
                    state = wire.encode(r.import_state(request.id), state_type(cls))
                elif cls.identity is None:
                    raise TerraformError(
                        "Import by identity not supported",
                        f"Resources of type {request.type_name} have no identity; import them by ID.",
                    )
                else:
                    identity = value(given, _model_type(cls.identity))
                    state = wire.encode(r.import_by_identity(identity), state_type(cls))
                # The imported state may not determine the identity yet (read fills it in);
                # when it does not, an identity import keeps the identity it was given.
                return state, identity_of(cls, state, None) or given

            method = "import_state" if given is None else "import_by_identity"
            found, deferred, diags = _guard_deferrable(f"{method} of {request.type_name}", run, request.client)
            imported = [p.ImportedResource(request.type_name, found[0], b"", found[1])] if found is not None else []
            return p.ImportResourceStateResponse(imported, deferred, wire.diagnostics(diags))

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
            def run() -> Any:
                cls = find("resource", resources, request.type_name)
                if cls.identity is None:
                    raise TerraformError(
                        "Resource has no identity",
                        f"Resources of type {request.type_name} have no identity schema, so there is no identity to upgrade.",
                    )
                ty = _model_type(cls.identity)
                raw = wire.decode(request.raw_identity)
                current = schema_of(cls.identity).version
                if request.version == current:
                    return wire.encode(to_python(raw, ty), ty)
                if request.version > current:
                    raise TerraformError(
                        "Identity written by a newer provider",
                        f"The {request.type_name} identity has identity schema version {request.version}, but this "
                        f"provider only knows versions up to {current}. Use the provider version that wrote the state, "
                        "or newer.",
                    )
                return wire.encode(instance(cls).upgrade_identity(request.version, raw), ty)

            identity, diags = _guard(f"upgrade the identity of {request.type_name}", run)
            return p.UpgradeResourceIdentityResponse(identity or null(), wire.diagnostics(diags))

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
                state = wire.encode(instance(cls).move_state(source), state_type(cls))
                return state, identity_of(cls, state, None)

            moved, diags = _guard(f"move {request.source_type_name} into {request.target_type_name}", run)
            if moved is None:
                return p.MoveResourceStateResponse(null(), b"", None, wire.diagnostics(diags))
            return p.MoveResourceStateResponse(moved[0], b"", moved[1], wire.diagnostics(diags))

        def generate_resource_config(self, type_name: str, state: t.Value) -> p.GenerateResourceConfigResponse:
            return p.GenerateResourceConfigResponse(null(), _unsupported("generating configuration"))

        def read_data_source(self, request: p.ReadDataSourceRequest) -> p.ReadDataSourceResponse:
            def run() -> Any:
                cls = find("data source", data_sources, request.type_name)
                ty = state_type(cls)
                return wire.encode(instance(cls).read(value(request.config, ty)), ty)

            state, deferred, diags = _guard_deferrable(f"read of {request.type_name}", run, request.client)
            # Deferred, the data is not known yet: the configuration, computed values unknown.
            return p.ReadDataSourceResponse(state or (request.config if deferred else null()), deferred, wire.diagnostics(diags))

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

            opened, deferred, diags = _guard_deferrable(f"open of {request.type_name}", run, request.client)
            if opened is None:
                result = request.config if deferred else null()
                return p.OpenEphemeralResourceResponse(result, None, None, deferred, wire.diagnostics(diags))
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
            # The attributes' validators ran in the host (the behaviour); this is the list's own check.
            def run() -> None:
                cls = find("list resource", lists, type_name)
                instance(cls).validate_list(value(config, _model_type(cls.list_config)))

            _, diags = _guard(f"validate list {type_name}", run)
            return wire.diagnostics(diags)

        def list_resource(self, request: p.ListResourceRequest, results: Any) -> list[t.Diagnostic]:
            from wit_world.imports import streams

            def run() -> None:
                cls = find("list resource", lists, request.type_name)
                ty = state_type(cls)
                identity_ty = _model_type(cls.identity)
                remaining = [request.limit]

                def send(identity: Any, display_name: str, state: Callable[[], Any] | None) -> bool:
                    # A bad item carries its own error (as in the Rust SDK): the items before
                    # it have been sent, and Terraform ends the listing at it.
                    found: list[Diagnostic] = []
                    encoded_identity = _item_part(display_name, "identity", found, lambda: wire.encode(identity, identity_ty))
                    resource_object = None
                    if state is not None:
                        # Write-only values are never read back, whatever the code returned.
                        made = lambda: wire.encode(_clear_write_only(to_tree(state(), ty), ty), ty)  # noqa: E731
                        resource_object = _item_part(display_name, "state", found, made)
                    item = streams.ListItem(
                        encoded_identity if encoded_identity is not None else null(),
                        display_name,
                        resource_object,
                        wire.diagnostics(found),
                    )
                    remaining[0] -= 1
                    failed = any(d.severity == "error" for d in found)
                    return bool(results.push(item)) and remaining[0] > 0 and not failed

                config = value(request.config, _model_type(cls.list_config))
                instance(cls).list(config, ListResults(send, request.include_resource_object))

            _, diags = _guard(f"list {request.type_name}", run)
            return wire.diagnostics(diags)

        def validate_action_config(self, type_name: str, config: t.Value) -> list[t.Diagnostic]:
            def run() -> None:
                cls = find("action", actions, type_name)
                instance(cls).validate(value(config, _model_type(cls.config)))

            _, diags = _guard(f"validate action {type_name}", run)
            return wire.diagnostics(diags)

        def plan_action(self, request: p.ActionRequest) -> p.PlanActionResponse:
            def run() -> None:
                cls = find("action", actions, request.type_name)
                instance(cls).plan(value(request.config, _model_type(cls.config)))

            _, deferred, diags = _guard_deferrable(f"plan of {request.type_name}", run, request.client)
            return p.PlanActionResponse(deferred, wire.diagnostics(diags))

        def invoke_action(self, request: p.ActionRequest, progress: Any) -> list[t.Diagnostic]:
            def run() -> None:
                cls = find("action", actions, request.type_name)
                config = value(request.config, _model_type(cls.config))
                instance(cls).invoke(config, Progress(progress.report))

            _, diags = _guard(f"invoke {request.type_name}", run)
            return wire.diagnostics(diags)

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

        planned, deferred, diags = _guard_deferrable(f"plan of {request.type_name}", run, request.client)
        planned = planned or request.planned_state
        identity = None
        cls = resources.get(request.type_name)
        if cls is not None and cls.identity is not None:
            # The object keeps its identity unless it is created or replaced; a new one's
            # identity is known once the attributes it is made of are.
            if wire.decode(request.prior_state) is not None and (not request.requires_replace or wire.decode(planned) is None):
                identity = request.prior_identity
            else:
                identity, more = _guard(f"the identity of {request.type_name}", lambda: identity_of(cls, planned, None))
                diags += more
        return b.PlanResourceResponse(
            planned,
            request.requires_replace,
            request.prior_private,
            deferred,
            wire.diagnostics(diags),
            identity,
        )

    global _replacement
    if hasattr(exports, "Replacement"):
        deleting_first = [n for n, r in sorted(resources.items()) if r.delete_before_replace]

        class Replacement(exports.Replacement):
            def delete_before_replace(self) -> list[str]:
                return deleting_first

        _replacement = Replacement

    global _computed_blocks
    if hasattr(exports, "ComputedBlocks"):

        from wit_world.exports import computed_blocks as cb

        declared = [
            cb.ComputedBlock(kind, name, path)
            for kind, table in ((cb.SchemaKind.RESOURCE, resources), (cb.SchemaKind.DATA_SOURCE, data_sources))
            for name, cls in sorted(table.items())
            for path in computed_block_paths(schema_of(cls.state) if cls.state is not None else None)
        ]

        class ComputedBlocks(exports.ComputedBlocks):
            def computed_blocks(self) -> list:
                return declared

        _computed_blocks = ComputedBlocks

    try:
        from . import _behaviour
    except ImportError:  # a WIT without the behaviour interface: the guest plans (proposal)
        return Export, None
    return Export, _behaviour.make_behaviour(provider_cls, plan_resource)


#: The ``replacement`` export of the provider :func:`make_export` made last.
_replacement: type | None = None


def exported_replacement() -> type | None:
    """The class componentize-py exports as the WIT ``replacement`` interface: the build's
    app module takes it from here, so that a provider module names only ``Provider`` and
    ``Behaviour``."""
    return _replacement


#: The ``computed-blocks`` export (WIT 0.2.3) of the provider :func:`make_export` made last.
_computed_blocks: type | None = None


def exported_computed_blocks() -> type | None:
    """The class componentize-py exports as the WIT ``computed-blocks`` interface, taken by
    the build's app module as :func:`exported_replacement` is."""
    return _computed_blocks


def _item_part(display_name: str, part: str, found: list[Diagnostic], make: Callable[[], Any]) -> Any:
    """Makes one part of a listed item (its identity or state); what goes wrong is added to
    ``found``, saying which item and which part it is about, as the Rust SDK says it (the
    listing has no attribute to point at)."""
    try:
        return make()
    except TerraformError as e:
        diags = e.diagnostics
    except (TypeError, ValueError) as e:  # a value that does not fit the schema
        diags = [Diagnostic("error", "Provider returned an invalid value", str(e))]
    for d in diags:
        at = f" (at {format_path(d.path)})" if d.path else ""
        found.append(Diagnostic(d.severity, d.summary, f"Listing {json.dumps(display_name, ensure_ascii=False)}, its {part}{at}: {d.detail}"))
    return None


def _clear_write_only(tree: Any, ty: Type) -> Any:
    """``tree`` (a value of ``ty``) with every write-only attribute null, at any depth."""
    if tree is None or ty.kind not in ("model", "list", "set", "map"):
        return tree
    if ty.kind in ("list", "set"):
        return [_clear_write_only(x, ty.element) for x in tree]
    if ty.kind == "map":
        return {k: _clear_write_only(v, ty.element) for k, v in tree.items()}
    return {
        f.name: None if f.options.write_only else _clear_write_only(tree.get(f.name), f.type)
        for f in schema_of(ty.model).fields
    }


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
