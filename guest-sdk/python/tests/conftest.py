import subprocess
import sys
from pathlib import Path

import pytest

WIT = Path(__file__).resolve().parents[3] / "wit"


@pytest.fixture(scope="session")
def bindings(tmp_path_factory):
    """componentize-py's Python bindings of the world ``terrarium.build`` builds against,
    importable natively (``wit_world``), so that the SDK's WIT glue can be tested without
    building a component."""
    from terrarium.build import componentize_args

    out = tmp_path_factory.mktemp("bindings")
    world = componentize_args(WIT, tmp_path_factory.mktemp("wit") / "wit")
    tool = Path(sys.executable).parent / "componentize-py"
    subprocess.run([str(tool), *world, "bindings", str(out)], check=True)
    sys.path.insert(0, str(out))
    return world[world.index("-w") + 1]
