"""Find the entry a person means: by name, by URL, or by an error message they pasted.

A name is the short class name or the dotted one, in any case. A pasted error is
matched, in this order of trust, by the URL it prints (its fragment is the entry's
dotted name), by an error class it names, and by its message. Messages carry the
values of one particular run (a parameter name, a scope path, a shape), so each
documented message becomes a pattern in which ``...`` and those values are
wildcards (:mod:`~flax_errors_ext.model.lookup.patterns`). A message that matches
no pattern answers only if it is nearly the same text with the same distinctive
values (a class of the reader's code where the documented one has one); any other
is not in the catalogue, however alike, and :func:`nearest` offers the entries
it resembles as a hint.
"""

from __future__ import annotations

import dataclasses
import difflib
import doctest
import re
from typing import TYPE_CHECKING

from flax_errors_ext.model.lookup.patterns import (
    example_names,
    keeps_distinctive,
    message_pattern,
    normalise,
)
from flax_errors_ext.model.runs.tracebacks import strip_jax_note

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence

    from flax_errors_ext.model.catalogue.records import ErrorEntry, Example

MIN_SIMILARITY = 0.6
"""How alike a message must be to a documented one to be offered without a match."""
MIN_ALIKE = 0.85
"""How alike a message that matches no pattern must be to answer, its distinctive
values kept (:func:`~flax_errors_ext.model.lookup.patterns.keeps_distinctive`)."""
MIN_FRAGMENT = 20
"""Characters a pasted fragment needs before it may match as part of a message."""
KEEP_CHARS = 16_000
"""Of a long paste, the characters looked at from each end: a traceback's URL and
final message are at its end, a name or URL pasted alone at its start."""
MESSAGE_CHARS = 4_000
"""Of a message, the characters compared by likeness (the cost grows with the square)."""

_NAME = re.compile(r"[\w.]+")
_FRAGMENT = re.compile(r"#([A-Za-z_][\w.]*\w)")
_URL = re.compile(r"https?://[^\s)\]>'\"]+")
_EXCEPTION_LINE = re.compile(r"^(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*: ", re.MULTILINE)
_LINK = re.compile(r"\s*\(https?://[^\s)]*\)|\n\s*See https?://\S*\s*$")
PASTE_SYNTAX = {
    "name": _NAME.pattern,
    "fragment": _FRAGMENT.pattern,
    "url": _URL.pattern,
    "exception_line": _EXCEPTION_LINE.pattern,
    "link": _LINK.pattern,
}
"""How a paste's parts are told apart, for a matcher outside Python (the site search):
``exception_line`` is read line by line (JavaScript's ``m`` flag)."""


@dataclasses.dataclass(frozen=True)
class Match:
    """An entry that answers a query, and why."""

    entry: ErrorEntry
    how: str
    """``name``, ``url``, ``class`` (the text names the error), ``message`` (a
    documented message matches, values aside), ``alike`` (nearly a documented
    message, with its distinctive values) or ``similar`` (a hint, not an answer)."""
    score: float
    """1.0 for a name, URL or class; for messages, how alike they are (0 to 1)."""
    example: Example | None = None
    """For messages, the example whose documented message the query is closest to;
    None where that is a past release's wording."""

    @property
    def certain(self) -> bool:
        """Whether the query identifies the entry rather than resembles it."""
        return self.how in ("name", "url", "class")


def find(
    entries: Sequence[ErrorEntry],
    query: str,
    older: Mapping[str, Sequence[str]] | None = None,
) -> list[Match]:
    """The entries ``query`` means, best first; empty when none is close enough.

    The work is bounded whatever the paste's size: only its first and last
    :data:`KEEP_CHARS` are looked at. ``older``: texts past releases raised, by
    entry (see :mod:`flax_errors_ext.model.lookup.wordings`), matched like the documented ones.
    """
    query = bounded(query).strip()
    if not query:
        return []
    if _NAME.fullmatch(query):
        return by_name(entries, query)
    for finder in (_by_url, _by_class):
        found = finder(entries, query)
        if found:
            return found
    return _by_message(entries, query, older or {})


def looks_like_name(query: str) -> bool:
    """Whether ``query`` is a bare name (a class name or a dotted one), not a message."""
    return bool(_NAME.fullmatch(bounded(query).strip()))


def bounded(text: str, keep: int = KEEP_CHARS) -> str:
    """``text``, or its first and last ``keep`` characters when it is longer."""
    if len(text) <= 2 * keep:
        return text
    return text[:keep] + "\n" + text[-keep:]


def by_name(entries: Sequence[ErrorEntry], name: str) -> list[Match]:
    """Entries whose short or dotted name is ``name``, ignoring case."""
    folded = name.casefold()
    exact = [e for e in entries if name in (e.name, e.qualname)]
    found = exact or [e for e in entries if folded in (e.name.casefold(), e.qualname.casefold())]
    return [Match(entry, "name", 1.0) for entry in found]


def suggest(entries: Sequence[ErrorEntry], query: str, count: int = 3) -> list[str]:
    """Dotted names of the entries closest to ``query``, for a "did you mean" line.

    Only entries about as alike as :data:`MIN_SIMILARITY` are offered: text that
    resembles nothing gets no suggestion rather than unrelated ones.
    """
    query = bounded(query).strip()
    if not _NAME.fullmatch(query):
        close = [m for m in _ranked(entries, query) if m.score >= MIN_SIMILARITY]
        return [m.entry.qualname for m in close[:count]]
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


def _by_url(entries: Sequence[ErrorEntry], query: str) -> list[Match]:
    by_qualname = {e.qualname: e for e in entries}
    fragments = [m.group(1) for url in _URL.findall(query) for m in _FRAGMENT.finditer(url)]
    # The last URL belongs to the error that was raised last, in a chained traceback.
    found = [by_qualname[f] for f in reversed(fragments) if f in by_qualname]
    return [Match(entry, "url", 1.0) for entry in dict.fromkeys(found)]


def _by_class(entries: Sequence[ErrorEntry], query: str) -> list[Match]:
    text = _URL.sub(" ", query)
    positions = {}
    for entry in entries:
        hits = [m.start() for m in re.finditer(rf"(?<![\w]){re.escape(entry.name)}(?!\w)", text)]
        if hits:
            positions[entry.qualname] = (hits[-1], entry)
    # Named last is raised last (the final line of a traceback).
    ordered = sorted(positions.values(), key=lambda hit: hit[0], reverse=True)
    return [Match(entry, "class", 1.0) for _, entry in ordered]


def _by_message(
    entries: Sequence[ErrorEntry], query: str, older: Mapping[str, Sequence[str]]
) -> list[Match]:
    # A message answers when it shows a documented one, values aside, or is nearly
    # the same text with the same distinctive values: JAX's generic errors resemble a
    # documented one word for word except in the value that makes it this error (a
    # string where a Module was passed). Likeness alone is a hint (:func:`nearest`).
    return [m for m in _ranked(entries, query, older) if m.how in ("message", "alike")]


def nearest(
    entries: Sequence[ErrorEntry],
    query: str,
    older: Mapping[str, Sequence[str]] | None = None,
    count: int = 3,
) -> list[Match]:
    """The entries whose messages a pasted error resembles without matching, closest first.

    For a hint beside "not in the catalogue": only those about as alike as
    :data:`MIN_SIMILARITY`.
    """
    ranked = _ranked(entries, bounded(query).strip(), older)
    return [m for m in ranked if m.how == "similar" and m.score >= MIN_SIMILARITY][:count]


_STRENGTH = {"message": 3, "alike": 2, "similar": 1}


def _ranked(
    entries: Sequence[ErrorEntry], query: str, older: Mapping[str, Sequence[str]] | None = None
) -> list[Match]:
    body = message_body(query)[-MESSAGE_CHARS:]
    flat = normalise(body)
    matches = []
    for entry in entries:
        best: tuple[int, float] = (0, 0.0)
        closest: Example | None = None
        texts: list[tuple[Example | None, str]] = [*documented_messages(entry)]
        texts += [(None, strip_class(text)) for text in (older or {}).get(entry.qualname, ())]
        for example, documented in texts:
            known = normalise(documented)
            names = example_names(example) if example is not None else frozenset()
            ratio = difflib.SequenceMatcher(None, known, flat, autojunk=False).ratio()
            if shows(documented, known, body, flat, names=names):
                strength = _STRENGTH["message"]
            elif ratio >= MIN_ALIKE and keeps_distinctive(known, flat):
                strength = _STRENGTH["alike"]
            else:
                strength = _STRENGTH["similar"]
            if (strength, ratio) > best:
                best, closest = (strength, ratio), example
        if best[1] > 0:
            how = next(name for name, value in _STRENGTH.items() if value == best[0])
            matches.append(Match(entry, how, best[1], closest))
    return sorted(matches, key=lambda m: (_STRENGTH[m.how], m.score), reverse=True)


def shows(
    documented: str,
    known: str,
    body: str,
    flat: str,
    min_fragment: int = MIN_FRAGMENT,
    names: frozenset[str] = frozenset(),
) -> bool:
    """Whether a pasted message shows a documented one.

    It does if it holds the whole documented text (its variable parts with any
    value, see :func:`~flax_errors_ext.model.lookup.patterns.message_pattern`), or
    is a part of it at least ``min_fragment`` characters long.

    Args:
        documented: The documented message, without its class.
        known: ``normalise(documented)``.
        body: The pasted message (:func:`message_body`).
        flat: ``normalise(body)``.
        min_fragment: The shortest part of a message that counts.
        names: The names the documented message's example gives, which match any
            name (:func:`~flax_errors_ext.model.lookup.patterns.example_names`).
    """
    if message_pattern(documented, names).search(body):
        return True
    return len(flat) >= min_fragment and flat in known


def documented_messages(entry: ErrorEntry) -> Iterator[tuple[Example, str]]:
    """The documented error messages of an entry's examples that raise, without the class.

    Bad examples, and "also seen as" ones: the message of the error the same
    mistake raises where this one is not in place finds this entry too. Each
    comes with its example.
    """
    for example in entry.examples:
        if not example.kind.raises:
            continue
        for statement in example.statements:
            if statement.exc_msg is not None:
                yield example, strip_class(statement.exc_msg)


def message_body(text: str) -> str:
    """The message of a pasted error: the last exception line on, without its class.

    A whole traceback may be pasted; its final exception line is the one to match.
    JAX's note about filtered frames, when present, is cut off.
    """
    text = strip_jax_note(text.replace("\r\n", "\n"))
    lines = list(_EXCEPTION_LINE.finditer(text))
    if lines:
        text = text[lines[-1].start() :]
    return strip_class(text).strip()


def exception_line(text: str, width: int = 160) -> str:
    """The line of a paste that says what was read: its last exception line.

    A traceback's first line (``Traceback (most recent call last):``) says nothing of
    the error; its final ``Class: message`` line does. Without one, the first line
    that is not blank. Cut to ``width`` characters.
    """
    text = strip_jax_note(bounded(text).replace("\r\n", "\n"))
    lines = list(_EXCEPTION_LINE.finditer(text))
    start = lines[-1].start() if lines else 0
    line = next((line for line in text[start:].split("\n") if line.strip()), "").strip()
    return line if len(line) <= width else line[: width - 3] + "..."


def strip_class(message: str) -> str:
    """The message without its class and without the link Flax appends.

    People paste messages with or without the link, and its base differs between
    Flax's site and this one; the URL step has had its say already.
    """
    match = _EXCEPTION_LINE.match(message)
    message = message[match.end() :] if match else message
    message = _LINK.sub("", message).rstrip()
    return message.removesuffix(doctest.ELLIPSIS_MARKER).rstrip()
