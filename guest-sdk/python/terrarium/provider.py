"""What a provider author subclasses: :class:`Provider`, :class:`Resource`,
:class:`DataSource`, :class:`EphemeralResource`, :class:`Action`, and the :func:`function`
decorator.

Each resource, data source and ephemeral resource class names its ``type_name`` and its
``state`` dataclass (the schema), and is created with the configured provider as
``self.provider``. Terraform's plan (defaults, unknowns, kept values, replacements) is not
written here: the host plans from the schema for every language.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import json
import typing
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable, ClassVar, Generic, TypeVar

T = TypeVar("T")


class Resource(Generic[T]):
    """A managed resource type. Write :meth:`create`, :meth:`read`, :meth:`update` and
    :meth:`delete`; :meth:`import_state` and :meth:`validate` when the type needs them."""

    type_name: ClassVar[str]
    state: ClassVar[type]

    def __init__(self, provider: Any):
        self.provider = provider

    def create(self, planned: T) -> T:
        """Creates the object; returns ``planned`` with every unknown value set."""
        raise NotImplementedError(f"{type(self).__name__}.create")

    def read(self, current: T) -> T | None:
        """The object as it is now, or None when it no longer exists."""
        raise NotImplementedError(f"{type(self).__name__}.read")

    def update(self, prior: T, planned: T) -> T:
        """Changes the object in place; returns ``planned`` with every unknown value set."""
        raise NotImplementedError(f"{type(self).__name__}.update")

    def delete(self, prior: T) -> None:
        """Deletes the object."""
        raise NotImplementedError(f"{type(self).__name__}.delete")

    def create_with_private(self, planned: T, private: "PrivateState") -> T:
        """:meth:`create` with the resource's :class:`PrivateState`: what the plan stored
        there, and what to keep beside the new state. By default calls ``create``."""
        return self.create(planned)

    def update_with_private(self, prior: T, planned: T, private: "PrivateState") -> T:
        """:meth:`update` with the resource's :class:`PrivateState`. By default calls
        ``update``."""
        return self.update(prior, planned)

    def read_with_private(self, current: T, private: "PrivateState") -> T | None:
        """:meth:`read` with the resource's :class:`PrivateState`. By default calls
        ``read``."""
        return self.read(current)

    def import_state(self, id: str) -> T:
        """The state of the existing object ``id`` (`terraform import`); Terraform reads it
        afterwards."""
        from .diagnostics import TerraformError

        raise TerraformError(
            "Import not supported", f"{self.type_name} cannot be imported: the provider does not implement it."
        )

    def validate(self, config: T) -> None:
        """Checks a configuration beyond what the schema says; raise TerraformError."""

    def upgrade(self, version: int, raw: Any) -> T:
        """The state written by the older schema ``version`` in the current schema (give the
        state dataclass ``__terraform_version__ = N`` when its shape changes). ``raw`` is the
        stored JSON state as written: dicts, lists, strings, numbers, bools and None. Return
        an instance of the state dataclass (or a dict of its fields). States of the current
        version need no code."""
        from .diagnostics import TerraformError

        raise TerraformError(
            "Cannot upgrade state", f"The provider cannot upgrade {self.type_name} state from schema version {version}."
        )

    #: Whether a replacement must delete the old object before it creates the new one,
    #: because two cannot exist at once (a fixed file name, a name unique in a remote
    #: system). Terraform deletes first anyway unless a configuration asks for
    #: ``create_before_destroy``; Pulumi creates first unless told, and the host tells it.
    delete_before_replace: ClassVar[bool] = False

    #: Resource types whose state a ``moved { from = <other type>  to = <this type> }`` block
    #: may move into this one, by type name; :meth:`move_state` converts it. When any resource
    #: type has some, the provider declares the ``move_resource_state`` capability.
    moves_from: ClassVar[tuple[str, ...]] = ()

    def move_state(self, source: "MovedState") -> T:
        """The state of a resource of a type in :attr:`moves_from` (of any provider: check
        ``source.provider_address`` if it matters), in this type's schema. As in
        :meth:`upgrade`, ``source.state`` is the stored JSON state as written; return an
        instance of the state dataclass or a dict of its fields."""
        from .diagnostics import TerraformError

        raise TerraformError(
            "Cannot move resource state",
            f"The provider cannot move {source.type_name} state into {self.type_name}.",
        )

    def plan_destroy(self, prior: T) -> None:
        """Checks a planned destroy: raise TerraformError to refuse it (an object that must
        not be deleted while something holds it, say). Overriding it declares the provider's
        ``plan_destroy`` capability, so Terraform asks before every destroy of any type."""

    def plan(self, prior: T | None, planned: T, config: T) -> T:
        """The plan hook: adjusts the host's plan (``planned``: defaults filled in, computed
        values UNKNOWN where they will change) and returns it. Only resources that override it
        are asked; the host checks the answer as terraform will. Raise
        ``TerraformError.deferred(reason)`` to ask Terraform to plan it in a later round."""
        return planned

    # ---- identity (Terraform 1.12+) ----

    #: The resource's identity, a dataclass of plain attributes (strings, numbers, bools, or
    #: lists of them): the small, immutable data that names the remote object. A field typed
    #: ``T`` must be given in an ``import { identity = {...} }`` block (required for import),
    #: one typed ``T | None`` may be (optional for import); ``__terraform_version__ = N`` on
    #: it is the identity schema's version (see :meth:`upgrade_identity`). With it the SDK
    #: declares the identity schema, returns the identity from read, apply, import and move,
    #: keeps it through updates, and imports by identity. None: the type has no identity.
    identity: ClassVar[type | None] = None

    def identity_of(self, state: T) -> Any:
        """The identity of the object whose state is ``state``, or None while the state does
        not determine it yet (an attribute it needs still unknown: the planned identity is
        then null). By default the identity's fields are the state's attributes of the same
        names. After apply, read or import it must not be None."""
        from .values import UNKNOWN

        values = {}
        for f in dataclasses.fields(self.identity):
            value = state.get(f.name) if isinstance(state, dict) else getattr(state, f.name, None)
            if value is None or value is UNKNOWN:
                return None
            values[f.name] = value
        return self.identity(**values)

    def import_by_identity(self, identity: Any) -> T:
        """The state of the existing object an ``import { identity = {...} }`` block names
        (an instance of :attr:`identity`; attributes not required for import may be None);
        Terraform reads it afterwards. By default import by identity is refused."""
        from .diagnostics import TerraformError

        raise TerraformError(
            "Import by identity not supported",
            f"Resources of type {self.type_name} cannot be imported by identity.",
        )

    def upgrade_identity(self, version: int, raw: Any) -> Any:
        """An identity stored with the older identity schema ``version``, in the current one
        (an instance of :attr:`identity`, or a dict of its fields). ``raw`` is the stored
        JSON as written. Only called for versions lower than the current one."""
        from .diagnostics import TerraformError

        raise TerraformError(
            "Cannot upgrade identity",
            f"The provider cannot upgrade {self.type_name} identities from identity schema version {version}.",
        )

    # ---- list resource (`terraform query`) ----

    #: The list resource's ``config`` block: a dataclass, as for ``state``. A resource type
    #: with an :attr:`identity` and a ``list_config`` whose class is in
    #: :attr:`Provider.list_resources` is listed by :meth:`list`.
    list_config: ClassVar[type | None] = None

    def validate_list(self, config: Any) -> None:
        """Checks a list block's ``config`` beyond what its schema says (each attribute's
        validators have run): raise TerraformError to refuse it. Values may be UNKNOWN here."""

    def list(self, config: Any, results: "ListResults") -> None:
        """Lists the objects ``config`` selects, pushing each into ``results`` in a stable
        order (Terraform shows them as they come). Stop when :meth:`ListResults.push` returns
        False. An error raised here ends the listing; the items pushed before it have been
        sent. An error raised by an item's state function goes with that item (Terraform
        ends the listing there too); write-only values in the state are never sent."""
        raise NotImplementedError(f"{type(self).__name__}.list")


class ListResults:
    """Where :meth:`Resource.list` sends the objects it finds; Terraform receives each as it
    is pushed."""

    def __init__(self, send: Callable[[Any, str, Callable[[], Any] | None], bool], include_resource_object: bool):
        self._send = send
        self._include = include_resource_object
        self._finished = False

    def push(self, identity: Any, display_name: str, state: Callable[[], Any] | None = None) -> bool:
        """Sends one object: its identity (an instance of the resource's ``identity``), a
        short name for people, and a function that makes its state, called only when
        Terraform asked for resource objects (``include_resource = true``). Returns False once
        Terraform wants no more (its limit is reached, or an item had an error): stop listing
        and return. Later pushes are ignored. When making the state raises TerraformError (or
        the identity or state does not fit its schema), the item carries the error and push
        returns False."""
        if self._finished:
            return False
        more = self._send(identity, display_name, state if self._include else None)
        self._finished = not more
        return more


class Progress:
    """Where a running :meth:`Action.invoke` reports progress; Terraform shows each message as
    it arrives."""

    def __init__(self, send: Callable[[str], None]):
        self._send = send

    def report(self, message: str) -> None:
        """Sends a progress message. When Terraform reads slowly this waits, so a chatty
        action runs in bounded memory."""
        self._send(str(message))


class Action(Generic[T]):
    """An action type (``action`` blocks; ``terraform apply -invoke=action.<type>.<name>`` or
    an ``action_trigger``): a configuration, no state, and :meth:`invoke`, which reports
    progress as it runs."""

    type_name: ClassVar[str]
    #: The action's configuration: a dataclass, as a resource's ``state``.
    config: ClassVar[type]

    def __init__(self, provider: Any):
        self.provider = provider

    def validate(self, config: T) -> None:
        """Checks a configuration beyond what the schema says (values may be UNKNOWN)."""

    def plan(self, config: T) -> None:
        """Checks, when Terraform plans the invocation, that the action can run: raise
        TerraformError to fail the plan instead of the apply, or
        ``TerraformError.deferred(reason)`` to defer it. Values may be UNKNOWN here."""

    def invoke(self, config: T, progress: Progress) -> None:
        """Runs the action with its configuration (wholly known), reporting how it goes
        through ``progress``. Raise TerraformError to fail the apply."""
        raise NotImplementedError(f"{type(self).__name__}.invoke")


class PrivateState(dict):
    """Provider-private data kept with a resource's state: Terraform stores it and hands it
    back, but never shows it. A dict of JSON values by key (keys starting with ``.`` are
    reserved for the SDK), stored as a JSON object, as the Rust and TypeScript SDKs store
    it. Bytes that are not a JSON object (none yet, or another SDK's) read as empty, and
    are handed back unchanged unless an entry is set or removed."""

    def __init__(self, stored: bytes = b""):
        try:
            entries = json.loads(stored) if stored else {}
        except ValueError:
            entries = {}
        super().__init__(entries if isinstance(entries, dict) else {})
        self._stored = bytes(stored)
        self._read = copy.deepcopy(dict(self))

    def encode(self) -> bytes:
        """The bytes Terraform stores."""
        if dict(self) == self._read:
            return self._stored
        return json.dumps(self, separators=(",", ":")).encode() if self else b""


@dataclass
class MovedState:
    """What :meth:`Resource.move_state` converts: the source of a ``moved`` block."""

    #: The source's full provider address, e.g. ``registry.terraform.io/hashicorp/random``.
    provider_address: str
    #: The source's resource type.
    type_name: str
    #: The schema version the source state was written with.
    schema_version: int
    #: The stored JSON state: dicts, lists, strings, numbers, bools and None.
    state: Any
    #: The source's private data.
    private: bytes = b""


class _ConfiguredType(Generic[T]):
    """What data sources and ephemeral resources share: a type name, a state dataclass, the
    provider, and an optional configuration check."""

    type_name: ClassVar[str]
    state: ClassVar[type]

    def __init__(self, provider: Any):
        self.provider = provider

    def validate(self, config: T) -> None:
        """Checks a configuration beyond what the schema says; raise TerraformError."""


class DataSource(_ConfiguredType[T]):
    """A data source type: :meth:`read` returns the configuration with computed values set."""

    def read(self, config: T) -> T:
        raise NotImplementedError(f"{type(self).__name__}.read")


@dataclass
class Opened(Generic[T]):
    """What :meth:`EphemeralResource.open` may return instead of the bare value: the value,
    the private data :meth:`~EphemeralResource.renew` and :meth:`~EphemeralResource.close`
    will get (Terraform keeps it in memory only), and when Terraform should renew it (a
    timezone-aware ``datetime``; None: never)."""

    result: T
    private: bytes | None = None
    renew_at: datetime | None = None


@dataclass
class Renewed:
    """What :meth:`EphemeralResource.renew` returns: the private data from now on, and when
    to renew next (None: no more renewals)."""

    private: bytes | None = None
    renew_at: datetime | None = None


class EphemeralResource(_ConfiguredType[T]):
    """An ephemeral resource type: a value opened for one Terraform run, never stored.
    :meth:`open` makes it; a leased one asks for :meth:`renew` (``Opened.renew_at``), and
    :meth:`close` ends it when Terraform is done with it."""

    def open(self, config: T) -> T | Opened[T]:
        """Returns the configuration with computed values set, or an :class:`Opened` with
        private data and a renewal time as well."""
        raise NotImplementedError(f"{type(self).__name__}.open")

    def renew(self, private: bytes | None) -> Renewed | None:
        """Renews the resource, at the time ``renew_at`` asked for; ``private`` is what
        :meth:`open` (or the last renewal) kept. Return :class:`Renewed` to keep other data
        or to be renewed again; None keeps the data and asks for no more renewals."""
        return None

    def close(self, private: bytes | None) -> None:
        """Closes the resource when Terraform is done with it (revoke a token, end a
        session); ``private`` is what :meth:`open` or the last renewal kept."""


@dataclass
class Function:
    """A provider function, from a type-hinted Python function (see :func:`function`)."""

    name: str
    call: Callable[..., Any]
    parameters: list[tuple[str, Any]]
    returns: Any
    summary: str
    description: str


def function(fn: Callable[..., Any] | None = None, *, name: str | None = None) -> Any:
    """Makes a type-hinted Python function a provider function
    (``provider::NAME::FUNCTION(...)`` in configurations). The first docstring line is its
    summary, the rest its description. Raise :class:`FunctionError` for a bad argument."""

    def wrap(fn: Callable[..., Any]) -> Function:
        hints = typing.get_type_hints(fn)
        params = [(p, hints[p]) for p in inspect.signature(fn).parameters]
        doc = inspect.getdoc(fn) or ""
        summary, _, description = doc.partition("\n")
        return Function(name or fn.__name__, fn, params, hints["return"], summary.strip(), description.strip())

    return wrap(fn) if fn is not None else wrap


class Provider:
    """A provider: its configuration dataclass (``config``, None for none), what it serves,
    and :meth:`configure`. Resource, data source and ephemeral resource classes are created
    with the provider once it is configured."""

    config: ClassVar[type | None] = None
    resources: ClassVar[list[type]] = []
    data_sources: ClassVar[list[type]] = []
    ephemeral_resources: ClassVar[list[type]] = []
    #: Resource classes with a ``list_config`` and :meth:`Resource.list` (``terraform query``).
    list_resources: ClassVar[list[type]] = []
    actions: ClassVar[list[type]] = []
    functions: ClassVar[list[Function]] = []

    def configure(self, config: Any) -> None:
        """Receives the provider configuration (an instance of ``config``) before any call
        that needs it; keep what it says on ``self``."""

    def validate(self, config: Any) -> None:
        """Checks the provider configuration beyond what the schema says."""
