"""Keep what one statement printed or raised within the output limit, its verdict unchanged."""

from __future__ import annotations

import doctest
import itertools
import re

DEFAULT_LIMIT = 100_000
"""Characters of one statement's output, exception message or traceback."""

MARKER = "... [flax-errors: {cut:,} characters cut; the example was judged on the full output] ..."
_MARKED = re.compile(r"\.\.\. \[flax-errors: [\d,]+ characters cut; ")


def cut(text: str, limit: int) -> str:
    """``text`` if it has at most ``limit`` characters, else its head and tail around a marker."""
    if len(text) <= limit:
        return text
    head_size = limit * 2 // 3
    tail_size = limit - head_size
    head = text[:head_size]
    line_end = head.rfind("\n")
    if line_end >= head_size // 2:
        head = head[: line_end + 1]
    tail = text[len(text) - tail_size :] if tail_size else ""
    line_start = tail.find("\n")
    if 0 <= line_start < tail_size // 2:
        tail = tail[line_start + 1 :]
    marker = MARKER.format(cut=len(text) - len(head) - len(tail))
    separator = "" if not head or head.endswith("\n") else "\n"
    return f"{head}{separator}{marker}\n{tail}"


def is_cut(text: str | None) -> bool:
    """Whether ``text`` holds the marker of a cut."""
    return text is not None and _MARKED.search(text) is not None


def fit(text: str, documented: str, flags: int, limit: int) -> str:
    """``text`` cut to about ``limit``, accepted by ``documented`` exactly if ``text`` is."""
    if len(text) <= limit:
        return text
    checker = doctest.OutputChecker()
    accepted = checker.check_output(documented, text, flags)
    plain = cut(text, limit)
    if checker.check_output(documented, plain, flags) == accepted:
        return plain
    if accepted:
        around = _cut_between_pieces(text, documented, flags, limit)
        if around is not None and checker.check_output(documented, around, flags):
            return around
    return text


def _cut_between_pieces(text: str, documented: str, flags: int, limit: int) -> str | None:
    if not flags & doctest.ELLIPSIS or doctest.ELLIPSIS_MARKER not in documented:
        return None
    spans = _piece_spans(text, documented.split(doctest.ELLIPSIS_MARKER), flags)
    if spans is None:
        return None
    gaps = [(end, start) for (_, end), (start, _) in itertools.pairwise(spans)]
    kept = sum(end - start for start, end in spans)
    share = max(0, limit - kept) // max(1, len(gaps))
    parts = [text[: spans[0][1]]]
    for (gap_start, gap_end), (_, piece_end) in zip(gaps, spans[1:], strict=True):
        gap = text[gap_start:gap_end]
        parts.append(cut(gap, share) if len(gap) > share else gap)
        parts.append(text[gap_end:piece_end])
    parts.append(text[spans[-1][1] :])
    return "".join(parts)


def _piece_spans(text: str, pieces: list[str], flags: int) -> list[tuple[int, int]] | None:
    # Leftmost and in order, as doctest's ellipsis matches.
    loose = bool(flags & doctest.NORMALIZE_WHITESPACE)

    def pattern(piece: str) -> str:
        return r"\s+".join(map(re.escape, piece.split())) if loose else re.escape(piece)

    first = re.match((r"\s*" if loose else "") + pattern(pieces[0]), text)
    last = re.search(pattern(pieces[-1]) + (r"\s*\Z" if loose else r"\Z"), text)
    if first is None or last is None:
        return None
    spans = [(0, first.end())]
    position = first.end()
    for piece in pieces[1:-1]:
        if (found := re.compile(pattern(piece)).search(text, position)) is None:
            return None
        spans.append(found.span())
        position = found.end()
    if last.start() < position:
        return None
    spans.append((last.start(), len(text)))
    return spans
