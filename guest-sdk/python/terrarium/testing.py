"""Tests for providers, without terraform: :class:`Harness` drives a built component through
``terrarium harness`` (docs/harness.md), so a test sees the same planner, checks and sandbox
as ``terraform apply`` does. Runs natively (in pytest), not in the component.

    h = Harness("pets.wasm", allow_dirs=[f"{tmp}:rw"])
    h.configure({"directory": str(tmp)})
    pet = h.create("pets_pet", {"name": "rex"})
    assert pet.state["legs"] == 4

States are plain JSON data (dicts, lists); in plans, unknown values are :data:`UNKNOWN`.
A step whose provider reports an error raises :class:`Failure` with the diagnostics.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from typing import Any

from .values import UNKNOWN

__all__ = ["UNKNOWN", "Diagnostic", "Failure", "Harness", "Outcome", "Plan", "FunctionFailed"]


@dataclass
class Diagnostic:
    severity: str
    summary: str
    detail: str
    #: The attribute path as Terraform prints it (``toys[0].kind``); "" for the whole object.
    attribute: str

    def __str__(self) -> str:
        at = f" (at {self.attribute})" if self.attribute else ""
        return f"{self.severity}: {self.summary}{at}: {self.detail}"


class Failure(Exception):
    """A step that failed: which step, and the error diagnostics."""

    def __init__(self, step: str, diagnostics: list[Diagnostic]):
        self.step = step
        self.diagnostics = diagnostics
        super().__init__(f"{step} failed:\n" + "\n".join(f"  {d}" for d in diagnostics))

    def mentions(self, text: str) -> bool:
        return any(text in d.summary or text in d.detail for d in self.diagnostics)


class FunctionFailed(Exception):
    """A provider function's error: its text and the argument at fault."""

    def __init__(self, text: str, argument: int | None):
        super().__init__(text)
        self.text = text
        self.argument = argument


class ProtocolError(Exception):
    """A request the harness could not make (an unknown type, a value that does not fit)."""


@dataclass
class Plan:
    """A planned change: ``planned`` holds :data:`UNKNOWN` where the value is not known yet."""

    planned: Any
    requires_replace: list[str]
    warnings: list[Diagnostic]
    raw: dict = field(repr=False)


@dataclass
class Outcome:
    """What a step produced: the state after it (None after destroy, or when read found
    nothing), and for steps that plan, the plan."""

    state: Any
    plan: Plan | None = None
    warnings: list[Diagnostic] = field(default_factory=list)
    private: str = ""

    @property
    def replaced(self) -> bool:
        return bool(self.plan and self.plan.requires_replace)


def _diagnostics(answer: dict) -> list[Diagnostic]:
    return [Diagnostic(**d) for d in answer.get("diagnostics", [])]


def _split(step: str, answer: dict) -> list[Diagnostic]:
    diags = _diagnostics(answer)
    errors = [d for d in diags if d.severity == "error"]
    if errors:
        raise Failure(step, errors)
    return [d for d in diags if d.severity == "warning"]


def with_unknowns(value: Any, mask: Any) -> Any:
    """``value`` with :data:`UNKNOWN` wherever the harness's mask says so."""
    if mask is True:
        return UNKNOWN
    if isinstance(mask, dict) and isinstance(value, dict):
        return {k: with_unknowns(v, mask.get(k, False)) for k, v in value.items()}
    if isinstance(mask, list) and isinstance(value, list):
        return [with_unknowns(v, m) for v, m in zip(value, mask)]
    return value


def terrarium_binary() -> str:
    """``TERRARIUM_BIN``, else ``terrarium`` on the PATH."""
    found = os.environ.get("TERRARIUM_BIN") or shutil.which("terrarium")
    if not found:
        raise FileNotFoundError("no terrarium binary: put it on the PATH or set TERRARIUM_BIN")
    return found


class Harness:
    """One provider component, driven as terraform would (see the module documentation).
    ``allow_dirs``, ``allow_http`` and ``allow_env`` are its grants, as ``terrarium install``
    takes them. Use it as a context manager, or call :meth:`close`."""

    def __init__(
        self,
        component: str | os.PathLike,
        *,
        allow_dirs: list[str] = (),
        allow_http: list[str] = (),
        allow_env: list[str] = (),
    ):
        args = [terrarium_binary(), "harness", os.fspath(component)]
        args += [a for d in allow_dirs for a in ("--allow-dir", d)]
        args += [a for h in allow_http for a in ("--allow-http", h)]
        args += [a for e in allow_env for a in ("--allow-env", e)]
        self._process = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def __enter__(self) -> Harness:
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()

    def close(self) -> None:
        if self._process.poll() is None:
            self._process.stdin.close()
            self._process.wait()

    def request(self, op: str, **fields: Any) -> dict:
        """One raw protocol request (docs/harness.md) and its answer."""
        line = json.dumps({"op": op, **fields})
        self._process.stdin.write(line + "\n")
        self._process.stdin.flush()
        answer = self._process.stdout.readline()
        if not answer:
            raise ProtocolError(f"terrarium harness ended (exit status {self._process.wait()}) before answering {line}")
        parsed = json.loads(answer)
        if "error" in parsed:
            raise ProtocolError(parsed["error"])
        return parsed

    # ---- single RPCs ----

    def schema(self) -> dict:
        return self.request("schema")

    def configure(self, config: dict | None = None) -> list[Diagnostic]:
        return _split("configure", self.request("configure", config=config or {}))

    def validate(self, type_name: str, config: dict, kind: str = "resource") -> list[Diagnostic]:
        return _split("validate", self.request("validate", kind=kind, type=type_name, config=config))

    def plan(self, type_name: str, prior: Any, config: Any, private: str = "") -> Plan:
        answer = self.request("plan", type=type_name, prior=prior, config=config, prior_private=private)
        warnings = _split("plan", answer)
        planned = with_unknowns(answer["planned"], answer["planned_unknown"])
        return Plan(planned, answer["requires_replace"], warnings, answer)

    def apply(self, type_name: str, prior: Any, plan: Plan, config: Any) -> Outcome:
        raw = plan.raw
        answer = self.request(
            "apply",
            type=type_name,
            prior=prior,
            planned=raw["planned"],
            planned_unknown=raw["planned_unknown"],
            planned_private=raw["planned_private"],
            planned_identity=raw["planned_identity"],
            config=config,
        )
        warnings = _split("apply", answer)
        return Outcome(answer["state"], plan, plan.warnings + warnings, answer["private"])

    def read(self, type_name: str, state: Any, private: str = "") -> Outcome:
        answer = self.request("read", type=type_name, state=state, private=private)
        return Outcome(answer["state"], None, _split("read", answer), answer["private"])

    def read_data(self, type_name: str, config: dict) -> Outcome:
        self.validate(type_name, config, kind="data_source")
        answer = self.request("read_data", type=type_name, config=config)
        return Outcome(answer["state"], None, _split("read", answer))

    def call(self, function: str, *arguments: Any) -> Any:
        """Calls a provider function; raises :class:`FunctionFailed` with its error."""
        answer = self.request("call", function=function, arguments=list(arguments))
        if answer.get("function_error"):
            e = answer["function_error"]
            raise FunctionFailed(e["text"], e["argument"])
        return answer["result"]

    # ---- lifecycle steps, as terraform makes them ----

    def create(self, type_name: str, config: dict) -> Outcome:
        """validate, plan and apply a new object."""
        self.validate(type_name, config)
        return self.apply(type_name, None, self.plan(type_name, None, config), config)

    def update(self, type_name: str, state: Any, config: dict) -> Outcome:
        """validate, plan and apply a change; a plan that requires replacement destroys the
        object and creates it anew, as terraform does."""
        self.validate(type_name, config)
        plan = self.plan(type_name, state, config)
        if not plan.requires_replace:
            return self.apply(type_name, state, plan, config)
        self.destroy(type_name, state)
        created = self.create(type_name, config)
        return Outcome(created.state, plan, plan.warnings + created.warnings, created.private)

    def destroy(self, type_name: str, state: Any) -> Outcome:
        plan = self.plan(type_name, state, None)
        return self.apply(type_name, state, plan, None)

    def import_(self, type_name: str, id: str) -> Outcome:
        """Imports ``id`` and reads it, as ``terraform import`` does."""
        answer = self.request("import", type=type_name, id=id)
        warnings = _split("import", answer)
        imported = answer["imported"][0]
        read = self.read(type_name, imported["state"], imported["private"])
        if read.state is None:
            raise Failure("import", [Diagnostic("error", "Cannot import non-existent remote object", f"{id} was imported but read found nothing", "")])
        return Outcome(read.state, None, warnings + read.warnings, read.private)
