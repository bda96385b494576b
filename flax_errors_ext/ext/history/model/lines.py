"""An error's history in a line of words, read from its cells.

"Raised with this text since 0.11.2; before that: «…» (0.7.5-0.10.7)" for an entry
with bad examples; "In flax.errors since 0.6.11" for one without. Only the cells that
show what a release did are read: stale ones are left out.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

from flax_errors_ext.ext.history.model.cells import (
    QUOTED,
    URL_TAIL,
    CellState,
    cell_key,
    compared_text,
    exception_message,
)
from flax_errors_ext.model.history.timeline import quote, version_range

if TYPE_CHECKING:
    from collections.abc import Sequence

    from flax_errors_ext.ext.history.model.cells import Cell
    from flax_errors_ext.model.history.releases import ReleaseRun, Substitution


def history_line(cells: Sequence[Cell]) -> str:
    """An entry's history in a line, from the cells that show what a release did.

    "Raised with this text since 0.11.2; before that: «…» (0.7.5-0.10.7)"; "Raised with
    this text since 0.9.0; first raised in 0.4.2" (where the text was the same then);
    "No longer raised since 0.9.0; before that: «…» (0.6.11-0.8.5)"; "Not raised by its
    example in any release shown". Versions are the releases shown: "since 0.11.2"
    means that 0.11.2 is the first of them with this text. Each earlier text quoted is
    the one that differs from the latest (a later bad example's, where the first reads
    the same); the first release that raised it is named unless a quoted range starts
    there.
    """
    shown = [c for c in cells if c.state.known]
    if not shown:
        return ""
    # Consecutive cells that read the same: raised with one wording, or not raised.
    spans = [list(span) for _, span in itertools.groupby(shown, key=cell_key)]
    raised = [span for span in spans if span[0].state.raised]
    if not raised:
        return "Not raised by its example in any release shown"
    latest = raised[-1]
    if spans[-1] is latest:
        if len(spans) == 1:
            parts = [f"Raised with this text in every release shown ({_range(latest)})"]
        else:
            parts = [f"Raised with this text since {latest[0].release}"]
        earlier = [span for span in raised[:-1] if cell_key(span[0]) != cell_key(latest[0])]
        reference: Cell | None = latest[0]
        stated = {latest[0].release}
    else:
        after = spans[spans.index(latest) + 1][0].release
        parts = [f"No longer raised since {after}"]
        earlier, reference, stated = raised, None, set()
    quoted = [
        (text, [cell for span in group for cell in span])
        for text, group in itertools.groupby(earlier, key=lambda span: _quoted(span[0], reference))
    ]
    if quoted:
        parts.append(
            "before that: " + ", ".join(f"«{t}» ({_range(s)})" for t, s in reversed(quoted))
        )
    first = raised[0][0].release
    if first not in stated | {span[0].release for _, span in quoted}:
        parts.append(f"first raised in {first}")
    return "; ".join(parts)


def _range(span: Sequence[Cell]) -> str:
    return version_range(span[0].release, span[-1].release)


def _quoted(cell: Cell, reference: Cell | None) -> str:
    """The text of ``cell`` that differs from ``reference``'s, as the line quotes it."""
    texts = list(enumerate(cell.wording))
    if reference is not None:
        theirs = dict(enumerate(reference.wording))
        differing = [
            (n, t) for n, t in texts if t and compared_text(t) != compared_text(theirs.get(n, ""))
        ]
        texts = differing or texts
    number, text = next((n, t) for n, t in texts if t)
    prefix = f"bad example {number + 1}: " if number else ""
    return prefix + quote(URL_TAIL.sub("", exception_message(text)), QUOTED)


def presence_line(
    qualname: str,
    cells: Sequence[Cell],
    releases: Sequence[ReleaseRun],
    module: str,
    unreachable: bool,
) -> str:
    """The line of an entry without bad examples: when the module had it.

    An entry that cannot be raised today says so if a release raised it all the same
    (from any entry's example).
    """
    shown = [c for c in cells if c.state.known]
    present = [c.release for c in shown if c.state is not CellState.NOT_PRESENT]
    if not shown:
        return ""
    if not present:
        parts = [f"Not in {module} in any release shown"]
    elif present == [c.release for c in shown][len(shown) - len(present) :]:
        since = present[0]
        parts = [
            f"In {module} in every release shown"
            if since == shown[0].release
            else f"In {module} since {since}"
        ]
    else:
        parts = [f"In {module} in {', '.join(present)}"]
    found = (
        [(r.release.flax, hits[0]) for r in releases if (hits := r.raisers(qualname))]
        if unreachable
        else []
    )
    if found:
        versions = [release for release, _ in found]
        entries = sorted({entry for _, (entry, _, _) in found})
        _, (_, _, last) = found[-1]
        text = quote(exception_message(last.exc_text), QUOTED)
        span = version_range(versions[0], versions[-1])
        parts.append(
            f"unreachable today, but {span} raised it (the example of "
            f"{', '.join(entries)}): «{text}»"
        )
    return "; ".join(parts)


def rewritten_line(cells: Sequence[Cell]) -> str:
    """The releases shown whose examples ran rewritten, by the substitutions made."""
    every = [c.release for c in cells]
    groups: dict[tuple[Substitution, ...], list[str]] = {}
    for cell in cells:
        if cell.rewritten and cell.state.known:
            groups.setdefault(cell.rewritten, []).append(cell.release)
    return "; ".join(
        f"Run as rewritten for flax {releases_in_short(releases, every)}: "
        + "; ".join(map(str, made))
        for made, releases in groups.items()
    )


def releases_in_short(chosen: Sequence[str], every: Sequence[str]) -> str:
    """``chosen`` in short: a range where they are consecutive among ``every``."""
    if not chosen:
        return ""
    positions = [every.index(r) for r in chosen]
    if positions == list(range(positions[0], positions[0] + len(positions))):
        return version_range(chosen[0], chosen[-1])
    return ", ".join(chosen)
