"""The index the help under a traceback answers from, and how it answers.

After :func:`flax_errors_ext.install`, an uncaught error that an entry matches is
followed by the entry's one-line fix and its URL. That help runs in the reader's
process, where importing the catalogued libraries (or this package's Sphinx and
Jupyter machinery) would cost more than the error: so it answers from an index
written beforehand (``flax-errors index``, shipped with the package for the
catalogue's own entries). Each entry's texts there are the very
:class:`~flax_errors_ext.model.lookup.texts.Findable` texts ``explain`` matches,
with the forms derived from them (written, not remade, so that the first error
of a process is answered at once),
and :func:`answer` asks :func:`~flax_errors_ext.model.lookup.find.find_hits`, so
that the help names an entry exactly where ``explain`` would, and says nothing
where ``explain`` says "not in the catalogue".
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from flax_errors_ext.model.lookup.find import find_hits
from flax_errors_ext.model.lookup.texts import Findable, Text, findable

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from flax_errors_ext.model.catalogue.records import ErrorEntry

SCHEMA = 1
"""The version of the index's JSON form; an index of another is not read."""

ANSWERING = ("url", "class", "message", "alike")
"""How a match may come about for the help to name it: never by likeness alone."""


@dataclasses.dataclass(frozen=True)
class HelpEntry:
    """What the help says of one entry, and the texts that find it."""

    found: Findable
    url: str
    """The entry's absolute URL on the published site."""
    fix: str
    """The one-line fix (the first good example's caption), as plain text; may be ""."""
    summary: str
    """What went wrong, in one line: said where there is no fix."""

    def lines(self) -> tuple[str, str]:
        """``help: <fix>`` and ``see: <url>``, as printed under the traceback."""
        return f"help: {self.fix or self.summary}", f"see: {self.url}"


@dataclasses.dataclass(frozen=True)
class HelpIndex:
    """Every entry the help can name, in the order ``explain`` lists them."""

    entries: tuple[HelpEntry, ...] = ()

    def __add__(self, other: HelpIndex) -> HelpIndex:
        """Both indexes' entries; an entry of ``other`` replaces one of the same name."""
        names = {entry.found.qualname for entry in other.entries}
        kept = tuple(e for e in self.entries if e.found.qualname not in names)
        return HelpIndex(kept + other.entries)

    def to_json(self) -> dict[str, Any]:
        """The index's one JSON form: entries in order, every field named."""
        return {
            "schema": SCHEMA,
            "entries": [
                {
                    "qualname": entry.found.qualname,
                    "url": entry.url,
                    "fix": entry.fix,
                    "summary": entry.summary,
                    "texts": [
                        {
                            "documented": text.documented,
                            "names": sorted(text.names),
                            "raised": text.raised,
                            "example": text.example,
                            "known": text.known,
                            "fixed": list(text.fixed),
                            "exact": text.exact,
                            "context": text.context,
                            "plain": text.plain,
                        }
                        for text in entry.found.texts
                    ],
                }
                for entry in self.entries
            ],
        }

    @classmethod
    def from_json(cls, data: Any) -> HelpIndex:
        """Read an index back.

        Raises:
            ValueError: if ``data`` is not an index of this schema, saying why.
        """
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            found = data.get("schema") if isinstance(data, dict) else type(data).__name__
            raise ValueError(f"not a flax-errors help index of schema {SCHEMA} (found {found!r})")
        try:
            return cls(tuple(_entry(item) for item in data["entries"]))
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise ValueError(f"not a flax-errors help index: {error!r}") from None


def _entry(item: Mapping[str, Any]) -> HelpEntry:
    texts = tuple(
        Text(
            str(text["documented"]),
            frozenset(map(str, text["names"])),
            str(text["raised"]),
            int(text["example"]),
            str(text["known"]),
            tuple(map(str, text["fixed"])),
            bool(text["exact"]),
            str(text["context"]),
            bool(text["plain"]),
        )
        for text in item["texts"]
    )
    return HelpEntry(
        Findable(str(item["qualname"]), texts),
        str(item["url"]),
        str(item["fix"]),
        str(item["summary"]),
    )


def help_index(
    entries: Iterable[tuple[ErrorEntry, str, str]],
    older: Mapping[str, Sequence[str]] | None = None,
) -> HelpIndex:
    """The index of ``(entry, its URL, its one-line fix)``, with past releases' wordings.

    ``older``: texts past releases raised, by entry, as ``explain`` matches them.
    """
    return HelpIndex(
        tuple(
            HelpEntry(findable(entry, (older or {}).get(entry.qualname, ())), url, fix, summary)
            for entry, url, fix in entries
            if entry.documented
            for summary in (entry.summary,)
        )
    )


def answer(index: HelpIndex, error_text: str) -> HelpEntry | None:
    """The entry whose help to show under ``error_text`` (a traceback's last lines), or None.

    The best entry ``explain`` would answer with, found by the error's URL, its
    class or its message; none where only a likeness is found.
    """
    hits = find_hits([entry.found for entry in index.entries], error_text)
    if not hits or hits[0].how not in ANSWERING:
        return None
    by_qualname = {entry.found.qualname: entry for entry in index.entries}
    return by_qualname[hits[0].found.qualname]
