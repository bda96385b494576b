"""What a patched ``flax/errors.py`` looks like beside Flax's: the figures the docs quote.

Pure: both texts in, one record out; the pins of a stack's constraints file, read.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable

WIDTH = 80
"""Flax's line length (``[tool.pyink]`` in its pyproject.toml)."""
_PIN = re.compile(r"^([A-Za-z0-9_.-]+)==([^\s;#]+)")


@dataclasses.dataclass(frozen=True)
class Shape:
    """The size of one version of the file."""

    lines: int
    prompts: int
    """Lines that start a doctest statement (``>>>``)."""
    longest: int
    over_width: int
    """Lines longer than Flax's 80 columns."""

    @classmethod
    def of(cls, text: str) -> Shape:
        """The shape of ``text``."""
        lines = text.splitlines()
        return cls(
            lines=len(lines),
            prompts=sum(line.lstrip().startswith(">>>") for line in lines),
            longest=max((len(line) for line in lines), default=0),
            over_width=sum(len(line) > WIDTH for line in lines),
        )


def report(before: str, after: str) -> str:
    """One line per figure, Flax's first: ``lines: 994 -> 2890``."""
    old, new = Shape.of(before), Shape.of(after)
    return "\n".join(
        f"{field.name.replace('_', ' ')}: {getattr(old, field.name)} -> {getattr(new, field.name)}"
        for field in dataclasses.fields(Shape)
    )


def pins(constraints: Iterable[str], names: Iterable[str]) -> list[str]:
    """``name==version`` for each of ``names`` pinned in the constraints file's lines.

    Raises:
        ValueError: naming the packages that the file does not pin.
    """
    found: dict[str, str] = {}
    for line in constraints:
        match = _PIN.match(line.strip())
        if match:
            found[_canonical(match.group(1))] = f"{match.group(1)}=={match.group(2)}"
    wanted = list(names)
    missing = [name for name in wanted if _canonical(name) not in found]
    if missing:
        raise ValueError(f"the constraints do not pin {', '.join(missing)}")
    return [found[_canonical(name)] for name in wanted]


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()
