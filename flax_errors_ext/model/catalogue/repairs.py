"""Exact repairs to the wrong text of a library's own docstrings, on the site and in export."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from flax_errors_ext.model.catalogue.parse import cleandoc_lines

if TYPE_CHECKING:
    from collections.abc import Sequence


@dataclasses.dataclass(frozen=True)
class DocstringFix:
    """One exact substitution in one class's docstring."""

    name: str
    """The class whose docstring it is made in."""
    old: str
    """Never a part of ``new``: a second export finds it made already."""
    new: str
    why: str
    path: str = ""
    """The ``module.toml`` that lists it, where a stale repair is to be reviewed."""

    def __post_init__(self) -> None:
        if not self.old or self.old in self.new:
            raise ValueError(f"a repair of {self.name} must replace text that it does not keep")
        if self.old.count("\n") != self.new.count("\n"):
            raise ValueError(
                f"a repair of {self.name} must keep the number of lines, so that the "
                "docstring's later lines keep their file:line"
            )

    def stale_message(self) -> str:
        """What a report says when the docstring holds neither text."""
        return (
            f"{self.name}: a repair is not made, its docstring no longer holds "
            f"{self.old!r}; review it in {self.path or 'its module.toml'}"
        )


def repaired(text: str, fixes: Sequence[DocstringFix]) -> tuple[str, tuple[DocstringFix, ...]]:
    """``text`` with every repair made, and the stale ones: neither text there (or no ``old``)."""
    stale = []
    for fix in fixes:
        if fix.old in text:
            text = text.replace(fix.old, fix.new)
        elif not fix.new or fix.new not in text:
            stale.append(fix)
    return text, tuple(stale)


def repaired_docstring(
    docstring: str, fixes: Sequence[DocstringFix]
) -> tuple[str, tuple[DocstringFix, ...]]:
    """A ``__doc__`` with the repairs made (dedented, every line kept), and the stale repairs."""
    cleaned = "\n".join(cleandoc_lines(docstring))
    text, stale = repaired(cleaned, fixes)
    return (docstring if text == cleaned else text), stale
