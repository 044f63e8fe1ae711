"""Builds a provider module into a component: ``python -m terrarium.build provider.py -o
pets.wasm``. Runs componentize-py (from PyPI) against Terrarium's WIT world, with the
module's directory and this SDK on the Python path."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

SDK_DIR = Path(__file__).resolve().parent.parent
#: The world of a provider whose plans the host makes from its declared behaviour.
WORLD = "terrarium-provider-with-behaviour"
#: The world of a WIT without the behaviour interface (the guest answers plans itself).
PLAIN_WORLD = "terrarium-provider"


def wit_dir() -> Path:
    """Terrarium's WIT: ``TERRARIUM_WIT``, else the checkout this SDK is part of."""
    found = os.environ.get("TERRARIUM_WIT") or SDK_DIR.parent.parent / "wit"
    return Path(found)


def componentize_py() -> str:
    beside = Path(sys.executable).parent / "componentize-py"
    found = str(beside) if beside.exists() else shutil.which("componentize-py")
    if not found:
        sys.exit("terrarium.build: componentize-py not found; install it: pip install componentize-py==0.25.1")
    return found


def build(module: Path, output: Path) -> None:
    wit = wit_dir()
    if not (wit / "provider.wit").is_file():
        sys.exit(f"terrarium.build: no Terrarium WIT at {wit}; set TERRARIUM_WIT to the repository's wit/ directory")
    if not module.is_file() or module.suffix != ".py":
        sys.exit(f"terrarium.build: {module} is not a Python file")
    world = WORLD if (wit / "behaviour.wit").is_file() else PLAIN_WORLD
    command = [
        componentize_py(), "-d", str(wit), "-w", world, "componentize", module.stem,
        "-p", str(module.resolve().parent), "-p", str(SDK_DIR), "-o", str(output),
    ]  # fmt: skip
    output.parent.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0:
        sys.exit(f"terrarium.build: componentize-py failed for {module}:\n{done.stdout}")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m terrarium.build", description=__doc__)
    parser.add_argument("module", type=Path, help="the provider module (it ends with `Provider = terrarium.export(...)`)")
    parser.add_argument("-o", "--output", type=Path, required=True, help="the component to write (.wasm)")
    args = parser.parse_args()
    build(args.module, args.output)


if __name__ == "__main__":
    main()
