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
import re
from typing import TYPE_CHECKING

from flax_errors_ext.model.lookup.patterns import (
    example_names,
    keeps_distinctive,
    literal_parts,
    message_pattern,
    normalise,
)
from flax_errors_ext.model.runs.tracebacks import TRACEBACK_HEADER, strip_jax_note

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence

    from flax_errors_ext.model.catalogue.records import ErrorEntry, Example

MIN_SIMILARITY = 0.6
"""How alike a message must be to a documented one to be offered without a match."""
MIN_ALIKE = 0.85
"""How alike a message that matches no pattern must be to answer, its distinctive
values kept (:func:`~flax_errors_ext.model.lookup.patterns.keeps_distinctive`)."""
MIN_FIRST_LINE = 40
"""Characters a message's first line needs to stand for the message on its own."""
MIN_FRAGMENT = 20
"""Characters a pasted fragment needs before it may match as part of a message."""
KEEP_CHARS = 16_000
"""Of a long paste, the characters looked at from each end: a traceback's URL and
final message are at its end, a name or URL pasted alone at its start."""
MESSAGE_CHARS = 4_000
"""Of a message, the characters compared by likeness (the cost grows with the square)."""

ELLIPSIS = "..."
"""doctest's ELLIPSIS marker (doctest itself is not imported: the help has no use for it)."""
_NAME = re.compile(r"[\w.]+")
_FRAGMENT = re.compile(r"#([A-Za-z_][\w.]*\w)")
_URL = re.compile(r"https?://[^\s)\]>'\"]+")
_EXCEPTION_LINE = re.compile(r"^(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*: ", re.MULTILINE)
_EXCEPTION_CLASS = re.compile(r"(?:Error|Exception|Warning|Exit|Interrupt|Iteration)$")
_LINK = re.compile(r"\s*\(https?://[^\s)]*\)|\n\s*See https?://\S*\s*$")
PASTE_SYNTAX = {
    "name": _NAME.pattern,
    "fragment": _FRAGMENT.pattern,
    "url": _URL.pattern,
    "exception_line": _EXCEPTION_LINE.pattern,
    "link": _LINK.pattern,
    "exception_class": _EXCEPTION_CLASS.pattern,
    "traceback_header": TRACEBACK_HEADER,
}
"""How a paste's parts are told apart, for a matcher outside Python (the site search):
``exception_line`` is read line by line (JavaScript's ``m`` flag)."""


@dataclasses.dataclass(frozen=True)
class Text:
    """One text a pasted error may show: a documented message, or a past release's."""

    documented: str
    """The message without its class (:func:`strip_class`)."""
    names: frozenset[str] = frozenset()
    """The names the example's code gives, which match any name
    (:func:`~flax_errors_ext.model.lookup.patterns.example_names`)."""
    raised: str = ""
    """The class a paste that names one must name (``ValueError``), "" where any will do
    (:func:`required_class`)."""
    example: int = -1
    """The index of its example in the entry's examples; -1 for a past release's wording."""
    known: str = ""
    """``normalise(documented)``: what likeness is measured on."""
    fixed: tuple[str, ...] = ()
    """The parts a message that shows it must hold as written
    (:func:`~flax_errors_ext.model.lookup.patterns.literal_parts`)."""
    exact: bool = False
    """A :attr:`plain` text that is :func:`terse`: its quoted text is matched as written
    (see :func:`~flax_errors_ext.model.lookup.patterns.message_pattern`)."""
    context: str = ""
    """The package a paste's traceback must show a frame of for the text to answer
    (:func:`generic`): "" where the message tells its error by itself."""
    plain: bool = False
    """A builtin exception's message (a message entry's): a part of it counts only
    as written, and a message merely alike to it never answers."""

    @classmethod
    def of(
        cls,
        documented: str,
        names: frozenset[str] = frozenset(),
        raised: str = "",
        example: int = -1,
        *,
        plain: bool = False,
        library: str = "",
    ) -> Text:
        """A text with its derived forms, as every text is made.

        ``plain``: a message entry's text, :attr:`exact` where it is :func:`terse`;
        ``library``: the package its error comes from, whose frame a
        :func:`generic` message needs in the paste.
        """
        exact = plain and terse(documented)
        return cls(
            documented,
            names,
            raised,
            example,
            normalise(documented),
            literal_parts(documented, names, exact),
            exact,
            library if plain and generic(documented) else "",
            plain,
        )


@dataclasses.dataclass(frozen=True)
class Findable:
    """What finding needs of an entry: its names and its texts.

    Made from an entry (:func:`findable`) for ``explain`` and the site, or read from
    the index the help under a traceback ships with: both are matched by the same
    functions, so they answer alike.
    """

    qualname: str
    texts: tuple[Text, ...]

    @property
    def name(self) -> str:
        """The entry's name without its module or group."""
        return self.qualname.rpartition(".")[2]


def leads(documented: str, *, lines_as_printed: bool = False) -> tuple[str, ...]:
    """The opening parts of a message that stand for it alone: its first sentence and line.

    People often paste only the first line of a long message (Flax's list of
    options and JAX's notes follow it), and a release may add to a message after
    its first sentence. A part counts where it ends a sentence (a docstring may
    wrap a message mid-sentence), says enough (:data:`MIN_FIRST_LINE`) and keeps
    the message's distinctive values. ``lines_as_printed``: the message is written
    with the lines it is printed with (a message entry's file), so its first line
    counts wherever it ends.
    """
    sentence = _SENTENCE_END.split(documented, maxsplit=1)[0]
    line = documented.split("\n", 1)[0].rstrip()
    whole = normalise(documented)
    found = [
        part
        for part in dict.fromkeys((sentence, line))
        if part != documented.strip()
        and len(part) >= MIN_FIRST_LINE
        and (part[-1] in ".:?!" or (lines_as_printed and part == line))
        # What tells this mistake from its neighbours (a Module's type where JAX
        # names any value's) must be in the part, or it would answer for them all.
        and keeps_distinctive(whole, normalise(part))
    ]
    return tuple(found)


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def findable(entry: ErrorEntry, older: Sequence[str] = ()) -> Findable:
    """An entry's names and texts: its examples' documented messages, then ``older``.

    A message's opening sentence and line also stand for it alone (:func:`leads`).
    """
    texts = []
    # A group of message entries is named after its library: flax.messages.
    library = entry.qualname.split(".", 1)[0]
    for n, example in enumerate(entry.examples):
        names, raised = example_names(example), required_class(entry, example)
        for message in _raised_messages(example):
            documented = strip_class(message)
            texts += [
                Text.of(text, names, raised, n, plain=entry.message, library=library)
                for text in (documented, *leads(documented, lines_as_printed=entry.message))
            ]
    texts += [Text.of(strip_class(text)) for text in older]
    return Findable(entry.qualname, tuple(texts))


@dataclasses.dataclass(frozen=True)
class Hit:
    """A findable that answers a query, and why (see :class:`Match`)."""

    found: Findable
    how: str
    score: float
    text: Text | None = None


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
    return _matches(entries, find_hits(_findables(entries, older), query))


def find_hits(findables: Sequence[Findable], query: str) -> list[Hit]:
    """The findables a pasted error means, best first: by URL, by class, by message.

    :func:`find` without the bare names, for whatever holds findables (the help
    under a traceback reads them from its index).
    """
    query = bounded(query).strip()
    if not query:
        return []
    for finder in (_by_url, _by_class):
        found = finder(findables, query)
        if found:
            return found
    ranked = _ranked(findables, query, floor=MIN_ALIKE)
    return [h for h in ranked if h.how in ("message", "alike")]


def _findables(
    entries: Sequence[ErrorEntry], older: Mapping[str, Sequence[str]] | None
) -> list[Findable]:
    return [findable(entry, (older or {}).get(entry.qualname, ())) for entry in entries]


def _matches(entries: Sequence[ErrorEntry], hits: Sequence[Hit]) -> list[Match]:
    by_qualname = {entry.qualname: entry for entry in entries}
    matches = []
    for hit in hits:
        entry = by_qualname[hit.found.qualname]
        example = (
            entry.examples[hit.text.example]
            if hit.text is not None and hit.text.example >= 0
            else None
        )
        matches.append(Match(entry, hit.how, hit.score, example))
    return matches


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
    fragments = [m.group(1) for url in _URL.findall(query) for m in _FRAGMENT.finditer(url)]
    # The last URL belongs to the error that was raised last, in a chained traceback.
    found = [by_qualname[f] for f in reversed(fragments) if f in by_qualname]
    return [Hit(item, "url", 1.0) for item in dict.fromkeys(found)]


def _by_class(findables: Sequence[Findable], query: str) -> list[Hit]:
    text = _URL.sub(" ", query)
    positions = {}
    for item in findables:
        if item.name not in text:
            continue  # the pattern below would find nothing: spare compiling it
        hits = [m.start() for m in re.finditer(rf"(?<![\w]){re.escape(item.name)}(?!\w)", text)]
        if hits:
            positions[item.qualname] = (hits[-1], item)
    # Named last is raised last (the final line of a traceback).
    ordered = sorted(positions.values(), key=lambda hit: hit[0], reverse=True)
    return [Hit(item, "class", 1.0) for _, item in ordered]


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
    found = _ranked(_findables(entries, older), bounded(query).strip(), floor=MIN_SIMILARITY)
    ranked = _matches(entries, found)
    return [m for m in ranked if m.how == "similar" and m.score >= MIN_SIMILARITY][:count]


_STRENGTH = {"message": 3, "alike": 2, "similar": 1}


def _ranked(findables: Sequence[Findable], query: str, floor: float = 0.0) -> list[Hit]:
    # A message answers when it shows a documented one, values aside, or is nearly
    # the same text with the same distinctive values: JAX's generic errors resemble a
    # documented one word for word except in the value that makes it this error (a
    # string where a Module was passed). Likeness alone is a hint (:func:`nearest`).
    body = message_body(query)[-MESSAGE_CHARS:]
    flat = normalise(body)
    raised = pasted_class(query)
    # One matcher for the paste: it indexes its second sequence once, not per text.
    matcher = difflib.SequenceMatcher(None, "", flat, autojunk=False)
    hits = []
    for item in findables:
        best: tuple[int, float] = (0, 0.0)
        closest: Text | None = None
        for text in item.texts:
            if raised and text.raised and text.raised != raised:
                continue  # a builtin's message answers only a paste of its class
            if text.context and not shows_frame(query, text.context):
                continue  # Python's own words for any object: which one, the frames say
            known = text.known
            matcher.set_seq1(known)
            showing = _shows(text, body, flat)
            # A text that does not show the message counts only as alike as ``floor``
            # asks: the bounds spare comparing it with the paste character by character.
            if not showing and (
                matcher.real_quick_ratio() < floor or matcher.quick_ratio() < floor
            ):
                continue
            ratio = matcher.ratio()
            if showing:
                strength = _STRENGTH["message"]
            elif ratio >= MIN_ALIKE and not text.plain and keeps_distinctive(known, flat):
                strength = _STRENGTH["alike"]
            else:
                strength = _STRENGTH["similar"]
            if (strength, ratio) > best:
                best, closest = (strength, ratio), text
        if best[1] > 0:
            how = next(name for name, value in _STRENGTH.items() if value == best[0])
            hits.append(Hit(item, how, best[1], closest))
    return sorted(hits, key=lambda h: (_STRENGTH[h.how], h.score), reverse=True)


QUOTED_TEXT = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"|`[^`\n]*`")
"""Quoted text in a message, as :mod:`~flax_errors_ext.model.lookup.patterns` tells it."""
GENERIC = re.compile(
    r"'[^']*'"
    r"|'[^']*' object (?:is not (?:iterable|subscriptable|callable)"
    r"|has no attribute '[^']*'|does not support item (?:assignment|deletion))"
    r"|object of type '[^']*' has no len\(\)"
    r"|unhashable type: '[^']*'"
    r"|(?:list|tuple|string) index out of range"
    r"|(?:not enough|too many) values to unpack.*"
    r"|unsupported operand type\(s\) for .*"
    r"|[\w.<>]+\(\) (?:got an unexpected keyword argument '[^']*'"
    r"|missing \d+ required (?:positional|keyword-only) arguments?: .*"
    r"|takes \d+ positional arguments? but \d+ (?:was|were) given)"
)
"""Python's own messages about any object (``'int' object is not iterable``): a
library's error worded so tells nothing of where it came from, and a message entry
of one answers only a paste whose traceback shows a frame of its library."""


MIN_WORDING = 40
"""Characters of wording, quoted text aside, that let a builtin's message tell its
error by its wording alone (see :func:`terse`)."""


def terse(documented: str) -> bool:
    """Whether a builtin exception's message says too little without its quoted text.

    ``module 'flax' has no attribute 'optim'`` is told from ``... 'nn'`` only by
    what it quotes, so such a message entry's quoted text is matched as written;
    a longer wording (``Cannot assign data value of type ... to static attribute
    'decoder' ...``) quotes the reader's own values, which then match any.
    """
    return len(" ".join(QUOTED_TEXT.sub("", documented).split())) < MIN_WORDING


def generic(documented: str) -> bool:
    """Whether a message is one of Python's own about any object (:data:`GENERIC`)."""
    return GENERIC.fullmatch(" ".join(documented.split())) is not None


def shows_frame(text: str, package: str) -> bool:
    """Whether a pasted traceback has a frame in a file of ``package``."""
    return re.search(rf'File "[^"\n]*[/\\]{re.escape(package)}[/\\][^"\n]*"', text) is not None


def pasted_class(text: str) -> str:
    """The class a pasted error names on its last exception line, without its module.

    "" where the paste is a message alone.
    """
    text = strip_jax_note(bounded(text).replace("\r\n", "\n"))
    start = raised_line(text)
    if start is None:
        return ""
    line = _EXCEPTION_LINE.match(text, start)
    return line.group(0).rstrip(": ").rpartition(".")[2] if line else ""


def required_class(entry: ErrorEntry, example: Example) -> str:
    """The class a paste must name, if it names one, to match ``example``'s text.

    "" where any will do; the site search asks the same.
    A builtin exception's message says little by itself (``KeyError: 'lr'``): a
    message entry's text, or the other error an "also seen as" example documents,
    answers only a paste of the same class. An error class's own text is matched on
    its wording alone, since a library that adds the class keeps the message.
    """
    # Imported here: the help under a traceback matches texts read from its index,
    # and never needs the records (nor doctest, which they import).
    from flax_errors_ext.model.catalogue.records import ExampleKind

    if not (entry.message or example.kind is ExampleKind.SEEN_AS):
        return ""
    return (example.documented_class or "").rpartition(".")[2]


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
    fixed = literal_parts(documented, names)
    return _shows(Text(documented, names, known=known, fixed=fixed), body, flat, min_fragment)


def _shows(text: Text, body: str, flat: str, min_fragment: int = MIN_FRAGMENT) -> bool:
    """:func:`shows` for a text whose derived forms are made.

    The part of a plain text is a part of it as written: its quoted values count.
    """
    if all(part in body for part in text.fixed) and (
        message_pattern(text.documented, text.names, text.exact).search(body)
    ):
        return True
    if text.plain:
        pasted = " ".join(body.casefold().split())
        return len(pasted) >= min_fragment and pasted in " ".join(
            text.documented.casefold().split()
        )
    return len(flat) >= min_fragment and flat in text.known


def documented_messages(entry: ErrorEntry) -> Iterator[tuple[Example, str]]:
    """The documented error messages of an entry's examples that raise, without the class.

    Bad examples, and "also seen as" ones: the message of the error the same
    mistake raises where this one is not in place finds this entry too. Each
    comes with its example.
    """
    for example in entry.examples:
        for message in _raised_messages(example):
            yield example, strip_class(message)


def _raised_messages(example: Example) -> Iterator[str]:
    """The documented exception lines of an example that raises; none of one that runs."""
    if example.kind.raises:
        yield from (s.exc_msg for s in example.statements if s.exc_msg is not None)


def message_body(text: str) -> str:
    """The message of a pasted error: its exception line on, without its class.

    A whole traceback may be pasted: see :func:`raised_line` for which line that is.
    JAX's note about filtered frames, when present, is cut off.
    """
    text = strip_jax_note(text.replace("\r\n", "\n"))
    start = raised_line(text)
    return strip_class(text[start:] if start is not None else text).strip()


def raised_line(text: str) -> int | None:
    """Where the exception line of the error raised last starts in ``text``, if it has one.

    After the last traceback header (a chained traceback's last error is its own),
    the first line that names an exception class (``ValueError:``): a message may
    quote another error on a later line of its own (JAX's "The error was:
    TypeError: unhashable type"). Where no class there looks like one, the last
    ``Name:`` line (a log's ``loss: 0.5`` is none).
    """
    header = text.rfind(TRACEBACK_HEADER)
    lines = [m for m in _EXCEPTION_LINE.finditer(text) if m.start() > header]
    if not lines:
        return None
    named = [m for m in lines if _EXCEPTION_CLASS.search(m.group(0).rstrip(": "))]
    return (named[0] if named else lines[-1]).start()


def exception_line(text: str, width: int = 160) -> str:
    """The line of a paste that says what was read: its last exception line.

    A traceback's first line (``Traceback (most recent call last):``) says nothing of
    the error; its final ``Class: message`` line does. Without one, the first line
    that is not blank. Cut to ``width`` characters.
    """
    text = strip_jax_note(bounded(text).replace("\r\n", "\n"))
    start = raised_line(text) or 0
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
    return message.removesuffix(ELLIPSIS).rstrip()
