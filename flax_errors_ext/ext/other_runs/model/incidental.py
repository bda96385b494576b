"""Texts of two runs that say the same, but for a link's page and a line number.

JAX 0.12 prints ``.../101/errors.html#jax.errors.X`` where 0.10 printed
``.../errors.html#jax.errors.X``, and a message names ``flax/linen/module.py:2089``
on one Flax and ``:2091`` on the next: differences that ``errors.json`` keeps, but
that a reader needs one sentence about, not both texts. Which links count is
:class:`~flax_errors_ext.layout.SiteLayout`'s to say: the same error's anchor on a
page of the site the module's errors print that forwards to the module's page.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING

from flax_errors_ext.layout import PAGE_SUFFIX

if TYPE_CHECKING:
    from flax_errors_ext.layout import SiteLayout

# ``flax/linen/module.py:2089``, and a traceback's ``File "x.py", line 12``.
_FILE_LINE = re.compile(r"(?<![\w.\\/-])([^\s\"'<>():]*\.(?:py|pyx|pyi|c|cc|cpp|h)):(\d+)\b")
_FRAME_LINE = re.compile(r"(File \"([^\"]+)\", line )(\d+)")
_MASK = "\x00"  # what is set aside; no text a run records holds it


@dataclasses.dataclass(frozen=True)
class PrintedLinks:
    """The links a module's errors print: to its errors' anchors on the site at ``base``."""

    layout: SiteLayout
    module: str
    base: str
    """The site its errors print links to (``https://docs.jax.dev/en/latest``)."""

    def masked(self, text: str) -> tuple[str, list[str]]:
        """``text`` with the page of each link that lands on the module's page set aside.

        Also those pages, in order. A link lands there directly or forwarded; one to a
        page that would not forward there (one that climbs out of the site) is a real
        difference. The anchor stays: a link to another error is another link.
        """
        linked = self.layout.linked_pages(self.base, self.module, text)
        forwarded = self.layout.forwards(self.module, linked)
        page = self.layout.module_page(self.module)
        pages = [p for p in linked if forwarded.get(p, p) == page]
        if not pages:
            return text, []
        base = self.base.rstrip("/")
        prefixes = {f"{base}/{p}{PAGE_SUFFIX}#{self.module}.": p for p in pages}
        found: list[str] = []

        def mask(match: re.Match[str]) -> str:
            found.append(prefixes[match.group()])
            return f"{base}/{_MASK}{PAGE_SUFFIX}#{self.module}."

        pattern = "|".join(re.escape(prefix) for prefix in sorted(prefixes, key=len, reverse=True))
        return re.sub(pattern, mask, text), found


@dataclasses.dataclass(frozen=True)
class Incidental:
    """How two texts that say the same differ: the pages their links name, line numbers."""

    pages: tuple[tuple[str, str], ...] = ()
    """``(page there, page here)`` of each link whose page differs, each pair once."""
    files: tuple[str, ...] = ()
    """The files whose line numbers differ, each once."""

    def parts(self) -> list[str]:
        """``the page of its link (errors.html; 101/errors.html in this build)``, a clause each."""
        clauses = [
            f"the page of its link ({there}{PAGE_SUFFIX}; {here}{PAGE_SUFFIX} in this build)"
            for there, here in self.pages
        ]
        clauses.extend(f"a line number in {file}" for file in self.files)
        return clauses

    def __str__(self) -> str:
        return " and ".join(self.parts())


def incidental(here: str, there: str, links: PrintedLinks | None = None) -> Incidental | None:
    """How the normalised texts ``here`` and ``there`` differ: only in link pages and lines.

    None where they are the same, or differ in anything else (wording, a link to
    another error or to another site's page, a file's name). ``links`` are those
    the entry's errors print; None: no link is set aside.
    """
    if here == there:
        return None
    mine, my_pages = links.masked(here) if links is not None else (here, [])
    theirs, their_pages = links.masked(there) if links is not None else (there, [])
    mine, my_lines = _lines_masked(mine)
    theirs, their_lines = _lines_masked(theirs)
    if mine != theirs:
        return None
    pages = dict.fromkeys((t, h) for h, t in zip(my_pages, their_pages, strict=True) if h != t)
    files = dict.fromkeys(
        file for (file, n), (_, m) in zip(my_lines, their_lines, strict=True) if n != m
    )
    return Incidental(tuple(pages), tuple(files))


def _lines_masked(text: str) -> tuple[str, list[tuple[str, str]]]:
    """``text`` with line numbers set aside, and ``(file, line)`` of each in order."""
    found: list[tuple[str, str]] = []

    def file_line(match: re.Match[str]) -> str:
        found.append((match.group(1), match.group(2)))
        return f"{match.group(1)}:{_MASK}"

    def frame_line(match: re.Match[str]) -> str:
        found.append((match.group(2), match.group(3)))
        return f"{match.group(1)}{_MASK}"

    # Frames first: a frame's file name is not followed by ``:line``.
    text = _FRAME_LINE.sub(frame_line, text)
    return _FILE_LINE.sub(file_line, text), found
