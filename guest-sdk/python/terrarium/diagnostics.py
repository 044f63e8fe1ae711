"""Diagnostics: what Terraform shows about a problem, and where in the configuration it is.

Raise :class:`TerraformError` from any provider code: it becomes an error diagnostic at its
attribute path, and the call fails. :func:`warn` adds a warning to the running call's answer.
A path is a tuple of steps: a ``str`` names an attribute, an ``int`` an element of a list,
and :class:`Key` a key of a map (``("toys", 0, "kind")``, ``("tags", Key("env"))``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Union


class Key(str):
    """A map key in an attribute path (a plain ``str`` is an attribute name)."""


Step = Union[str, int, Key]
Path = tuple


@dataclass
class Diagnostic:
    severity: str  # "error" | "warning"
    summary: str
    detail: str = ""
    path: tuple = field(default_factory=tuple)

    def __str__(self) -> str:
        at = f" (at {format_path(self.path)})" if self.path else ""
        detail = f": {self.detail}" if self.detail else ""
        return f"{self.severity}: {self.summary}{at}{detail}"


def format_path(path: tuple) -> str:
    """A path as Terraform prints it: ``toys[0].kind``, ``tags["env"]``."""
    out = ""
    for step in path:
        if isinstance(step, Key):
            out += f'["{step}"]'
        elif isinstance(step, int):
            out += f"[{step}]"
        else:
            out += f".{step}" if out else step
    return out


class DeferredReason(enum.Enum):
    """Why a call asks Terraform to defer it to a later plan (:meth:`TerraformError.deferred`);
    each describes itself in the error a Terraform that does not accept deferrals shows."""

    UNKNOWN = "reason not given"
    RESOURCE_CONFIG_UNKNOWN = "the resource configuration has unknown values"
    PROVIDER_CONFIG_UNKNOWN = "the provider configuration has unknown values"
    ABSENT_PREREQUISITE = "something it needs does not exist yet"


class TerraformError(Exception):
    """An error Terraform shows as a diagnostic: ``summary``, ``detail`` and the attribute
    ``path`` it is about (empty: the whole object). Give ``more`` to report several at once.

    A create or update that fails after changing the real object raises it
    :meth:`with_state`, so that Terraform records what exists (tainted, after a create)
    instead of losing track of it."""

    def __init__(self, summary: str, detail: str = "", path: tuple = (), *more: Diagnostic):
        super().__init__(f"{summary}: {detail}" if detail else summary)
        self.diagnostics = [Diagnostic("error", summary, detail, tuple(path)), *more]
        #: The state the failed create or update reached (None: nothing was changed).
        self.state: object = None
        #: The deferral asked for with :meth:`deferred` (None: none).
        self.deferral: DeferredReason | None = None

    @classmethod
    def deferred(cls, reason: DeferredReason) -> "TerraformError":
        """Asks Terraform to defer this call to a later plan, as the Rust SDK's
        ``Diagnostics::deferred`` does: from a resource's ``plan``, ``read`` or
        ``import_state``/``import_by_identity``, a data source's ``read``, an ephemeral
        resource's ``open`` or an action's ``plan``. Honoured when Terraform accepts deferrals
        (``-allow-deferral``); otherwise the call fails with an error that says why.

            raise TerraformError.deferred(DeferredReason.RESOURCE_CONFIG_UNKNOWN)
        """
        error = cls("Deferred", reason.value)
        error.diagnostics = []
        error.deferral = reason
        return error

    def with_state(self, state: object) -> "TerraformError":
        """This error, carrying the state a failed create or update reached: what it made
        or changed before it failed. Unknown values in it are stored as null.

            raise TerraformError("Server failed to boot", "...").with_state(started)
        """
        self.state = state
        return self


class FunctionError(Exception):
    """A provider function's failure: ``text``, and the argument at fault (from 0) if any."""

    def __init__(self, text: str, argument: int | None = None):
        super().__init__(text)
        self.text = text
        self.argument = argument


_warnings: list[Diagnostic] = []


def warn(summary: str, detail: str = "", path: tuple = ()) -> None:
    """Adds a warning to the answer of the call that is running."""
    _warnings.append(Diagnostic("warning", summary, detail, tuple(path)))


def take_warnings() -> list[Diagnostic]:
    """The warnings of the running call so far, and forgets them."""
    taken = list(_warnings)
    _warnings.clear()
    return taken
