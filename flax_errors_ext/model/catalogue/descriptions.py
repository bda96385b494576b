"""An example's description (reST before its code): the first paragraph captions it.

The caption is what the site's dropdowns, ``flax-errors explain`` and
``errors.json`` show; the rest is shown beneath it.
"""

from __future__ import annotations


def first_paragraph(text: str) -> tuple[str, int]:
    """The first paragraph of reST text as one line, and the line its rest starts at.

    The rest starts after the blank lines that follow the paragraph; at the end of
    ``text`` when there is no more.
    """
    lines = text.split("\n")
    start = next((i for i, line in enumerate(lines) if line.strip()), len(lines))
    end = next((i for i in range(start, len(lines)) if not lines[i].strip()), len(lines))
    rest = next((i for i in range(end, len(lines)) if lines[i].strip()), len(lines))
    return " ".join(line.strip() for line in lines[start:end]), rest
