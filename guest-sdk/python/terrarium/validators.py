"""Declarative validators for :func:`terrarium.attribute` (``validators=[length(1, 32)]``).

They are data, not code: the schema carries them to the host, which runs them for every
language the same way (docs/planning.md). For a check they cannot express, override
``validate`` on the resource or data source and raise :class:`terrarium.TerraformError`.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal


@dataclass(frozen=True)
class Validator:
    kind: str
    args: tuple = ()


def length(min: int = 0, max: int | None = None) -> Validator:
    """A string's length in characters is within [min, max]."""
    return Validator("length", (min, max))


def pattern(regex: str, message: str = "") -> Validator:
    """A string matches ``regex`` (RE2 syntax)."""
    return Validator("pattern", (regex, message))


def one_of(*values: str) -> Validator:
    """A string is one of ``values``."""
    return Validator("one-of", tuple(values))


def between(min: int | float | Decimal | None = None, max: int | float | Decimal | None = None) -> Validator:
    """A number is within [min, max] (either may be None: unbounded)."""
    return Validator("range", (min, max))


def size(min: int = 0, max: int | None = None) -> Validator:
    """A list, set or map has between min and max elements."""
    return Validator("size", (min, max))


def conflicts_with(*attributes: str) -> Validator:
    """The attribute may not be set together with any of ``attributes`` (siblings)."""
    return Validator("conflicts-with", tuple(attributes))


def also_requires(*attributes: str) -> Validator:
    """When the attribute is set, ``attributes`` must be set too."""
    return Validator("also-requires", tuple(attributes))


def exactly_one_of(*attributes: str) -> Validator:
    """Exactly one of this attribute and ``attributes`` is set."""
    return Validator("exactly-one-of", tuple(attributes))


def at_least_one_of(*attributes: str) -> Validator:
    """At least one of this attribute and ``attributes`` is set."""
    return Validator("at-least-one-of", tuple(attributes))
