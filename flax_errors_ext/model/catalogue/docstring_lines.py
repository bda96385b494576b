"""A docstring's lines, each with its line in the source file, and the cuts made of them.

Pure: what :mod:`~flax_errors_ext.model.catalogue.parse` and
:mod:`~flax_errors_ext.model.catalogue.napoleon` read a docstring as.
"""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Line:
    """One line of a docstring."""

    number: int
    """The line in the source file."""
    text: str


def paragraph_end(lines: list[Line], start: int) -> int:
    """The index of the first blank line at or after ``start``."""
    i = start
    while i < len(lines) and lines[i].text.strip():
        i += 1
    return i


def dedent(body: list[Line]) -> list[Line]:
    """``body`` without the indent its lines share."""
    indents = [len(b.text) - len(b.text.lstrip()) for b in body if b.text.strip()]
    indent = min(indents, default=0)
    return [Line(b.number, b.text[indent:]) for b in body]
