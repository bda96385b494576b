"""What the recorded releases say about each error: spans, summaries, retired classes.

Each bad example's releases fall into spans that did the same (the same outcome, the
same text), oldest first; an entry's summary reads them as a person would say it:
"raised with this text since 0.8.5; before that: «…» (0.6.11-0.7.5); first raised in
0.6.11". "since 0.8.5" means that 0.8.5 is the first recorded release with it.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, Any

from flax_errors_ext.model.history.releases import Outcome

if TYPE_CHECKING:
    from collections.abc import Mapping

    from flax_errors_ext.model.history.releases import History

SHOWN = 160
"""The characters of a text a summary shows; the file keeps all of it."""

_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
_TEMPORARY = re.compile(r"\btmp[\w-]{6,}")


def comparable(text: str) -> str:
    """``text`` without what changes from one run to the next (addresses, temp names).

    Temporary names go first: ``tmpiw0x858c`` holds what looks like an address.
    """
    return _ADDRESS.sub("0x…", _TEMPORARY.sub("tmp…", text))


@dataclasses.dataclass(frozen=True)
class Span:
    """Consecutive recorded releases on which a bad example did the same."""

    first: str
    last: str
    outcome: Outcome
    present: bool
    """Whether ``flax.errors`` had the class in these releases."""
    text: str = ""
    """What was raised, or why it could not run."""

    @property
    def versions(self) -> str:
        """``0.8.5`` or ``0.6.11-0.7.5``."""
        return version_range(self.first, self.last)

    def describe(self) -> str:
        """The span as a clause of a summary."""
        where = self.versions if self.present else f"{self.versions}, not in flax.errors"
        if self.outcome in (Outcome.RAISED, Outcome.RAISED_OTHER):
            return f"«{quote(self.text)}» ({where})"
        if self.outcome is Outcome.NO_RAISE:
            return f"raised nothing ({where})"
        return f"could not run ({where}: {quote(self.text)})"


@dataclasses.dataclass(frozen=True)
class ExampleTimeline:
    """One bad example across the recorded releases."""

    spans: tuple[Span, ...]
    """Oldest first; only releases that ran the example's current code."""

    def summary(self) -> str:
        """The timeline in a sentence or two."""
        if not self.spans:
            return "no recorded release ran this code"
        *earlier, latest = self.spans
        raised = [n for n, s in enumerate(self.spans) if s.outcome is Outcome.RAISED]
        if latest.outcome is Outcome.RAISED:
            if not earlier:
                return f"raised with this text in every recorded release ({latest.versions})"
            parts = [f"raised with this text since {latest.first}"]
        elif not raised:
            parts = [f"never raised in the recorded releases; {latest.describe()}"]
        else:
            after = self.spans[raised[-1] + 1].first
            parts = [f"no longer raised since {after}: {latest.describe()}"]
        if earlier:
            before = ", ".join(span.describe() for span in reversed(earlier))
            parts.append(f"before that: {before}")
        if raised and raised[0] != len(earlier):
            parts.append(f"first raised in {self.spans[raised[0]].first}")
        return "; ".join(parts)


def timelines(
    history: History, name: str, codes: tuple[str, ...] | None = None
) -> tuple[ExampleTimeline, ...]:
    """Each bad example of entry ``name`` across the recorded releases.

    With ``codes`` (its examples' hashes now), a record of other code is left out:
    it tells about an example that no longer exists.
    """
    count = len(codes) if codes is not None else _most_examples(history, name)
    found: list[list[Span]] = [[] for _ in range(count)]
    for record in history.releases:
        entry = record.entries.get(name)
        if entry is None:
            continue
        version = record.release.flax
        for index, run in enumerate(entry.examples[:count]):
            if codes is not None and run.code != codes[index]:
                continue
            text = run.reason if run.outcome is Outcome.COULD_NOT_RUN else run.exc_text
            span = Span(version, version, run.outcome, entry.present, text)
            spans = found[index]
            if spans and _same(spans[-1], span):
                spans[-1] = dataclasses.replace(spans[-1], last=version)
            else:
                spans.append(span)
    return tuple(ExampleTimeline(tuple(spans)) for spans in found)


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
        parts.append(prefix + line.summary())
    return "; ".join(parts)


@dataclasses.dataclass(frozen=True)
class Retired:
    """A class that ``flax.errors`` had in a recorded release and no longer has."""

    name: str
    first: str
    """The first recorded release that had it."""
    last: str
    gone_since: str
    """The first recorded release after ``last``."""
    texts: tuple[tuple[str, str], ...] = ()
    """``(release, text)`` for each wording an example saw it raise, oldest first."""

    def to_json(self) -> dict[str, object]:
        """The record as the file lists it."""
        texts = [{"release": release, "text": text} for release, text in self.texts]
        return {**dataclasses.asdict(self), "texts": texts}


def retired(history: History) -> tuple[Retired, ...]:
    """The classes the newest recorded release lacks that an earlier one had."""
    if not history.releases:
        return ()
    versions = [r.release.flax for r in history.releases]
    newest = set(history.releases[-1].classes)
    found = []
    for name in sorted({n for r in history.releases for n in r.classes} - newest):
        had = [n for n, r in enumerate(history.releases) if name in r.classes]
        texts: dict[str, tuple[str, str]] = {}
        for record in history.releases:
            for _, _, run in record.raisers(f"{history.module}.{name}"):
                texts.setdefault(comparable(run.exc_text), (record.release.flax, run.exc_text))
        found.append(
            Retired(
                name,
                versions[had[0]],
                versions[had[-1]],
                versions[had[-1] + 1],
                tuple(texts.values()),
            )
        )
    return tuple(found)


def _same(a: Span, b: Span) -> bool:
    return (a.outcome, a.present, comparable(a.text)) == (b.outcome, b.present, comparable(b.text))


def _most_examples(history: History, name: str) -> int:
    return max(
        (len(r.entries[name].examples) for r in history.releases if name in r.entries), default=0
    )


def version_range(first: str, last: str) -> str:
    """``0.8.5`` where ``first`` is ``last``, else ``0.6.11-0.7.5``."""
    return first if first == last else f"{first}-{last}"


def quote(text: str, limit: int = SHOWN) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def document(
    history: History, codes: Mapping[str, tuple[str, ...]] | None = None
) -> dict[str, Any]:
    """What ``flax.json`` holds: the data, then what it says (read back from the data alone)."""
    names = sorted({name for r in history.releases for name in r.entries})
    return {
        **history.to_json(),
        "summaries": {
            name: entry_summary(history, name, (codes or {}).get(name)) for name in names
        },
        "retired": [r.to_json() for r in retired(history)],
    }
