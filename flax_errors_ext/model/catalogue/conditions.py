"""Which package versions an example holds for: its ``:holds for:`` line.

PEP 440 clauses; one without a package continues the one before it
(``flax >= 0.10, < 0.12.9, jax >= 0.6``). ``platform`` is JAX's default backend.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

FIELD = ":holds for:"
PLATFORM = "platform"
_CLAUSE = re.compile(
    r"^\s*(?:(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*)?"
    r"(?P<op>===|==|!=|~=|<=|>=|<|>)\s*(?P<version>[^\s,]+)\s*$"
)


class ConditionError(ValueError):
    """A ``:holds for:`` value that cannot be read; the message says why."""


@dataclasses.dataclass(frozen=True)
class Condition:
    """The versions of one package an example holds for."""

    package: str
    """The canonical distribution name (``flax``, ``jaxlib``), ``python`` or ``platform``."""
    specifier: str
    """PEP 440 clauses, as written: ``<0.12.9`` or ``>=0.10,<0.12.9``."""

    def admits(self, version: str | None) -> bool:
        """Whether ``version`` of the package is one the example holds for."""
        if version is None:
            return False
        if self.package == PLATFORM:
            return all(
                (clause[2:] == version) == clause.startswith("==")
                for clause in self.specifier.split(",")
            )
        try:
            return Version(version) in SpecifierSet(self.specifier, prereleases=True)
        except InvalidVersion:
            return False

    def __str__(self) -> str:
        # ``>= 0.10, < 0.12.9``: a space after each clause's operator.
        clauses = (re.sub(r"^([<>=!~]+)", r"\1 ", part) for part in self.specifier.split(","))
        return f"{self.package} {', '.join(clauses)}"


def parse_conditions(text: str) -> tuple[Condition, ...]:
    """Read a ``:holds for:`` value (without the field name); ConditionError if it cannot be."""
    clauses: dict[str, list[str]] = {}
    current = ""
    for raw in text.split(","):
        if (match := _CLAUSE.match(raw)) is None:
            raise ConditionError(
                f"cannot read {raw.strip()!r}: write a package, an operator and a version, "
                "as in 'flax < 0.12.9'"
            )
        if match["name"]:
            current = canonicalize_name(match["name"])
        if not current:
            raise ConditionError(f"{raw.strip()!r} names no package")
        clauses.setdefault(current, []).append(match["op"] + match["version"])
    conditions = []
    for package, specifiers in clauses.items():
        specifier = ",".join(specifiers)
        if package == PLATFORM:
            if any(not clause.startswith(("==", "!=")) for clause in specifiers):
                raise ConditionError("platform takes == or !=, as in 'platform == tpu'")
            conditions.append(Condition(package, specifier.lower()))
            continue
        try:
            SpecifierSet(specifier)
        except InvalidSpecifier as error:
            raise ConditionError(f"{package}: {error}") from None
        conditions.append(Condition(package, specifier))
    return tuple(conditions)


def holds(conditions: Iterable[Condition], versions: Mapping[str, str]) -> bool:
    """Whether every condition admits the version ``versions`` has of its package."""
    canonical = _canonical(versions)
    return all(c.admits(canonical.get(c.package)) for c in conditions)


def describe(conditions: Iterable[Condition]) -> str:
    """``flax < 0.12.9`` or ``flax >= 0.12.9 and jax >= 0.12``: for prose."""
    return " and ".join(str(c) for c in conditions)


def versions_named(conditions: Iterable[Condition], versions: Mapping[str, str]) -> str:
    """What ``versions`` has of the packages the conditions name: ``flax 0.12.12``."""
    canonical = _canonical(versions)
    packages = dict.fromkeys(c.package for c in conditions)
    return ", ".join(f"{p} {canonical[p]}" if canonical.get(p) else f"no {p}" for p in packages)


def _canonical(versions: Mapping[str, str]) -> dict[str, str]:
    return {canonicalize_name(name): version for name, version in versions.items()}
