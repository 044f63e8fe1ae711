"""Terraform providers in Python, as WebAssembly components served by Terrarium.

A schema is a dataclass; a resource is a class with create, read, update and delete; the
host plans, validates and checks for you from the schema, as it does for every language.
See guest-sdk/python/README.md.
"""

from .diagnostics import DeferredReason, Diagnostic, FunctionError, Key, TerraformError, warn
from .provider import (
    Action,
    DataSource,
    EphemeralResource,
    Function,
    ListResults,
    MovedState,
    Opened,
    PrivateState,
    Progress,
    Provider,
    Renewed,
    Resource,
    function,
)
from .schema import attribute, block
from . import http, log, stop, validators
from .stop import stopping
from .values import UNKNOWN, is_unknown, to_json

__all__ = [
    "UNKNOWN",
    "Action",
    "DataSource",
    "DeferredReason",
    "Diagnostic",
    "EphemeralResource",
    "Function",
    "FunctionError",
    "Key",
    "ListResults",
    "MovedState",
    "Opened",
    "PrivateState",
    "Progress",
    "Provider",
    "Renewed",
    "Resource",
    "TerraformError",
    "attribute",
    "block",
    "export",
    "function",
    "http",
    "is_unknown",
    "log",
    "stop",
    "stopping",
    "to_json",
    "validators",
    "warn",
]


def export(provider: type) -> tuple[type, type | None]:
    """The component's exports for ``provider`` (a :class:`Provider` subclass), which
    componentize-py looks for as ``Provider`` and ``Behaviour`` in the module it builds:
    ``Provider, Behaviour = terrarium.export(Pets)``."""
    from ._guest import make_export

    return make_export(provider)
