"""The development runtime's exports: the WIT ``provider``, ``behaviour``, ``replacement`` and ``computed-blocks`` interfaces
answered by the author's module, imported from the directory ``terrarium dev`` grants
read-only (see :mod:`terrarium.dev_runtime`).

This module is what componentize-py builds the runtime from. Building imports it, and with it
the SDK and the standard library modules authors commonly use (componentize-py keeps only
what was imported while it built), and snapshots the interpreter. Each new instance of the
runtime starts from that snapshot; its first call imports the author's module afresh from
``TERRARIUM_DEV_PYTHON_DIR``, so a reload needs only new instances, never a new build.
"""

from __future__ import annotations

import importlib
import os
import sys
import traceback
from typing import Any

from wit_world import exports

#: The directory holding the author's module (granted read-only by ``terrarium dev``).
DIR_VAR = "TERRARIUM_DEV_PYTHON_DIR"
#: The author's module, by name (``provider`` for ``provider.py``).
MODULE_VAR = "TERRARIUM_DEV_PYTHON_MODULE"

#: Standard library modules imported while the runtime is built, so that the author's code
#: can import them (componentize-py keeps only what was imported then). A module this
#: Python cannot import in WebAssembly is left out.
PRELOADED = (
    "abc", "base64", "binascii", "bisect", "calendar", "collections", "collections.abc",
    "contextlib", "copy", "csv", "dataclasses", "datetime", "decimal", "difflib", "enum",
    "fnmatch", "fractions", "functools", "glob", "hashlib", "heapq", "hmac", "html",
    "io", "ipaddress", "itertools", "json", "logging", "math", "operator", "os", "os.path",
    "pathlib", "pprint", "random", "re", "secrets", "shlex", "statistics", "string",
    "struct", "textwrap", "time", "tomllib", "traceback", "types", "typing", "unicodedata",
    "urllib", "urllib.parse", "uuid", "zlib",
)  # fmt: skip

for _name in PRELOADED:
    try:
        importlib.import_module(_name)
    except Exception:  # not in this build of Python: the author cannot use it either way
        pass

import terrarium  # noqa: E402  (the SDK, in the snapshot)
from terrarium import _guest  # noqa: E402,F401

try:
    from terrarium import _behaviour  # noqa: E402,F401
except ImportError:  # a WIT without the behaviour interface
    pass

_loaded: tuple[Any, Any] | None = None


def _load() -> tuple[Any, Any]:
    """The author's ``Provider`` and ``Behaviour`` exports, imported on this instance's first
    call. An import that fails prints its traceback (to the dev terminal) and raises."""
    global _loaded
    if _loaded is None:
        directory = os.environ.get(DIR_VAR)
        name = os.environ.get(MODULE_VAR)
        if not directory or not name:
            raise RuntimeError(
                f"the Python development runtime needs {DIR_VAR} and {MODULE_VAR}: "
                "serve it with `terrarium dev provider.py`, not as a component"
            )
        sys.dont_write_bytecode = True  # the directory is read-only to the provider
        if directory not in sys.path:
            sys.path.insert(0, directory)
        try:
            module = importlib.import_module(name)
        except BaseException:
            traceback.print_exc()
            raise
        provider = getattr(module, "Provider", None)
        behaviour = getattr(module, "Behaviour", None)
        if provider is None:
            raise RuntimeError(
                f"{directory}/{name}.py exports no provider: add "
                "`Provider, Behaviour = terrarium.export(YourProvider)` at its end"
            )
        _loaded = (provider(), behaviour() if behaviour is not None else None)
    return _loaded


def _forwarder(interface: type, index: int) -> type:
    """A class implementing ``interface`` whose every method calls the same method of the
    author's export (``index`` 0: provider, 1: behaviour)."""

    def forward(name: str) -> Any:
        def method(self: Any, *args: Any) -> Any:
            target = _load()[index]
            if target is None:
                raise RuntimeError(f"the provider's module exports no Behaviour, so it cannot answer {name}")
            return getattr(target, name)(*args)

        method.__name__ = name
        return method

    methods = {
        name: forward(name)
        for name, member in vars(interface).items()
        if not name.startswith("_") and callable(member)
    }
    return type(interface.__name__, (interface,), methods)


Provider = _forwarder(exports.Provider, 0)
Behaviour = _forwarder(exports.Behaviour, 1) if hasattr(exports, "Behaviour") else None

if hasattr(exports, "Replacement"):

    class Replacement(exports.Replacement):
        """The ``replacement`` export of the author's provider (``terrarium.export`` made it
        while the module was imported)."""

        def delete_before_replace(self) -> list[str]:
            _load()
            made = _guest.exported_replacement()
            return made().delete_before_replace() if made is not None else []

else:
    Replacement = None

if hasattr(exports, "ComputedBlocks"):

    class ComputedBlocks(exports.ComputedBlocks):
        """The ``computed-blocks`` export of the author's provider (WIT 0.2.3)."""

        def computed_blocks(self) -> list:
            _load()
            made = _guest.exported_computed_blocks()
            return made().computed_blocks() if made is not None else []

else:
    ComputedBlocks = None
