"""Find the entry a person means: by name, by URL, or by an error message they pasted."""

from __future__ import annotations

import dataclasses
import difflib
import re
from typing import TYPE_CHECKING

from flax_errors_ext.model.lookup.paste import (
    FRAGMENT,
    NAME,
    URL,
    bounded,
    chained_from,
    message_body,
    opening_line,
    pasted_class,
    raised_at_site,
    raised_elsewhere,
    readable,
    said_lines,
    shows_code,
    shows_frame,
    wrapped_messages,
)
from flax_errors_ext.model.lookup.patterns import (
    api_names,
    keeps_distinctive,
    message_pattern,
    normalise,
)
from flax_errors_ext.model.lookup.texts import Findable, Text, findable

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from flax_errors_ext.model.catalogue.records import ErrorEntry, Example
    from flax_errors_ext.model.history.releases import History

MIN_SIMILARITY = 0.6
"""How alike a message must be to a documented one to be offered without a match."""
MIN_ALIKE = 0.85
"""How alike a message that matches no pattern must be to answer, its distinctive values kept."""

MIN_FRAGMENT = 20
"""Characters a pasted fragment needs to match as part of a message (of an old wording: 24)."""
MIN_WORDING_FRAGMENT = 24

MESSAGE_CHARS = 4_000
"""Of a message, the characters compared by likeness (the cost grows with the square): its
first and last halves, where it opens with its words and ends with its cause."""


@dataclasses.dataclass(frozen=True)
class Hit:
    """A findable that answers a query, and why (as in :class:`Match`)."""

    found: Findable
    how: str
    score: float
    text: Text | None = None
    specific: int = 0
    """Of the library's own classes its text names, those the paste shows (a message shown
    whole): a part that names none says no more than another entry's same words."""


@dataclasses.dataclass(frozen=True)
class Match:
    """An entry that answers a query, and why.

    ``how``: ``name``, ``url``, ``class``, ``message``, ``alike`` or ``similar`` (a hint).
    """

    entry: ErrorEntry
    how: str
    score: float
    example: Example | None = None

    @property
    def certain(self) -> bool:
        """Whether the query identifies the entry rather than resembles it."""
        return self.how in ("name", "url", "class")


def find(
    entries: Sequence[ErrorEntry],
    query: str,
    older: Mapping[str, Sequence[str]] | None = None,
    sites: Mapping[str, Mapping[int, Sequence[str]]] | None = None,
) -> list[Match]:
    """The entries ``query`` means, best first; ``older``: past texts (:func:`by_entry`)."""
    query = readable(query).strip()
    if NAME.fullmatch(query):
        return by_name(entries, query)
    return _matches(entries, find_hits(_findables(entries, older, sites), query))


OLD_CLASS_NAMES = {"XlaRuntimeError": "JaxRuntimeError"}
"""Classes a library renamed, by their old names: a paste of either finds the entry."""
_OLD_CLASS = re.compile(rf"(?<![\w])(?:[\w.]*\.)?({'|'.join(OLD_CLASS_NAMES)})(?!\w)")


def find_hits(findables: Sequence[Findable], query: str) -> list[Hit]:
    """The findables a pasted error means, best first: :func:`find` without bare names."""
    query = _OLD_CLASS.sub(lambda m: OLD_CLASS_NAMES[m.group(1)], readable(query).strip())
    if not query:
        return []
    for finder in (_by_url, _by_class):
        found = finder(findables, query)
        if found:
            return found
    ranked = _ranked(findables, query, floor=MIN_ALIKE, similar=False)
    found = [h for h in ranked if h.how in ("message", "alike")]
    if found:
        return found
    if (opening := opening_line(query)) is not None:
        # A message pasted without its class, more pasted after it: its first line, if shown.
        opened = _ranked(findables, opening, floor=MIN_ALIKE, similar=False)
        return [h for h in opened if h.how == "message"]
    for wrapped in wrapped_messages(query):
        inner = _ranked(findables, wrapped, floor=MIN_ALIKE, similar=False)
        shown = [h for h in inner if h.text is not None and shows_whole(h.text, wrapped)]
        if shown:
            return shown
    # An error that matches nothing, raised while handling one that may: as the help asks
    # an uncaught error's causes.
    cause = chained_from(query)
    return find_hits(findables, cause) if cause else []


def _findables(
    entries: Sequence[ErrorEntry],
    older: Mapping[str, Sequence[str]] | None,
    sites: Mapping[str, Mapping[int, Sequence[str]]] | None = None,
) -> list[Findable]:
    return [
        findable(entry, (older or {}).get(entry.qualname, ()), (sites or {}).get(entry.qualname))
        for entry in entries
    ]


def _matches(entries: Sequence[ErrorEntry], hits: Sequence[Hit]) -> list[Match]:
    by_qualname = {entry.qualname: entry for entry in entries}
    matches = []
    for hit in hits:
        entry = by_qualname[hit.found.qualname]
        n = hit.text.example if hit.text is not None else -1
        matches.append(Match(entry, hit.how, hit.score, entry.examples[n] if n >= 0 else None))
    return matches


def by_name(entries: Sequence[ErrorEntry], name: str) -> list[Match]:
    """Entries whose short or dotted name is ``name``, ignoring case."""
    folded = name.casefold()
    exact = [e for e in entries if name in (e.name, e.qualname)]
    found = exact or [e for e in entries if folded in (e.name.casefold(), e.qualname.casefold())]
    return [Match(entry, "name", 1.0) for entry in found]


def suggest(entries: Sequence[ErrorEntry], query: str, count: int = 3) -> list[str]:
    """Dotted names of the entries closest to ``query`` (none if none is), for "did you mean"."""
    query = readable(query).strip()
    if not NAME.fullmatch(query):
        found = _ranked(_findables(entries, None), query, floor=MIN_SIMILARITY)
        close = [h for h in found if h.score >= MIN_SIMILARITY]
        return [h.found.qualname for h in close[:count]]
    folded = query.casefold()

    def likeness(entry: ErrorEntry) -> float:
        return max(
            difflib.SequenceMatcher(None, folded, name.casefold()).ratio()
            for name in (entry.name, entry.qualname)
        )

    scored = sorted(((likeness(e), e.qualname) for e in entries), reverse=True)
    if not scored:
        return []
    # Only the names about as close as the closest: a typo has one answer, not three.
    floor = max(MIN_SIMILARITY, scored[0][0] - 0.1)
    return [qualname for score, qualname in scored[:count] if score >= floor]


def _by_url(findables: Sequence[Findable], query: str) -> list[Hit]:
    by_qualname = {f.qualname: f for f in findables}
    fragments = [m.group(1) for url in URL.findall(query) for m in FRAGMENT.finditer(url)]
    # The last URL belongs to the error that was raised last, in a chained traceback.
    found = [by_qualname[f] for f in reversed(fragments) if f in by_qualname]
    return [Hit(item, "url", 1.0, _closest(item, query)) for item in dict.fromkeys(found)]


def _by_class(findables: Sequence[Findable], query: str) -> list[Hit]:
    text = URL.sub(" ", query)
    # A paste cut before its exception line (frames alone) is named by its class alone.
    said = bool(said_lines(query)) and bool(message_body(query))
    positions = {}
    for item in findables:
        if item.name not in text:
            continue  # the pattern below would find nothing: spare compiling it
        hits = [m.start() for m in re.finditer(rf"(?<![\w]){re.escape(item.name)}(?!\w)", text)]
        # Not the class alone where the message is unlike: any runtime error is a JaxRuntimeError.
        # Unless the innermost frame raises it where the entry's examples do, or the entry
        # has no text to be unlike (an error today's releases never raise).
        closest = _closest(item, query) if said else None
        sites = [site for text in item.texts for site in text.sites]
        unlike = said and closest is None and not raised_at_site(query, item.name, sites)
        if hits and not (unlike and item.texts):
            positions[item.qualname] = (hits[-1], item, closest)
    # Named last is raised last (the final line of a traceback).
    ordered = sorted(positions.values(), key=lambda hit: hit[0], reverse=True)
    return [Hit(item, "class", 1.0, closest) for _, item, closest in ordered]


def _closest(item: Findable, query: str) -> Text | None:
    # Of its texts, those its runs raised where the paste's frames show say its cause.
    here = tuple(t for t in item.texts if not (t.sites and raised_elsewhere(query, t.sites)))
    for texts in dict.fromkeys((here, item.texts)):  # then all, unless they are the same
        found = _ranked(
            [dataclasses.replace(item, texts=texts)], query, MIN_SIMILARITY, named=True
        )
        near = [hit for hit in found if hit.how != "similar" or hit.score >= MIN_SIMILARITY]
        if near:
            return near[0].text
    return None


def nearest(
    entries: Sequence[ErrorEntry],
    query: str,
    older: Mapping[str, Sequence[str]] | None = None,
    count: int = 3,
) -> list[Match]:
    """For a hint beside "not in the catalogue": the entries a paste resembles, closest first.

    ``how`` is ``message`` for an entry whose words the paste shows, every value as
    written, but whose frames lack the library's that Python's words for any object
    need (optax's ``unsupported operand type(s) for *: 'float' and 'dict'`` under
    frames of other files); else ``similar``.
    """
    query = readable(query).strip()
    found = _ranked(_findables(entries, older), query, floor=MIN_SIMILARITY, framed=False)
    ranked = _matches(entries, found)
    return [m for m in ranked if m.how != "alike" and m.score >= MIN_SIMILARITY][:count]


_STRENGTH = {"message": 3, "alike": 2, "similar": 1}


def _ranked(
    findables: Sequence[Findable],
    query: str,
    floor: float = 0.0,
    *,
    similar: bool = True,
    named: bool = False,
    framed: bool = True,
) -> list[Hit]:
    # Nearly the same text answers only with the same distinctive values: JAX's generic
    # errors differ from a documented one only there. Likeness alone is a hint.
    body = bounded(message_body(query), MESSAGE_CHARS // 2)
    flat = normalise(body)
    raised = pasted_class(query)
    # One matcher for the paste: it indexes its second sequence once, not per text.
    matcher = difflib.SequenceMatcher(None, "", flat, autojunk=False)
    pasted = api_names(flat)
    hits = []
    for item in findables:
        best = Hit(item, "", 0.0)
        # A paste that names APIs, none its texts name (``shard_map in_specs`` where they
        # have ``tree_map tree``), is another API's error in the same words.
        theirs = frozenset().union(*(api_names(text.known) for text in item.texts))
        own = not (pasted and theirs) or bool(pasted & theirs)
        for text in item.texts:
            # Where the paste names the entry, its class and frames have had their say.
            if not named and not _raised_as(text, query, raised, framed):
                continue
            if text.plain and not keeps_distinctive(flat, text.known):
                continue  # a user's class named where a builtin's message names none
            known = text.known
            matcher.set_seq1(known)
            # A message shown whole (not a part) also says which class it names.
            whole = own and shows_whole(text, body)
            showing = whole or (own and shows_part(text, body, flat))
            # The bounds spare comparing a text that cannot pass ``floor`` (or be alike
            # where only that is asked) with the paste character by character.
            could_be_alike = not text.plain and keeps_distinctive(known, flat)
            if not showing and (
                (not similar and not could_be_alike)
                or matcher.real_quick_ratio() < floor
                or matcher.quick_ratio() < floor
            ):
                continue
            ratio = matcher.ratio()
            alike = ratio >= MIN_ALIKE and could_be_alike and own
            how = "message" if showing else "alike" if alike else "similar"
            hit = Hit(item, how, ratio, text, text.specific if whole else 0)
            if _rank(hit) > _rank(best):
                best = hit
        if best.score > 0:
            hits.append(best)
    return sorted(hits, key=_rank, reverse=True)


def _raised_as(text: Text, query: str, raised: str, framed: bool) -> bool:
    """Whether the paste's class and frames let ``text`` answer it."""
    if raised and text.raised and text.raised != raised:
        return False  # a builtin's message answers only a paste of its class
    # Python's own words for any object: which one, the frames say, or the call they
    # are about as the paste's code shows it (a hint may name a text whose every value
    # is written as it is, unframed).
    hinted = not framed and text.exact
    called = bool(text.code) and shows_code(query, text.code)
    if text.context and not shows_frame(query, text.context) and not (hinted or called):
        return False
    # The same words, raised by another part of the library, are another cause.
    return not (text.sites and raised_elsewhere(query, text.sites))


def _rank(hit: Hit) -> tuple[int, int, float]:
    # A message shown whole that names the library's own class beats one naming any class.
    return _STRENGTH.get(hit.how, 0), hit.specific, hit.score


def shows_whole(text: Text, body: str) -> bool:
    """Whether a pasted message shows a documented one whole, with other values."""
    return all(part in body for part in text.fixed) and bool(
        message_pattern(text.documented, text.names, text.exact).search(body)
    )


def shows(text: Text, body: str, flat: str, min_fragment: int = MIN_FRAGMENT) -> bool:
    """Whether a pasted message (``body``, normalised ``flat``) shows a documented one or part."""
    return shows_whole(text, body) or shows_part(text, body, flat, min_fragment)


def shows_part(text: Text, body: str, flat: str, min_fragment: int = MIN_FRAGMENT) -> bool:
    """Whether a pasted message is a part of a documented one (cut short, a line of it)."""
    if text.plain:
        pasted = " ".join(body.casefold().split())
        return len(pasted) >= min_fragment and pasted in " ".join(
            text.documented.casefold().split()
        )
    return len(flat) >= min_fragment and flat in text.known


@dataclasses.dataclass(frozen=True)
class Wording:
    """A text an error was raised with, and the recorded releases that printed it."""

    qualname: str
    text: str
    """The exception line: ``flax.errors.Name: message``."""
    versions: str
    """``0.8.5``, or ``0.6.11-0.7.5``."""
    current: bool = False
    """Whether the newest recorded release printed it too."""


def recorded_wordings(histories: Iterable[History]) -> tuple[Wording, ...]:
    """Every text an entry's bad example raised its own error with, newest first."""
    # Imported here: the help under a traceback finds entries, never reads the history.
    from flax_errors_ext.model.history.releases import Outcome, timelines

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
    """The wordings' texts by entry, for :func:`find`."""
    texts: dict[str, list[str]] = {}
    for wording in wordings:
        texts.setdefault(wording.qualname, []).append(wording.text)
    return texts


def wording_of(wordings: Iterable[Wording], qualname: str, query: str) -> Wording | None:
    """The newest recorded wording of ``qualname`` that the pasted ``query`` shows."""
    body = message_body(query)
    flat = normalise(body)
    for wording in wordings:
        if wording.qualname == qualname and shows(
            Text.of(message_body(wording.text)), body, flat, MIN_WORDING_FRAGMENT
        ):
            return wording
    return None
