"""The help's index: what it says of each entry, and the texts that find it.

The help answers from an index written beforehand: it runs in the reader's process,
where importing the catalogued libraries would cost more than the error.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from flax_errors_ext.model.lookup.texts import Findable, Text, findable

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence

    from flax_errors_ext.model.catalogue.records import ErrorEntry

SCHEMA = 2


@dataclasses.dataclass(frozen=True)
class HelpEntry:
    """What the help says of one entry, and the texts that find it."""

    found: Findable
    url: str
    fix: str
    """The first good example's caption, as plain text; may be ""."""
    summary: str
    """Said where there is no fix."""
    fixes: dict[int, str] = dataclasses.field(default_factory=dict)
    """Where an entry has several causes: each bad example's fix (by index) unlike :attr:`fix`."""

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
                    "fixes": {str(n): fix for n, fix in entry.fixes.items()},
                    "texts": [
                        {**dataclasses.asdict(text), "names": sorted(text.names)}
                        for text in entry.found.texts
                    ],
                }
                for entry in self.entries
            ],
        }

    @classmethod
    def from_json(cls, data: Any) -> HelpIndex:
        """Read an index back; ValueError, saying why, where ``data`` is not one of this schema."""
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
            **{
                **text,
                "names": frozenset(text["names"]),
                "fixed": tuple(text["fixed"]),
                "sites": tuple(text.get("sites", ())),
            }
        )
        for text in item["texts"]
    )
    return HelpEntry(
        Findable(str(item["qualname"]), texts),
        str(item["url"]),
        str(item["fix"]),
        str(item["summary"]),
        {int(n): str(fix) for n, fix in item["fixes"].items()},
    )


def help_index(
    entries: Iterable[tuple[ErrorEntry, str, str]],
    older: Mapping[str, Sequence[str]] | None = None,
    cause_fixes: Callable[[ErrorEntry], dict[int, str]] = lambda _: {},
    sites: Mapping[str, Mapping[int, Sequence[str]]] | None = None,
) -> HelpIndex:
    """The index of ``(entry, URL, one-line fix)``; ``cause_fixes``: :attr:`HelpEntry.fixes`."""
    return HelpIndex(
        tuple(
            HelpEntry(
                findable(
                    entry, (older or {}).get(entry.qualname, ()), (sites or {}).get(entry.qualname)
                ),
                url,
                fix,
                entry.summary,
                {n: f for n, f in cause_fixes(entry).items() if f != fix},
            )
            for entry, url, fix in entries
            if entry.documented
        )
    )


def answer(index: HelpIndex, error_text: str) -> HelpEntry | None:
    """The entry ``explain`` would answer ``error_text`` with; None where only a likeness is."""
    # Imported here: finding imports these texts.
    from flax_errors_ext.model.lookup.find import find_hits

    hits = find_hits([entry.found for entry in index.entries], error_text)
    if not hits:
        return None
    by_qualname = {entry.found.qualname: entry for entry in index.entries}
    entry = by_qualname[hits[0].found.qualname]
    matched = hits[0].text.example if hits[0].text is not None else -1
    return dataclasses.replace(entry, fix=entry.fixes.get(matched, entry.fix))
