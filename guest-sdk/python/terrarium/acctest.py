"""Acceptance tests with a real terraform: a :class:`TestCase` installs the built component with
``terrarium install`` into a filesystem mirror of its own, applies each :class:`Step`'s
configuration and checks the state, then destroys, as the Rust ``terrarium-acctest`` crate and
the Go SDK's ``acctest`` package do. Runs natively, in pytest::

    from terrarium.acctest import Check, Provider, Step, TestCase

    def test_a_pet_lives(tmp_path):
        TestCase(
            Provider("target/pets.wasm", "example/pets"),
            [Step('resource "pets_pet" "rex" { name = "rex" }',
                  checks=[Check.attr("pets_pet.rex", "legs", 4)])],
        ).run(tmp_path)

terraform is ``TERRAFORM``, else ``terraform`` on the PATH; terrarium is ``TERRARIUM_BIN``, else
``terrarium`` on the PATH (:func:`terrarium.testing.terrarium_binary`).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

from .testing import terrarium_binary

__all__ = ["AcceptanceFailure", "Check", "Provider", "Step", "TestCase", "terraform_binary"]


class AcceptanceFailure(AssertionError):
    """A step that did not do what the test expects; the message carries terraform's output."""


def terraform_binary() -> str:
    """``TERRAFORM``, else ``terraform`` on the PATH."""
    found = os.environ.get("TERRAFORM") or shutil.which("terraform")
    if not found:
        raise FileNotFoundError("no terraform binary: put it on the PATH or set TERRAFORM")
    return found


@dataclass
class Provider:
    """The component under test and the address configurations give it."""

    component: str | Path
    """The built ``.wasm`` file."""
    source: str
    """The provider's source address (``[HOST/]NAMESPACE/NAME``)."""
    version: str = "0.1.0"
    grants: Sequence[str] = ()
    """``terrarium install`` arguments (``--allow-dir``, ``DIR:rw``, ...)."""

    @property
    def name(self) -> str:
        """The provider's local name: the last part of its source."""
        return self.source.rsplit("/", 1)[-1]


StateCheck = Callable[[dict], None]


class Check:
    """Checks of the state after a step: the values of ``terraform show -json``. Each raises
    :class:`AcceptanceFailure` with what it found."""

    @staticmethod
    def attr(address: str, path: str, expected: Any) -> StateCheck:
        """The attribute at ``path`` (``name``, ``toys.0.kind``) of the resource at ``address``
        (``pets_pet.rex``, ``data.pets_pet.rex``) is ``expected`` (compared as JSON)."""

        def check(state: dict) -> None:
            values = _resource(state, address)
            found, actual = _lookup(values, path)
            if not found:
                raise AcceptanceFailure(f"{address} has no {path}")
            if _as_json(actual) != _as_json(expected):
                raise AcceptanceFailure(
                    f"{address}.{path} is {json.dumps(actual)}, expected {json.dumps(expected)}"
                )

        return check

    @staticmethod
    def attr_set(address: str, path: str) -> StateCheck:
        """The attribute at ``path`` of the resource at ``address`` is set (not null)."""

        def check(state: dict) -> None:
            found, actual = _lookup(_resource(state, address), path)
            if not found or actual is None:
                raise AcceptanceFailure(f"{address}.{path} is not set")

        return check

    @staticmethod
    def output(name: str, expected: Any) -> StateCheck:
        """The root module's output ``name`` is ``expected`` (compared as JSON)."""

        def check(state: dict) -> None:
            outputs = state.get("outputs") or {}
            if name not in outputs:
                raise AcceptanceFailure(f"no output {name}")
            actual = outputs[name].get("value")
            if _as_json(actual) != _as_json(expected):
                raise AcceptanceFailure(
                    f"output {name} is {json.dumps(actual)}, expected {json.dumps(expected)}"
                )

        return check


@dataclass
class Step:
    """One configuration, applied; its checks run on the state after it. With ``expect_error``
    the apply must fail with that text in its errors (whitespace compared loosely, as terraform
    wraps lines) and the checks are not run."""

    config: str
    checks: Sequence[StateCheck] = ()
    expect_error: Optional[str] = None


@dataclass
class TestCase:
    """A provider and the steps applied with it, in order, then destroyed."""

    __test__ = False  # not a pytest test class, though its name starts with "Test"

    provider: Provider
    steps: Sequence[Step] = field(default_factory=list)

    def run(self, directory: str | Path) -> None:
        """Runs every step in ``directory`` (pytest's ``tmp_path``), then destroys. The first
        failure raises :class:`AcceptanceFailure` with the step's number and terraform's output.
        After each step that applies, a plan must find nothing left to do."""
        root = Path(directory)
        workspace = _Workspace.install(self.provider, root)
        header = (
            "terraform {\n  required_providers {\n"
            f"    {self.provider.name} = {{\n"
            f"      source  = {json.dumps(self.provider.source)}\n"
            f"      version = {json.dumps(self.provider.version)}\n"
            "    }\n  }\n}\n"
        )
        last_applied = header
        for n, step in enumerate(self.steps, start=1):
            config = f"{header}\n{step.config}\n"
            workspace.write(config)
            if n == 1:
                workspace.must(n, "init failed", "init", "-input=false")
            ok, out = workspace.run("apply", "-input=false", "-auto-approve")
            if step.expect_error is not None:
                if ok:
                    raise AcceptanceFailure(f"step {n}: expected an error, the apply succeeded\n{out}")
                if " ".join(step.expect_error.split()) not in " ".join(out.split()):
                    raise AcceptanceFailure(
                        f"step {n}: expected {step.expect_error!r} in the errors\n{out}"
                    )
                continue
            if not ok:
                raise AcceptanceFailure(f"step {n}: apply failed\n{out}")
            last_applied = config
            state = workspace.state()
            for check in step.checks:
                try:
                    check(state)
                except AcceptanceFailure as failure:
                    shown = json.dumps(state, indent=2)
                    raise AcceptanceFailure(f"step {n}: {failure}\nstate:\n{shown}") from None
            workspace.must(
                n, "the plan after apply is not empty (or failed)",
                "plan", "-input=false", "-detailed-exitcode",
            )
        workspace.write(last_applied)
        ok, out = workspace.run("destroy", "-input=false", "-auto-approve")
        if not ok:
            raise AcceptanceFailure(f"destroy failed\n{out}")


class _Workspace:
    """A terraform working directory with its own CLI config and mirror."""

    def __init__(self, work: Path, terraform: str, env: dict):
        self.work, self.terraform, self.env = work, terraform, env

    @staticmethod
    def install(provider: Provider, root: Path) -> "_Workspace":
        terraform = terraform_binary()
        component = Path(provider.component).resolve()
        mirror = root / "mirror"
        installed = subprocess.run(
            [terrarium_binary(), "install", str(component), "--source", provider.source,
             "--version", provider.version, "--mirror", str(mirror), *provider.grants],
            capture_output=True, text=True,
        )
        if installed.returncode != 0:
            raise AcceptanceFailure(
                f"terrarium install {component} failed\n{installed.stdout}{installed.stderr}"
            )
        cli_config = root / "terraform.tfrc"
        cli_config.write_text(
            "disable_checkpoint = true\n\nprovider_installation {\n  filesystem_mirror {\n"
            f"    path    = {json.dumps(str(mirror))}\n"
            f"    include = [{json.dumps(provider.source)}]\n  }}\n}}\n"
        )
        work = root / "work"
        work.mkdir()
        env = dict(os.environ)
        env.update(
            TF_CLI_CONFIG_FILE=str(cli_config), TF_IN_AUTOMATION="1", CHECKPOINT_DISABLE="1",
            TF_PLUGIN_CACHE_DIR="", TF_DATA_DIR=str(work / ".terraform"),
        )
        return _Workspace(work, terraform, env)

    def write(self, config: str) -> None:
        (self.work / "main.tf").write_text(config)

    def run(self, *args: str) -> tuple[bool, str]:
        """terraform with ``args`` (and ``-no-color``): whether it succeeded, and its output."""
        done = subprocess.run(
            [self.terraform, args[0], "-no-color", *args[1:]],
            cwd=self.work, env=self.env, capture_output=True, text=True,
        )
        return done.returncode == 0, done.stdout + done.stderr

    def must(self, step: int, what: str, *args: str) -> None:
        ok, out = self.run(*args)
        if not ok:
            raise AcceptanceFailure(f"step {step}: {what}\n{out}")

    def state(self) -> dict:
        """``terraform show -json``'s values."""
        done = subprocess.run(
            [self.terraform, "show", "-json"], cwd=self.work, env=self.env,
            capture_output=True, text=True,
        )
        if done.returncode != 0:
            raise AcceptanceFailure(f"terraform show -json failed\n{done.stderr}")
        return json.loads(done.stdout).get("values") or {}


def _resource(state: dict, address: str) -> dict:
    for resource in (state.get("root_module") or {}).get("resources") or []:
        if resource.get("address") == address:
            return resource.get("values") or {}
    raise AcceptanceFailure(f"no {address} in the state")


def _lookup(values: Any, path: str) -> tuple[bool, Any]:
    """Follows a path of attribute names and list indexes (``toys.0.kind``)."""
    at = values
    for part in path.split("."):
        if isinstance(at, dict) and part in at:
            at = at[part]
        elif isinstance(at, list) and part.isdigit() and int(part) < len(at):
            at = at[int(part)]
        else:
            return False, None
    return True, at


def _as_json(value: Any) -> str:
    """``value`` as JSON text with every number written as a float, so that 4 and 4.0 compare
    equal (and ``true`` and 1 do not)."""
    return json.dumps(json.loads(json.dumps(value), parse_int=float), sort_keys=True)
