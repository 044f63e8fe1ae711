"""The Python development runtime: ``python -m terrarium.dev_runtime`` prints the path of a
component holding the interpreter and this SDK (not the author's code), building it first if
the cache has none for this SDK, WIT, Python and componentize-py.

``terrarium dev provider.py`` serves that component with the module's directory granted
read-only and imports the module from there in every new instance: an edit is reloaded by
starting new instances (about a second), where a whole build with componentize-py takes tens
of seconds. Installed providers are always whole components (``python -m terrarium.build``).

The cache is ``TERRARIUM_DEV_RUNTIME_CACHE``, else ``$XDG_CACHE_HOME/terrarium/dev-runtime``
(``~/.cache/terrarium/dev-runtime``): outside any checkout, one file per key.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from . import build as _build

#: The module componentize-py builds the runtime from (a file written beside nothing else).
ENTRY = "terrarium_dev_runtime"


def cache_dir() -> Path:
    given = os.environ.get("TERRARIUM_DEV_RUNTIME_CACHE")
    if given:
        return Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "terrarium" / "dev-runtime"


def key(wit: Path, componentize_py: str) -> str:
    """What the runtime is built from: this SDK's sources, the WIT, this Python and
    componentize-py's version."""
    digest = hashlib.sha256()
    for root in (_build.SDK_DIR / "terrarium", wit):
        for path in sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in (".py", ".wit")):
            digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    version = subprocess.run([componentize_py, "--version"], stdout=subprocess.PIPE, text=True).stdout
    digest.update(version.encode() + sys.version.encode())
    return digest.hexdigest()[:20]


def runtime() -> Path:
    """The runtime component, built into the cache unless it is there."""
    wit = _build.wit_dir()
    componentize_py = _build.componentize_py()
    target = cache_dir() / f"python-{key(wit, componentize_py)}.wasm"
    if target.is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="terrarium-devrt-") as scratch:
        entry = Path(scratch) / "app"
        entry.mkdir()
        (entry / f"{ENTRY}.py").write_text(
            "from terrarium._devrt import Behaviour, ComputedBlocks, Provider, Replacement  # noqa: F401\n"
        )
        world = _build.componentize_args(wit, Path(scratch) / "wit")
        # Beside the target (one file system), renamed into place whole: a concurrent
        # `terrarium dev` never reads half a file.
        partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
        command = [
            componentize_py, *world, "componentize", ENTRY,
            "-p", str(entry), "-p", str(_build.SDK_DIR), "-o", str(partial),
        ]  # fmt: skip
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if done.returncode != 0:
            raise _build.BuildError(f"componentize-py failed to build the development runtime:\n{done.stdout}")
        os.replace(partial, target)
    return target


def main() -> None:
    argparse.ArgumentParser(prog="python -m terrarium.dev_runtime", description=__doc__).parse_args()
    try:
        print(runtime())
    except _build.BuildError as e:
        sys.exit(f"terrarium.dev_runtime: {e}")


if __name__ == "__main__":
    main()
