"""What the recorded releases say about each error: spans, retired classes.

Each bad example's releases fall into spans that did the same (the same outcome, the
same text), oldest first: the wordings ``explain`` matches, and what ``flax.json``'s
summaries tell (:mod:`tools.history.summaries`).
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING

from flax_errors_ext.model.history.releases import Outcome

if TYPE_CHECKING:
    from flax_errors_ext.model.history.releases import History

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


def timelines(
    history: History, name: str, codes: tuple[str, ...] | None = None
) -> tuple[tuple[Span, ...], ...]:
    """Each bad example of entry ``name`` across the recorded releases: its spans, oldest first.

    With ``codes`` (its examples' hashes now), a record of other code is left out:
    it tells about an example that no longer exists.
    """
    recorded = [len(r.entries[name].examples) for r in history.releases if name in r.entries]
    count = len(codes) if codes is not None else max(recorded, default=0)
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
    return tuple(tuple(spans) for spans in found)


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


def retired(history: History) -> tuple[Retired, ...]:
    """The classes the newest recorded release lacks that an earlier one had."""
    if not history.releases:
        return ()
    versions = [r.release.flax for r in history.releases]
    newest = set(history.releases[-1].classes)
    found = []
    for name in sorted({n for r in history.releases for n in r.classes} - newest):
        had = [r.release.flax for r in history.releases if name in r.classes]
        gone_since = versions[versions.index(had[-1]) + 1]
        texts: dict[str, tuple[str, str]] = {}
        for record in history.releases:
            for _, _, run in record.raisers(f"{history.module}.{name}"):
                texts.setdefault(comparable(run.exc_text), (record.release.flax, run.exc_text))
        found.append(Retired(name, had[0], had[-1], gone_since, tuple(texts.values())))
    return tuple(found)


def _same(a: Span, b: Span) -> bool:
    return (a.outcome, a.present, comparable(a.text)) == (b.outcome, b.present, comparable(b.text))


def version_range(first: str, last: str) -> str:
    """``0.8.5`` where ``first`` is ``last``, else ``0.6.11-0.7.5``."""
    return first if first == last else f"{first}-{last}"


def quote(text: str, limit: int) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
