"""The Python development runtime: ``python -m terrarium.dev_runtime`` prints the path of a
component holding the interpreter and this SDK (not the author's code), building it first if
the cache has none for this SDK, WIT, Python and componentize-py.

``terrarium dev provider.py`` serves that component with the module's directory granted
read-only and imports the module from there in every new instance: an edit is reloaded by
starting new instances (about a second), where a whole build with componentize-py takes tens
of seconds. Installed providers are always whole components (``python -m terrarium.build``).

The cache is ``TERRARIUM_DEV_RUNTIME_CACHE``, else ``$XDG_CACHE_HOME/terrarium/dev-runtime``
(``~/.cache/terrarium/dev-runtime``): outside any checkout, one file per key. Every use keeps
only the ``KEEP`` most recently used Python runtimes there (see ``prune``): each key is a
change of the SDK, the WIT or the toolchain, and every one left a ~20 MB file behind.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import build as _build

#: The module componentize-py builds the runtime from (a file written beside nothing else).
ENTRY = "terrarium_dev_runtime"


#: How many runtimes of one language the cache keeps: the one in use and the ones used last
#: before it (another checkout's SDK, a branch switched back to).
KEEP = 3

#: A ``*.partial`` file older than this many seconds was left by a build that crashed (a build
#: takes well under a minute).
PARTIAL_AGE = 3600


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


def prune(directory: Path, language: str, used: Path, keep: int = KEEP) -> list[Path]:
    """Marks ``used`` (``directory/LANGUAGE-KEY.wasm``) as just used (its mtime), keeps it and
    the ``keep - 1`` other runtimes of ``language`` in ``directory`` used most recently, and
    removes the rest of them and ``language``'s ``*.partial`` files older than ``PARTIAL_AGE``;
    returns what it removed. Never ``used``, nor another language's files. The TypeScript
    SDK's ``pruneDevRuntimes`` (guest-sdk/js/bin/dev-runtime.mjs) does the same.

    A ``terrarium dev`` reads its runtime once, when it starts: removing one that another
    process still serves does not disturb it. Files that vanish meanwhile (a concurrent prune)
    or cannot be removed are passed over: the cache is tidied, never a reason to fail."""
    try:
        os.utime(used)
    except OSError:
        pass
    runtimes: list[tuple[float, Path]] = []
    removed: list[Path] = []
    now = time.time()
    try:
        entries = list(directory.iterdir())
    except OSError:
        return removed
    for path in entries:
        name = path.name
        if not name.startswith(f"{language}-"):
            continue
        try:
            mtime = path.stat().st_mtime
        except OSError:
            continue
        if name.endswith(".partial"):
            if now - mtime > PARTIAL_AGE:
                removed.append(path)
        elif name.endswith(".wasm") and path != used:
            runtimes.append((mtime, path))
    runtimes.sort(key=lambda found: found[0], reverse=True)
    removed.extend(path for _, path in runtimes[max(keep - 1, 0) :])
    gone = []
    for path in removed:
        try:
            path.unlink()
            gone.append(path)
        except OSError:
            pass
    return gone


def runtime() -> Path:
    """The runtime component, built into the cache unless it is there; the cache keeps the
    ``KEEP`` Python runtimes used last (``prune``)."""
    wit = _build.wit_dir()
    componentize_py = _build.componentize_py()
    target = cache_dir() / f"python-{key(wit, componentize_py)}.wasm"
    if not target.is_file():
        build_runtime(wit, componentize_py, target)
    prune(target.parent, "python", target)
    return target


def build_runtime(wit: Path, componentize_py: str, target: Path) -> None:
    """Builds the runtime with componentize-py into ``target``."""
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


def main() -> None:
    argparse.ArgumentParser(prog="python -m terrarium.dev_runtime", description=__doc__).parse_args()
    try:
        print(runtime())
    except _build.BuildError as e:
        sys.exit(f"terrarium.dev_runtime: {e}")


if __name__ == "__main__":
    main()
