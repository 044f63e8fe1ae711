"""Builds a provider module into a component: ``python -m terrarium.build provider.py -o
pets.wasm``. Runs componentize-py (from PyPI) against Terrarium's WIT world, with the
module's directory, the packages of the Python running the build (its virtual environment's
``site-packages``, where ``pip install`` put what the provider imports) and this SDK on the
Python path. Needs nothing but Python and componentize-py: no Rust, no ``cargo``.

The world is Terrarium's provider world plus ``wasi:http/outgoing-handler``, so that
:mod:`terrarium.http` can make requests (the host lets through only the origins the user
granted). The WASI WIT is the client half of ``wasi:http`` that ships with this SDK
(``terrarium/wasi``), or a directory of WASI WIT packages named by ``TERRARIUM_WASI_WIT``.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import site
import subprocess
import sys
import tempfile
from pathlib import Path

SDK_DIR = Path(__file__).resolve().parent.parent
#: The world of a provider whose plans the host makes from its declared behaviour.
WORLD = "terrarium-provider-with-behaviour"
#: The world of a WIT without the behaviour interface (the guest answers plans itself).
PLAIN_WORLD = "terrarium-provider"
#: The world this build composes: ``WORLD`` plus outgoing HTTP.
GUEST_WORLD = "terrarium:python-guest/provider"


class BuildError(Exception):
    """Why a component cannot be built, said so that the reader knows what to do."""


def wit_dir() -> Path:
    """Terrarium's WIT: ``TERRARIUM_WIT``, else the checkout this SDK is part of."""
    found = os.environ.get("TERRARIUM_WIT") or SDK_DIR.parent.parent / "wit"
    return Path(found)


def package_version(wit_file: Path, package: str) -> str:
    """The version in ``package <package>@<version>;`` of a WIT file."""
    found = re.search(rf"^package {re.escape(package)}@([0-9][^;\s]*);", wit_file.read_text(), re.M)
    if not found:
        raise BuildError(f"{wit_file} does not declare the package {package}@<version>")
    return found.group(1)


def wasi_wit_dir() -> Path:
    """A directory of WASI WIT packages (``http.wit``, ``io.wit``, ...): ``TERRARIUM_WASI_WIT``,
    else the one this SDK ships (``terrarium/wasi``: what :mod:`terrarium.http` imports, at
    the version the host serves)."""
    return Path(os.environ.get("TERRARIUM_WASI_WIT") or Path(__file__).resolve().parent / "wasi")


def componentize_args(wit: Path, into: Path) -> list[str]:
    """componentize-py's ``-d``/``-w`` arguments for a provider, with the composed WIT laid
    out in the directory ``into``. Terrarium's interfaces keep their short module names
    (``wit_world.imports.types``), the WASI ones are ``wasi_http_types`` and ``wasi_io_streams``."""
    if not (wit / "provider.wit").is_file():
        raise BuildError(f"no Terrarium WIT at {wit}; set TERRARIUM_WIT to the repository's wit/ directory")
    if not (wit / "behaviour.wit").is_file():
        return ["-d", str(wit), "-w", PLAIN_WORLD]
    wasi = wasi_wit_dir()
    if not (wasi / "http.wit").is_file():
        raise BuildError(f"no http.wit in {wasi}; TERRARIUM_WASI_WIT must name a directory of WASI 0.2 WIT packages")
    ours = package_version(wit / "provider.wit", "terrarium:provider")
    http = package_version(wasi / "http.wit", "wasi:http")
    io = package_version(wasi / "io.wit", "wasi:io")
    deps = into / "deps"
    deps.mkdir(parents=True)
    (deps / "terrarium").symlink_to(wit.resolve(), target_is_directory=True)
    for package in sorted(wasi.glob("*.wit")):
        (deps / package.name).symlink_to(package.resolve())
    (into / "world.wit").write_text(
        f"package {GUEST_WORLD.split('/')[0]};\n\n"
        f"world {GUEST_WORLD.split('/')[1]} {{\n"
        f"    include terrarium:provider/{WORLD}@{ours};\n"
        f"    import wasi:http/outgoing-handler@{http};\n"
        "}\n"
    )
    names = {
        f"terrarium:provider/types@{ours}": "types",
        f"terrarium:provider/streams@{ours}": "streams",
        f"wasi:http/types@{http}": "wasi_http_types",
        f"wasi:io/streams@{io}": "wasi_io_streams",
    }
    renames = [a for interface, name in names.items() for a in ("--import-interface-name", f"{interface}={name}")]
    return ["-d", str(into), "-w", GUEST_WORLD, *renames]


def componentize_py() -> str:
    beside = Path(sys.executable).parent / "componentize-py"
    found = str(beside) if beside.exists() else shutil.which("componentize-py")
    if not found:
        raise BuildError(
            f"componentize-py not found beside {sys.executable} nor on PATH; install it: "
            f"{sys.executable} -m pip install componentize-py==0.25.1"
        )
    return found


def packages() -> tuple[list[str], dict[str, str]]:
    """componentize-py's ``-p`` arguments and environment for the packages of the Python
    running this build. componentize-py looks for ``site-packages`` itself, but in
    ``$VIRTUAL_ENV`` or else in whatever ``python3`` is first on ``PATH``: a build run as
    ``.venv/bin/python -m terrarium.build`` (no activated venv) got the system's packages,
    not the ones the author installed. So name the running interpreter's own."""
    env = dict(os.environ)
    if sys.prefix != sys.base_prefix:
        env["VIRTUAL_ENV"] = sys.prefix
    found = [*site.getsitepackages(), *([site.getusersitepackages()] if site.ENABLE_USER_SITE else [])]
    paths = [p for p in dict.fromkeys(found) if Path(p).is_dir()]
    return [a for p in paths for a in ("-p", p)], env


#: The module componentize-py builds: the provider module's exports, plus what the SDK exports
#: on its own (a provider module names only ``Provider`` and ``Behaviour``).
APP_MODULE = "terrarium_component"


def write_app(module: Path, into: Path) -> Path:
    """Writes the app module for the provider module ``module`` into the directory ``into``."""
    into.mkdir(parents=True)
    app = into / f"{APP_MODULE}.py"
    app.write_text(
        f"from {module.stem} import Provider, Behaviour  # noqa: F401\n"
        "from terrarium._guest import exported_computed_blocks, exported_replacement\n\n"
        "Replacement = exported_replacement()\n"
        "ComputedBlocks = exported_computed_blocks()\n"
    )
    return app


def build(module: Path, output: Path) -> None:
    if not module.is_file() or module.suffix != ".py":
        raise BuildError(f"{module} is not a Python file")
    with tempfile.TemporaryDirectory(prefix="terrarium-wit-") as scratch:
        world = componentize_args(wit_dir(), Path(scratch) / "wit")
        site_args, env = packages()
        app = write_app(module, Path(scratch) / "app")
        # The module's directory first and the SDK second: componentize-py names them /0/ and
        # /1/ in tracebacks (see what_failed); the app module is found last.
        command = [
            componentize_py(), *world, "componentize", app.stem,
            "-p", str(module.resolve().parent), "-p", str(SDK_DIR), *site_args, "-p", str(app.parent),
            "-o", str(output),
        ]  # fmt: skip
        output.parent.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    if done.returncode != 0:
        if os.environ.get("TERRARIUM_BUILD_VERBOSE"):
            raise BuildError(f"componentize-py failed for {module}:\n{done.stdout}")
        raise BuildError(
            f"{what_failed(module, done.stdout)}\n"
            "(TERRARIUM_BUILD_VERBOSE=1 shows componentize-py's whole output)"
        )


def what_failed(module: Path, output: str) -> str:
    """The line of componentize-py's failure ``output`` that says what is wrong with
    ``module``: the Python error, where in the author's file it was raised, and for a module
    that exports nothing, the line to add. The rest (componentize-py's own Python traceback
    and its Rust backtrace) says nothing the author can act on."""
    caused = output.split("Caused by:", 1)
    if len(caused) < 2:
        return f"componentize-py failed for {module}:\n{output}"
    error = " ".join(line.strip() for line in caused[1].split("Stack backtrace:", 1)[0].splitlines() if line.strip())
    missing = re.search(r"(module '\w+' has no attribute|cannot import name) '(Provider|Behaviour)'", error)
    if missing:
        classes = re.findall(r"^class (\w+)\((?:terrarium\.)?Provider\)", module.read_text(), re.M)
        provider = classes[0] if classes else "YourProvider"
        return (
            f"{module} exports no provider: add this line at its end: "
            f"`Provider, Behaviour = terrarium.export({provider})`"
        )
    # componentize-py runs the module from /0/ (its directory) and the SDK from /1/.
    frames = re.findall(r'File "/0/([^"]+)", line (\d+)', output)
    if frames:
        name, line = frames[-1]
        error = re.sub(r" \(%s, line \d+\)$" % re.escape(name), "", error)
        return f"{module.parent / name}, line {line}: {error}"
    return f"{module}: {error}"


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m terrarium.build", description=__doc__)
    parser.add_argument("module", type=Path, help="the provider module (it ends with `Provider, Behaviour = terrarium.export(...)`)")
    parser.add_argument("-o", "--output", type=Path, required=True, help="the component to write (.wasm)")
    args = parser.parse_args()
    try:
        build(args.module, args.output)
    except BuildError as e:
        sys.exit(f"terrarium.build: {e}")


if __name__ == "__main__":
    main()
