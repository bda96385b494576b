"""The wordings past releases printed, from the recorded history, for finding an error.

A reader may paste a message worded as an older Flax worded it. The history holds
every text a bad example raised on each recorded release; here those texts become
wordings that :func:`~.find.find` also matches, each with the releases that printed it.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from flax_errors_ext.model.history.releases import Outcome, timelines
from flax_errors_ext.model.lookup.find import shows
from flax_errors_ext.model.lookup.paste import message_body
from flax_errors_ext.model.lookup.patterns import normalise
from flax_errors_ext.model.lookup.texts import Text

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from flax_errors_ext.model.history.releases import History

MIN_FRAGMENT = 24
"""How long a pasted part of a message must be to be matched inside a wording."""


@dataclasses.dataclass(frozen=True)
class Wording:
    """A text an error was raised with, and the recorded releases that printed it."""

    qualname: str
    text: str
    """The exception line: ``flax.errors.Name: message``."""
    versions: str
    """``0.8.5``, or ``0.6.11-0.7.5``."""
    current: bool = False
    """Whether the newest recorded release printed it too: today's wording, not an old one."""


def recorded_wordings(histories: Iterable[History]) -> tuple[Wording, ...]:
    """Every text an entry's bad example raised its own error with, newest first."""
    found: list[Wording] = []
    for history in histories:
        names = {name for record in history.releases for name in record.entries}
        newest = history.releases[-1].release.flax if history.releases else None
        for name in sorted(names):
            qualname = f"{history.module}.{name}"
            for spans in timelines(history, name):
                found += [
                    Wording(qualname, span.text, span.versions, span.last == newest)
                    for span in reversed(spans)
                    if span.outcome is Outcome.RAISED and span.text
                ]
    return tuple(dict.fromkeys(found))


def by_entry(wordings: Iterable[Wording]) -> Mapping[str, Sequence[str]]:
    """The wordings' texts by entry, for :func:`~flax_errors_ext.model.lookup.find.find`."""
    texts: dict[str, list[str]] = {}
    for wording in wordings:
        texts.setdefault(wording.qualname, []).append(wording.text)
    return texts


def wording_of(wordings: Iterable[Wording], qualname: str, query: str) -> Wording | None:
    """The newest recorded wording of ``qualname`` that the pasted ``query`` shows."""
    body = message_body(query)
    flat = normalise(body)
    mine = (wording for wording in wordings if wording.qualname == qualname)
    return next(
        (w for w in mine if shows(Text.of(message_body(w.text)), body, flat, MIN_FRAGMENT)), None
    )
