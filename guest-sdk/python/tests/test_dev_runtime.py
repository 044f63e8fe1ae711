"""The development runtime cache (``python -m terrarium.dev_runtime``) keeps only the few
Python runtimes used last: every change of the SDK, the WIT or the toolchain is a new ~20 MB
file, and before, none was ever removed. Real files with real mtimes in a temporary directory;
no runtime is built (the cached one is a stand-in: the cache never reads it)."""

import os
import time

from terrarium import dev_runtime


def runtimes(directory, language, ages):
    """``directory/LANGUAGE-N.wasm`` for each age in ``ages`` (seconds before now), with that
    mtime."""
    now = time.time()
    made = []
    for n, age in enumerate(ages):
        path = directory / f"{language}-{n:020x}.wasm"
        path.write_bytes(b"\0asm")
        os.utime(path, (now - age, now - age))
        made.append(path)
    return made


def test_prune_keeps_the_used_runtime_and_the_ones_used_last(tmp_path):
    # Used an hour, a day, two days, three days ago; the one used now is the oldest file.
    recent, day, two_days, three_days = runtimes(tmp_path, "python", [3600, 86400, 2 * 86400, 3 * 86400])
    used = tmp_path / "python-used.wasm"
    used.write_bytes(b"\0asm")
    os.utime(used, (time.time() - 30 * 86400,) * 2)
    other_language = runtimes(tmp_path, "typescript", [10 * 86400, 20 * 86400, 30 * 86400, 40 * 86400])
    crashed = tmp_path / f"{recent.name}.123.partial"
    crashed.write_bytes(b"half")
    os.utime(crashed, (time.time() - 2 * 3600,) * 2)
    building = tmp_path / f"{day.name}.456.partial"
    building.write_bytes(b"half")
    unrelated = tmp_path / "python-notes.txt"
    unrelated.write_text("not a runtime")

    removed = dev_runtime.prune(tmp_path, "python", used, keep=3)

    assert sorted(removed) == sorted([two_days, three_days, crashed])
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted([used.name, recent.name, day.name, building.name, unrelated.name, *(p.name for p in other_language)])
    # The one in use is now the most recently used: the next prune keeps it over `day`.
    assert used.stat().st_mtime > recent.stat().st_mtime
    assert dev_runtime.prune(tmp_path, "python", recent, keep=2) == [day]
    assert used.exists()


def test_prune_never_removes_the_used_runtime(tmp_path):
    older, used = runtimes(tmp_path, "python", [7200, 3600])
    assert dev_runtime.prune(tmp_path, "python", used, keep=0) == [older]
    assert dev_runtime.prune(tmp_path, "python", used, keep=1) == []
    assert [p.name for p in tmp_path.iterdir()] == [used.name]


def test_a_cached_runtime_prunes_the_others(tmp_path, monkeypatch):
    """``runtime()`` itself prunes, also when its runtime was cached (no build)."""
    monkeypatch.setenv("TERRARIUM_DEV_RUNTIME_CACHE", str(tmp_path))
    wit = dev_runtime._build.wit_dir()
    current = tmp_path / f"python-{dev_runtime.key(wit, dev_runtime._build.componentize_py())}.wasm"
    current.write_bytes(b"\0asm")
    os.utime(current, (time.time() - 9 * 86400,) * 2)
    old = runtimes(tmp_path, "python", [86400 * n for n in range(1, 6)])

    assert dev_runtime.runtime() == current

    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([current.name, old[0].name, old[1].name])
    assert current.stat().st_mtime > old[0].stat().st_mtime
