"""Fixtures: the Pulumi plugins under test, installed as `terrarium install --pulumi` lays them
out, and started as Pulumi's engine starts a plugin.

Environment (set by the cargo test that runs this suite, tests/tests/e2e/pulumi.rs):
TERRARIUM_BIN, the terrarium executable; TERRARIUM_COMPONENTS_DIR, the built components.
"""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from engine import Engine, Plugin

HERE = Path(__file__).resolve().parent
VERSION = "1.2.3"


def _terrarium():
    return os.environ.get("TERRARIUM_BIN") or pytest.fail("TERRARIUM_BIN is not set; run through cargo test")


def _component(name):
    directory = os.environ.get("TERRARIUM_COMPONENTS_DIR") or pytest.fail("TERRARIUM_COMPONENTS_DIR is not set")
    return str(Path(directory) / f"{name}.wasm")


@pytest.fixture(scope="session")
def plugin_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("plugins")


@pytest.fixture(scope="session")
def files_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("files").resolve()


def install(plugin_dir, component, name, *grants):
    subprocess.run(
        [_terrarium(), "install", _component(component), "--pulumi", name, "--version", VERSION,
         "--plugin-dir", str(plugin_dir), *grants],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    return plugin_dir / f"resource-{name}-v{VERSION}" / f"pulumi-resource-{name}"


@pytest.fixture(scope="session")
def installed(plugin_dir, files_dir):
    return {
        "random": install(plugin_dir, "random_provider", "random"),
        "files": install(plugin_dir, "files_provider", "files", "--allow-dir", f"{files_dir}:rw"),
        "slow": install(plugin_dir, "slow_provider", "slow"),
        "hostile": install(plugin_dir, "hostile_provider", "hostile"),
    }


@pytest.fixture(scope="session")
def engine():
    e = Engine()
    yield e
    e.stop()


def start(argv, engine, tmp_path, name):
    return Plugin(argv, engine, stderr_path=tmp_path / f"{name}.stderr")


@pytest.fixture(scope="session")
def random_plugin(installed, engine, tmp_path_factory):
    p = start([str(installed["random"])], engine, tmp_path_factory.mktemp("random"), "random")
    yield p
    p.stop()


@pytest.fixture(scope="session")
def files_plugin(installed, engine, tmp_path_factory):
    p = start([str(installed["files"])], engine, tmp_path_factory.mktemp("files-log"), "files")
    yield p
    p.stop()


@pytest.fixture(scope="session")
def reference_plugin(engine, tmp_path_factory):
    p = start([sys.executable, str(HERE / "reference_provider.py")], engine, tmp_path_factory.mktemp("ref"), "reference")
    yield p
    p.stop()


@pytest.fixture(params=["terrarium", "reference"])
def any_plugin(request):
    """The same assertions against Terrarium's plugin and the reference Python plugin."""
    fixture = "random_plugin" if request.param == "terrarium" else "reference_plugin"
    return request.param, request.getfixturevalue(fixture)
