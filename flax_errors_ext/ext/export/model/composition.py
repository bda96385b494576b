"""A docstring made of Flax's prose and the catalogue's parts, chunk by chunk.

What :mod:`~flax_errors_ext.ext.export.model.docstrings` writes into a class: the
catalogue file's summary, Flax's own prose less what the export wrote before (so
that a second export adds nothing), then the file's explanation and examples.
Docstrings are compared in chunks (runs of non-blank lines, dedented), not in
paragraphs: a literal block is one, and so is every run of doctest lines.
"""

from __future__ import annotations

import inspect
import re
from typing import TYPE_CHECKING

from flax_errors_ext.ext.export.model.style import (
    WIDTH,
    mentions_release,
    wrap_at_spaces,
    wrapped_prose,
)
from flax_errors_ext.model.catalogue.parse import SECTION_TITLES, cut_opening
from flax_errors_ext.model.catalogue.records import FormatProblem
from flax_errors_ext.model.catalogue.repairs import repaired

if TYPE_CHECKING:
    from collections.abc import Sequence

    from flax_errors_ext.ext.export.model.examples import Section
    from flax_errors_ext.model.catalogue.records import Location
    from flax_errors_ext.model.catalogue.repairs import DocstringFix


def flax_prose(
    docstring: str, ours: Sequence[str], fixes: Sequence[DocstringFix], at: Location
) -> tuple[list[str], list[FormatProblem]]:
    """Flax's docstring, dedented, less what ``ours`` hold, with the fixes made."""
    held = {key for text in ours for key, _, _ in _chunks(_cleaned(text))}
    kept: list[str] = []
    for key, chunk, gap in _chunks(_cleaned(docstring)):
        if key not in held:
            kept += [*[""] * gap, *chunk] if kept else chunk
    if cut_opening(kept):
        kept = [kept[0], *kept[2:]]
    text, stale = repaired("\n".join(kept), fixes)
    problems = [FormatProblem(fix.stale_message(), at) for fix in stale]
    return (text.split("\n") if text else []), problems


def our_lines(
    catalogue: str, section: Section | None, indent: int, opening: int
) -> tuple[list[str], list[str]]:
    """What the export writes, dedented: the summary, then explanation and examples.

    ``indent`` is the docstring's; ``opening``, the width before the summary on its
    line (indent and quotes). Any paragraph bound to one release is left out.
    """
    lines = _cleaned(catalogue)
    end = next((i for i, line in enumerate(lines) if not line), len(lines))
    summary_text = " ".join(line.strip() for line in lines[:end])
    rest = lines[end:]
    end = next((i for i, line in enumerate(rest) if line in SECTION_TITLES), len(rest))
    explanation = [
        paragraph
        for paragraph in re.split(r"\n\s*\n", "\n".join(rest[:end]).strip())
        if paragraph and not mentions_release(paragraph)
    ]
    summary: list[str] = []
    if summary_text and not mentions_release(summary_text):
        summary = wrap_at_spaces(summary_text, WIDTH - indent, " " * (opening - indent))
        summary[0] = summary[0].strip()
    body = wrapped_prose("\n\n".join(explanation), WIDTH - indent) if explanation else []
    if section:
        body += ["", *section.lines] if body else section.lines
    return summary, body


def compose(summary: list[str], flax_lines: list[str], ours: list[str], indent: str) -> str:
    """The new docstring's value: our summary, Flax's prose, then the rest of ours.

    Without a summary of ours (it named a release), Flax's opening paragraph is it.
    """
    if not summary:
        end = next((i for i, line in enumerate(flax_lines) if not line), len(flax_lines))
        summary, flax_lines = flax_lines[:end], flax_lines[end + 1 :]
    lines = list(summary)
    for part in (flax_lines, ours):
        if part:
            lines += ["", *part] if lines else part
    if not lines:
        return ""
    if summary and len(lines) == 1:
        return lines[0]
    return "\n".join([lines[0], *(f"{indent}{x}" if x else "" for x in lines[1:]), indent])


def _cleaned(text: str) -> list[str]:
    """A docstring's lines as :func:`inspect.cleandoc` gives them, each right-stripped."""
    return inspect.cleandoc("\n".join(line.rstrip() for line in text.split("\n"))).split("\n")


def _chunks(lines: list[str]) -> list[tuple[tuple[str, ...], list[str], int]]:
    """The runs of non-blank lines: dedented (to compare), as they are, and the blanks before."""
    found: list[tuple[tuple[str, ...], list[str], int]] = []
    chunk: list[str] = []
    gap = 0
    for line in [*lines, ""]:
        if line:
            chunk.append(line)
            continue
        if chunk:
            indent = min(len(x) - len(x.lstrip()) for x in chunk)
            found.append((tuple(x[indent:] for x in chunk), chunk, gap))
            chunk, gap = [], 0
        gap += 1
    return found
