"""Logging into the host's log, which Terraform shows with ``TF_LOG_PROVIDER``:
``log.info("created a pet", id=pet.id)``. Field values are written as JSON."""

from __future__ import annotations

import json
from typing import Any


def _log(level: str, message: str, fields: dict[str, Any]) -> None:
    from wit_world.imports import log as wit_log

    lvl = getattr(wit_log.Level, level)
    if not wit_log.enabled(lvl):
        return
    pairs = [wit_log.Field(k, json.dumps(v, default=str)) for k, v in fields.items()]
    wit_log.log(lvl, message, pairs)


def trace(message: str, **fields: Any) -> None:
    _log("TRACE", message, fields)


def debug(message: str, **fields: Any) -> None:
    _log("DEBUG", message, fields)


def info(message: str, **fields: Any) -> None:
    _log("INFO", message, fields)


def warn(message: str, **fields: Any) -> None:
    _log("WARN", message, fields)


def error(message: str, **fields: Any) -> None:
    _log("ERROR", message, fields)
