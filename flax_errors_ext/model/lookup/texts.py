"""The texts an entry is found by: its documented messages, and how each may match."""

from __future__ import annotations

import ast
import builtins
import dataclasses
import re
import textwrap
from typing import TYPE_CHECKING

from flax_errors_ext.model.lookup.paste import ELLIPSIS, code_form, strip_class
from flax_errors_ext.model.lookup.patterns import (
    example_names,
    keeps_distinctive,
    library_classes,
    literal_parts,
    normalise,
)

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping, Sequence

    from flax_errors_ext.model.catalogue.records import ErrorEntry, Example
    from flax_errors_ext.model.runs.entry_record import EntryRecord

MIN_FIRST_LINE = 40
"""Characters a message's first line needs to stand for the message on its own."""


@dataclasses.dataclass(frozen=True)
class Text:
    """One text a pasted error may show: a documented message, or a past release's."""

    documented: str
    """The message without its class."""
    names: frozenset[str] = frozenset()
    """The example's names, which match any name."""
    raised: str = ""
    """The class a paste that names one must name, "" where any will do."""
    example: int = -1
    """The index of its example in the entry's; -1 for a past release's wording."""
    known: str = ""
    """``normalise(documented)``: what likeness is measured on."""
    fixed: tuple[str, ...] = ()
    """The parts a message that shows it holds as written."""
    exact: bool = False
    """A :attr:`plain` text that is :func:`terse`: its quoted text is matched as written."""
    context: str = ""
    """The package a paste's traceback must show a frame of (:func:`generic`), or ""."""
    plain: bool = False
    """A builtin exception's message: a part counts only as written, a likeness never."""
    sites: tuple[str, ...] = ()
    """Files its example's runs raised it in: raised elsewhere there, it is another cause."""
    specific: int = 0
    """The library's own classes it names (:func:`library_classes`): of two texts a paste
    shows, the one that names more says more (an NNX ``Param``, not any Module)."""
    code: str = ""
    """For Python's words for any object, raised in the reader's own code: the call whose
    result they were about (``.pop('params')``). A paste whose code shows it
    (:func:`~flax_errors_ext.model.lookup.paste.shows_code`) needs no frame of
    :attr:`context`."""

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
        sites: Sequence[str] = (),
        call: str = "",
    ) -> Text:
        """A text with its derived forms; ``library``: the package of its error.

        ``call``: the call of the statement that raised it (:func:`failing_call`).
        """
        exact = plain and terse(documented)
        # Where its runs raised Python's words in the reader's own code, no library frame
        # need show: values Python does not define, written as documented, tell; or the
        # call the words are about, where the paste's code shows it.
        unframed = exact and not sites and names_beyond_python(documented, names)
        code = call if plain and generic(documented) and not unframed and not sites else ""
        return cls(
            documented,
            names,
            raised,
            example,
            normalise(documented),
            literal_parts(documented, names, exact),
            exact,
            # Python's words for any object: a frame where its runs raised it says which.
            (sites[0].split("/", 1)[0] if sites else library)
            if plain and generic(documented) and not unframed
            else "",
            plain,
            tuple(sites),
            library_classes(documented, names),
            code,
        )


@dataclasses.dataclass(frozen=True)
class Findable:
    """What finding needs of an entry: its names and its texts."""

    qualname: str
    texts: tuple[Text, ...]

    @property
    def name(self) -> str:
        """The entry's name without its module or group."""
        return self.qualname.rpartition(".")[2]


def leads(documented: str, *, lines_as_printed: bool = False) -> tuple[str, ...]:
    """The opening parts of a message that stand for it alone: its first sentences and line.

    People often paste only the first line, or a message cut after a sentence, and a
    release may add to a message after its first sentence. Of the openings that end
    a sentence, the shortest that keeps what tells this mistake from its neighbours
    (a Module's type). ``lines_as_printed``: the first line counts wherever it ends.
    """
    whole = normalise(documented)
    ends = [m.start() for m in _SENTENCE_END.finditer(documented)]
    sentences = (documented[:end] for end in ends)
    sentence = next(
        (
            s
            for s in sentences
            if len(s) >= MIN_FIRST_LINE and keeps_distinctive(whole, normalise(s))
        ),
        "",
    )
    line = documented.split("\n", 1)[0].rstrip()
    return tuple(
        part
        for part in dict.fromkeys((sentence, line))
        if part != documented.strip()
        and len(part) >= MIN_FIRST_LINE
        and (part[-1] in ".:?!" or (lines_as_printed and part == line))
        and keeps_distinctive(whole, normalise(part))
    )


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def findable(
    entry: ErrorEntry, older: Sequence[str] = (), sites: Mapping[int, Sequence[str]] | None = None
) -> Findable:
    """An entry's texts: its examples' documented messages and their :func:`leads`, ``older``."""
    texts = []
    # A group of message entries is named after its library: flax.messages.
    library = entry.qualname.split(".", 1)[0]
    for example, documented in documented_messages(entry):
        n = entry.examples.index(example)
        names, raised = example_names(example), required_class(entry, example)
        raising = next((s for s in example.statements if s.exc_msg is not None), None)
        call = failing_call(raising.source) if raising is not None else ""
        texts += [
            Text.of(
                text,
                names,
                raised,
                n,
                plain=entry.message,
                library=library,
                sites=(sites or {}).get(n, ()),
                call=call,
            )
            for text in (documented, *leads(documented, lines_as_printed=entry.message))
        ]
    texts += [Text.of(strip_class(text)) for text in older]
    return Findable(entry.qualname, tuple(texts))


def failing_call(source: str) -> str:
    """The outermost call of a statement, where its arguments are literals: ``.pop('params')``.

    As :func:`~flax_errors_ext.model.lookup.paste.code_form` writes code; "" where the
    statement makes no such call (a call of variables alone says too little of which).
    """
    try:
        tree = ast.parse(textwrap.dedent(source))
    except SyntaxError:
        return ""
    call = next((node for node in ast.walk(tree) if isinstance(node, ast.Call)), None)
    if call is None or not isinstance(call.func, (ast.Attribute, ast.Name)):
        return ""
    arguments = [*call.args, *(k.value for k in call.keywords)]
    if not arguments or not all(isinstance(a, ast.Constant) for a in arguments):
        return ""
    name = f".{call.func.attr}" if isinstance(call.func, ast.Attribute) else call.func.id
    given = [ast.unparse(a) for a in call.args]
    given += [f"{k.arg}={ast.unparse(k.value)}" for k in call.keywords]
    return code_form(f"{name}({', '.join(given)})")


def raise_sites(
    entries: Iterable[ErrorEntry], records: Iterable[EntryRecord], roots: Sequence[str] = ()
) -> dict[str, dict[int, tuple[str, ...]]]:
    """Where runs raised each entry's examples: by entry and example (its index), the files."""
    # Imported here, as in required_class: the help reads sites from its index.
    from flax_errors_ext.model.runs.entry_record import relative_source

    by_qualname = {entry.qualname: entry for entry in entries}
    sites: dict[str, dict[int, tuple[str, ...]]] = {}
    for record in records:
        entry = by_qualname.get(record.qualname)
        if entry is None or [e.kind for e in entry.examples] != [e.kind for e in record.examples]:
            continue  # a record of other examples than the entry's now
        for n, example in enumerate(record.examples):
            file = relative_source(example.raised_at, roots).rpartition(":")[0]
            known = sites.setdefault(record.qualname, {}).get(n, ())
            if file and file not in known:
                sites[record.qualname][n] = (*known, file)
    return sites


QUOTED_TEXT = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"|`[^`\n]*`")
GENERIC = re.compile(
    r"'[^']*'"
    r"|'[^']*' object (?:is not (?:iterable|subscriptable|callable)"
    r"|has no attribute '[^']*'|does not support item (?:assignment|deletion))"
    r"|object of type '[^']*' has no len\(\)"
    r"|unhashable type: '[^']*'"
    r"|cannot (?:assign to|delete) field '[^']*'"
    r"|(?:list|tuple|string) index out of range"
    r"|(?:not enough|too many) values to unpack.*"
    r"|unsupported operand type\(s\) for .*"
    r"|[\w.<>]+\(\) (?:got an unexpected keyword argument '[^']*'"
    r"|missing \d+ required (?:positional|keyword-only) arguments?: .*"
    r"|takes \d+ positional arguments? but \d+ (?:was|were) given)"
    # JAX's words for any function with a keyword-only parameter, copied by NNX's transforms.
    r"|keyword arguments could not be resolved to positions"
)
"""Python's and JAX's messages about any object: answered only with a frame of the library."""


MIN_WORDING = 40
"""Characters of wording, quoted text aside, that tell a builtin's message alone."""


def terse(documented: str) -> bool:
    """Whether a builtin's message says too little without its quoted text (``'optim'``)."""
    return len(" ".join(QUOTED_TEXT.sub("", documented).split())) < MIN_WORDING


def generic(documented: str) -> bool:
    """Whether a message is one of Python's own about any object."""
    return GENERIC.fullmatch(" ".join(documented.split())) is not None


_PYTHON_NAMES = frozenset(dir(builtins)).union(
    *(dir(kind) for kind in (dict, list, tuple, set, str, bytes, int, float, complex, bool)),
    {"NoneType"},
)


def names_beyond_python(documented: str, names: frozenset[str] = frozenset()) -> bool:
    """Whether Python's words name, quoted, what Python does not define (``'unfreeze'``).

    A message that is a quoted value alone (a ``KeyError``'s key) names nothing, nor does
    a name the example gives (``names``), which stands for any of the reader's: a field
    of a frozen dataclass is any dataclass's.
    """
    if QUOTED_TEXT.fullmatch(documented.strip()):
        return False
    values = (quoted[1:-1] for quoted in QUOTED_TEXT.findall(documented))
    return any(
        value not in _PYTHON_NAMES and value not in names and value != ELLIPSIS
        for value in values
        if value
    )


def required_class(entry: ErrorEntry, example: Example) -> str:
    """The class a paste must name, if any, to match ``example``'s text (``KeyError: 'lr'``)."""
    # Imported here: the help never needs the records (nor doctest, which they import).
    from flax_errors_ext.model.catalogue.records import ExampleKind

    if not (entry.message or example.kind is ExampleKind.SEEN_AS):
        return ""
    return (example.documented_class or "").rpartition(".")[2]


def documented_messages(entry: ErrorEntry) -> Iterator[tuple[Example, str]]:
    """Each example's documented error messages, without the class, with the example."""
    for example in entry.examples:
        if example.kind.raises:
            for statement in example.statements:
                if statement.exc_msg is not None:
                    # doctest's marker for a blank line is no text a reader pastes (spelt
                    # out: the help, which reads these texts, never imports doctest).
                    message = statement.exc_msg.replace("<BLANKLINE>", "")
                    yield example, strip_class(message)
