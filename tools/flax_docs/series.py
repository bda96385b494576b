"""The patch series that adopts flax_errors_ext in Flax's docs: listing it, and its size.

The series (``tools/flax_docs/patches/``) is what ``git format-patch`` writes, one
``NNNN-subject.patch`` per commit, for a Flax maintainer to apply with ``git am``
at the root of Flax's source tree. Reading it is pure: no git, no files written.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable

SERIES = Path(__file__).resolve().parent / "patches"
"""The series, for ``git am`` at the root of Flax's source tree."""

_NAME = re.compile(r"(\d{4})-[\w.-]+\.patch")
_DIFF = re.compile(r"^diff --git a/(\S+) b/(\S+)$", re.M)
_SUBJECT = re.compile(r"^Subject: (?:\[PATCH[^\]]*\] )?(.*(?:\n [^\n]*)*)", re.M)


@dataclasses.dataclass(frozen=True)
class Patch:
    """One commit of the series."""

    path: Path
    subject: str
    files: tuple[str, ...]
    """The paths it changes, relative to Flax's source root."""
    added: int
    removed: int

    def __str__(self) -> str:
        return (
            f"{self.path.name}: {len(self.files)} file(s), +{self.added} -{self.removed}: "
            f"{self.subject}"
        )


def read_patch(path: Path, text: str) -> Patch:
    """The commit ``text`` (a ``git format-patch`` file at ``path``) describes.

    Raises:
        ValueError: naming the file, if it has no subject or changes no file.
    """
    subject = _SUBJECT.search(text)
    files = tuple(dict.fromkeys(b for _, b in _DIFF.findall(text)))
    if subject is None or not files:
        raise ValueError(f"{path}: not a git format-patch commit (a Subject: and a diff)")
    body = text[text.index("\ndiff --git ") :].splitlines()
    added = sum(1 for line in body if line.startswith("+") and not line.startswith("+++ "))
    removed = sum(1 for line in body if line.startswith("-") and not line.startswith("--- "))
    return Patch(path, " ".join(subject.group(1).split()), files, added, removed)


def series(paths: Iterable[Path]) -> list[Path]:
    """The series' patches in the order they apply: numbered 0001 on, none missing.

    Raises:
        ValueError: naming a file that is not ``NNNN-*.patch``, or the number missing.
    """
    numbered: dict[int, Path] = {}
    for path in paths:
        match = _NAME.fullmatch(path.name)
        if match is None:
            raise ValueError(f"{path}: not a numbered patch (NNNN-subject.patch)")
        numbered[int(match.group(1))] = path
    for number in range(1, len(numbered) + 1):
        if number not in numbered:
            raise ValueError(f"the series has no patch {number:04d}")
    return [numbered[n] for n in sorted(numbered)]


def read_series(folder: Path) -> list[Patch]:
    """Every patch of the series in ``folder``, in order."""
    return [read_patch(path, path.read_text("utf-8")) for path in series(folder.glob("*.patch"))]
