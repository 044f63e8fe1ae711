"""What a provider author subclasses: :class:`Provider`, :class:`Resource`,
:class:`DataSource`, :class:`EphemeralResource`, and the :func:`function` decorator.

Each resource, data source and ephemeral resource class names its ``type_name`` and its
``state`` dataclass (the schema), and is created with the configured provider as
``self.provider``. Terraform's plan (defaults, unknowns, kept values, replacements) is not
written here: the host plans from the schema for every language.
"""

from __future__ import annotations

import inspect
import typing
from dataclasses import dataclass
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

    def import_state(self, id: str) -> T:
        """The state of the existing object ``id`` (`terraform import`); Terraform reads it
        afterwards."""
        from .diagnostics import TerraformError

        raise TerraformError(
            "Import not supported", f"{self.type_name} cannot be imported: the provider does not implement it."
        )

    def validate(self, config: T) -> None:
        """Checks a configuration beyond what the schema says; raise TerraformError."""

    def plan(self, prior: T | None, planned: T, config: T) -> T:
        """The plan hook: adjusts the host's plan (``planned``: defaults filled in, computed
        values UNKNOWN where they will change) and returns it. Only resources that override it
        are asked; the host checks the answer as terraform will."""
        return planned


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


class EphemeralResource(_ConfiguredType[T]):
    """An ephemeral resource type: a value opened for one Terraform run, never stored."""

    def open(self, config: T) -> T:
        """Returns the configuration with computed values set."""
        raise NotImplementedError(f"{type(self).__name__}.open")


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
    functions: ClassVar[list[Function]] = []

    def configure(self, config: Any) -> None:
        """Receives the provider configuration (an instance of ``config``) before any call
        that needs it; keep what it says on ``self``."""

    def validate(self, config: Any) -> None:
        """Checks the provider configuration beyond what the schema says."""
