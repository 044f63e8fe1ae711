import subprocess
import sys
from pathlib import Path

import pytest

WIT = Path(__file__).resolve().parents[3] / "wit"


@pytest.fixture(scope="session")
def bindings(tmp_path_factory):
    """componentize-py's Python bindings of Terrarium's WIT, importable natively (``wit_world``),
    so that the SDK's WIT glue can be tested without building a component."""
    out = tmp_path_factory.mktemp("bindings")
    world = "terrarium-provider-with-behaviour" if (WIT / "behaviour.wit").is_file() else "terrarium-provider"
    tool = Path(sys.executable).parent / "componentize-py"
    subprocess.run([str(tool), "-d", str(WIT), "-w", world, "bindings", str(out)], check=True)
    sys.path.insert(0, str(out))
    return world
