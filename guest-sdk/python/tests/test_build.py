"""A failed ``python -m terrarium.build`` says what is wrong in a line the author can act on
(where, and what), not componentize-py's Python traceback and Rust backtrace."""

import os
import subprocess
import sys
from pathlib import Path

SDK = Path(__file__).resolve().parent.parent

SYNTAX = """import terrarium

def broken(:
    pass
"""

NO_EXPORT = """import terrarium


class Notes(terrarium.Provider):
    type_name = "notes"
"""

WRONG_DEFAULT = """from dataclasses import dataclass

import terrarium
from terrarium import attribute


@dataclass(kw_only=True)
class Note:
    name: str
    mode: str | None = attribute(default=5)


class NoteResource(terrarium.Resource):
    type_name = "notes_note"
    state = Note

    def create(self, planned):
        return planned


class Notes(terrarium.Provider):
    type_name = "notes"
    resources = [NoteResource]


Provider, Behaviour = terrarium.export(Notes)
"""


def test_a_failed_build_says_what_is_wrong_in_one_line(tmp_path):
    cases = {"syntax.py": SYNTAX, "noexport.py": NO_EXPORT, "wrongdefault.py": WRONG_DEFAULT}
    builds = {}
    env = {**os.environ, "PYTHONPATH": str(SDK)}
    env.pop("TERRARIUM_BUILD_VERBOSE", None)
    for name, source in cases.items():
        (tmp_path / name).write_text(source)
        command = [sys.executable, "-m", "terrarium.build", name, "-o", f"{name}.wasm"]
        builds[name] = subprocess.Popen(command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    said = {}
    for name, build in builds.items():
        out, err = build.communicate()
        assert build.returncode != 0, f"{name} built:\n{out}{err}"
        said[name] = err.strip()
    for name, text in said.items():
        assert len(text.splitlines()) <= 2, f"{name}: more than the error and the verbose hint:\n{text}"
        assert "Stack backtrace" not in text and "Traceback" not in text, text
    assert said["syntax.py"].startswith("terrarium.build: syntax.py, line 3: SyntaxError: invalid syntax"), said["syntax.py"]
    assert "add this line at its end: `Provider, Behaviour = terrarium.export(Notes)`" in said["noexport.py"], said["noexport.py"]
    assert "Note.mode: default=5 does not fit its type" in said["wrongdefault.py"], said["wrongdefault.py"]


USES_A_PACKAGE = """import semver

import terrarium


@terrarium.function
def bump(version: str) -> str:
    \"\"\"The next minor version.\"\"\"
    return str(semver.Version.parse(version).bump_minor())


class Versions(terrarium.Provider):
    type_name = "versions"
    functions = [bump]


Provider, Behaviour = terrarium.export(Versions)
"""


def test_a_python_author_needs_only_python_and_their_venv(tmp_path):
    """The build needs neither ``cargo`` (the WASI WIT ships with the SDK) nor an activated
    venv: run as ``.venv/bin/python -m terrarium.build``, with a ``python3`` on PATH that
    lacks the package, it bundles what the author installed into the venv (here ``semver``,
    which pulumi, installed by scripts/setup, depends on; this once failed with ``No module
    named 'semver'``, and without cargo on PATH)."""
    assert sys.prefix != sys.base_prefix, "run these tests with the repository's .venv"
    import semver  # noqa: F401  (the venv has it: see above)
    (tmp_path / "versions.py").write_text(USES_A_PACKAGE)
    path = "/usr/bin:/bin"
    assert subprocess.run(["sh", "-c", "! command -v cargo"], env={"PATH": path}).returncode == 0
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "TERRARIUM_WASI_WIT", "CARGO")}
    env.update(PATH=path, PYTHONPATH=str(SDK))
    command = [sys.executable, "-m", "terrarium.build", "versions.py", "-o", "versions.wasm"]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    if os.environ.get("TERRARIUM_BIN"):  # the end-to-end suite sets it: the package works
        from terrarium.testing import Harness

        with Harness(tmp_path / "versions.wasm") as h:
            h.configure({})
            assert h.call("bump", "1.2.3") == "1.3.0"
