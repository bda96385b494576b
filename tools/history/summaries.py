"""What flax.json says of its data: each entry's history in a line, the retired classes.

Read back from the data alone, as a person would say it: "raised with this text
since 0.8.5; before that: «…» (0.6.11-0.7.5); first raised in 0.6.11", where
"since 0.8.5" means that 0.8.5 is the first recorded release with it.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from flax_errors_ext.model.history.releases import Outcome, quote, retired, timelines

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from flax_errors_ext.model.history.releases import History, Span

SHOWN = 160
"""The characters of a text a summary shows; the file keeps all of it."""


def document(
    history: History, codes: Mapping[str, tuple[str, ...]] | None = None
) -> dict[str, Any]:
    """What ``flax.json`` holds: the data, then what it says."""
    names = sorted({name for r in history.releases for name in r.entries})
    return {
        **history.to_json(),
        "summaries": {
            name: entry_summary(history, name, (codes or {}).get(name)) for name in names
        },
        "retired": [
            {
                **dataclasses.asdict(gone),
                "texts": [{"release": release, "text": text} for release, text in gone.texts],
            }
            for gone in retired(history)
        ],
    }


def entry_summary(history: History, name: str, codes: tuple[str, ...] | None = None) -> str:
    """The entry's history in a line: presence, then each bad example's summary."""
    present = [r.release.flax for r in history.releases if name in r.classes]
    recorded = [r.release.flax for r in history.releases]
    if not present:
        parts = ["not in flax.errors in any recorded release"]
    elif present == recorded[recorded.index(present[0]) :]:
        since = present[0]
        parts = [] if since == recorded[0] else [f"in flax.errors since {since}"]
    else:
        parts = [f"in flax.errors in {', '.join(present)}"]
    lines = timelines(history, name, codes)
    if not lines:
        parts.append("no bad example")
    for number, line in enumerate(lines, 1):
        prefix = f"bad example {number}: " if len(lines) > 1 else ""
        parts.append(prefix + example_summary(line))
    return "; ".join(parts)


def example_summary(spans: Sequence[Span]) -> str:
    """A bad example's spans in a sentence or two."""
    if not spans:
        return "no recorded release ran this code"
    *earlier, latest = spans
    raised = [n for n, s in enumerate(spans) if s.outcome is Outcome.RAISED]
    if latest.outcome is Outcome.RAISED:
        if not earlier:
            return f"raised with this text in every recorded release ({latest.versions})"
        parts = [f"raised with this text since {latest.first}"]
    elif not raised:
        parts = [f"never raised in the recorded releases; {describe(latest)}"]
    else:
        after = spans[raised[-1] + 1].first
        parts = [f"no longer raised since {after}: {describe(latest)}"]
    if earlier:
        before = ", ".join(describe(span) for span in reversed(earlier))
        parts.append(f"before that: {before}")
    if raised and raised[0] != len(earlier):
        parts.append(f"first raised in {spans[raised[0]].first}")
    return "; ".join(parts)


def describe(span: Span) -> str:
    """The span as a clause of a summary."""
    where = span.versions if span.present else f"{span.versions}, not in flax.errors"
    if span.outcome in (Outcome.RAISED, Outcome.RAISED_OTHER):
        return f"«{quote(span.text, SHOWN)}» ({where})"
    if span.outcome is Outcome.NO_RAISE:
        return f"raised nothing ({where})"
    return f"could not run ({where}: {quote(span.text, SHOWN)})"
