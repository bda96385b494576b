"""The typed records every other module passes around, and what keeps an example out."""

from __future__ import annotations

import dataclasses
import doctest
import enum
from typing import TYPE_CHECKING, Any

from flax_errors_ext.layout import DEFAULT_LAYOUT
from flax_errors_ext.model.catalogue.conditions import Condition, holds

if TYPE_CHECKING:
    from collections.abc import Mapping

    from flax_errors_ext.layout import EntryLocation


def first_paragraph(text: str) -> tuple[str, int]:
    """The first paragraph of reST text as one line, and the line its rest starts at."""
    lines = text.split("\n")
    start = next((i for i, line in enumerate(lines) if line.strip()), len(lines))
    end = next((i for i in range(start, len(lines)) if not lines[i].strip()), len(lines))
    rest = next((i for i in range(end, len(lines)) if lines[i].strip()), len(lines))
    return " ".join(line.strip() for line in lines[start:end]), rest


@enum.unique
class ExampleKind(enum.StrEnum):
    """Whether an example must raise its error (bad) or run cleanly (good, unreachable).

    An unreachable one prints the evidence, so that the claim drifts with the library.
    """

    BAD = "bad"
    GOOD = "good"
    UNREACHABLE = "unreachable"
    SEEN_AS = "seen-as"
    """The same mistake's error where this one is not in place: checked like a bad example."""
    UPSTREAM = "upstream"
    """Another project's docstring statements, run as its doctest would: verdicts are its own."""

    @property
    def section_title(self) -> str:
        """The section title in a docstring, without its colon: ``Bad example``."""
        return _SECTION_TITLES.get(self, f"{self.capitalize()} example")

    @property
    def heading(self) -> str:
        """The heading above such an example on the site."""
        return _HEADINGS.get(self, self.section_title)

    @property
    def raises(self) -> bool:
        """Whether such an example ends in a documented traceback."""
        return self in (ExampleKind.BAD, ExampleKind.SEEN_AS)

    @property
    def ours(self) -> bool:
        """Whether such examples are written for this catalogue (all but upstream)."""
        return self is not ExampleKind.UPSTREAM


_SECTION_TITLES = {ExampleKind.UNREACHABLE: "Unreachable", ExampleKind.SEEN_AS: "Also seen as"}
_HEADINGS = {
    ExampleKind.UNREACHABLE: "Why it cannot be raised",
    ExampleKind.UPSTREAM: "The library's own examples",
    ExampleKind.SEEN_AS: "What you may see instead",
}


@enum.unique
class Verdict(enum.StrEnum):
    """What happened when an example ran; a failing one is the warning subtype of its name."""

    PASSED = "passed"
    DRIFTED = "drifted"
    NO_RAISE = "no-raise"
    WRONG_CLASS = "wrong-class"
    RAISED = "raised"
    TOO_LOOSE = "too-loose"
    TIMED_OUT = "timed-out"
    CRASHED = "crashed"
    NOT_RUN = "not-run"
    """Execution is off, or an earlier example of the entry ended the run."""
    OTHER_VERSIONS = "other-versions"
    """Not run: its ``:holds for:`` line names other versions than the run's."""

    @property
    def failed(self) -> bool:
        """Whether this verdict fails the build."""
        return self not in (Verdict.PASSED, Verdict.NOT_RUN, Verdict.OTHER_VERSIONS)

    @property
    def may_be_transient(self) -> bool:
        """Whether the run itself may be at fault (memory, a missing file): not cached."""
        return self in (Verdict.RAISED, Verdict.WRONG_CLASS, Verdict.TIMED_OUT, Verdict.CRASHED)


@dataclasses.dataclass(frozen=True)
class Location:
    """A place in a source file; its ``str`` is the ``file:line`` editors jump to."""

    path: str
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


@dataclasses.dataclass(frozen=True)
class Statement:
    """One ``>>>`` statement of a doctest block with what it documents."""

    source: str
    want: str
    exc_msg: str | None
    """Documented final traceback line (``module.Class: message``), if any."""
    location: Location
    options: tuple[tuple[int, bool], ...] = ()
    """doctest's inline options (``# doctest: +SKIP``), as (flag, enabled) pairs."""
    want_line: int = 0
    """The file line where ``want`` starts (or would go, when none); 0 when unknown."""

    @property
    def skip(self) -> bool:
        """Whether doctest would skip this statement."""
        return dict(self.options).get(doctest.SKIP, False)

    @property
    def documented_class(self) -> str | None:
        """The dotted class name the documented traceback names."""
        return None if self.exc_msg is None else self.exc_msg.split(":", 1)[0].strip()


@dataclasses.dataclass(frozen=True)
class Example:
    """One ``Bad example:`` or ``Good example:`` section of a docstring."""

    kind: ExampleKind
    statements: tuple[Statement, ...]
    description: str
    """reST prose that precedes the first ``>>>`` of the section."""
    location: Location
    holds_for: tuple[Condition, ...] = ()
    """Its ``:holds for:`` line; empty: all versions."""

    def holds(self, versions: Mapping[str, str]) -> bool:
        """Whether the example is true of a run with these package versions."""
        return holds(self.holds_for, versions)

    @property
    def statements_run(self) -> tuple[Statement, ...]:
        """The statements that run (not ``+SKIP``): a run records one result for each."""
        return tuple(s for s in self.statements if not s.skip)

    @property
    def documented_class(self) -> str | None:
        """The class its last statement that runs documents."""
        run = self.statements_run
        return run[-1].documented_class if run else None

    def __str__(self) -> str:
        return f"{self.location} ({self.kind.value} example)"


@dataclasses.dataclass(frozen=True)
class FormatProblem:
    """A docstring that breaks the catalogue format."""

    message: str
    location: Location

    def __str__(self) -> str:
        return f"{self.location}: {self.message}"


@dataclasses.dataclass(frozen=True)
class Prose:
    """reST text from one file, with the file line of each of its lines."""

    text: str
    path: str
    lines: tuple[int, ...]
    foreign: bool = False
    """From a docstring this project cannot edit (Flax's): its markup is not ours to fix."""


@dataclasses.dataclass(frozen=True)
class ErrorEntry:
    """One catalogued error class and everything its docstring documents."""

    qualname: str
    summary: str
    prose: tuple[Prose, ...]
    """The explanation, opening with the summary's paragraph (see :attr:`details`)."""
    examples: tuple[Example, ...]
    problems: tuple[FormatProblem, ...]
    location: Location
    located: EntryLocation | None = None
    """Where discovery placed it by the configured layout; None: read on its own."""
    message: bool = False
    """Whether it documents an error raised as a builtin exception (named, not a class)."""

    @property
    def raised_as(self) -> tuple[str, ...]:
        """A message entry's classes that its bad examples raise, each once; else empty."""
        if not self.message:
            return ()
        bad = (e.documented_class for e in self.examples if e.kind is ExampleKind.BAD)
        return tuple(dict.fromkeys(name for name in bad if name))

    @property
    def site(self) -> EntryLocation:
        """Where the entry lives on the site; unplaced, where the default layout puts it."""
        return self.located or DEFAULT_LAYOUT.locate(self.qualname)

    @property
    def details(self) -> tuple[Prose, ...]:
        """The prose without the paragraph that repeats the summary (never a foreign one's)."""
        trimmed = []
        for passage in self.prose:
            opening, rest = first_paragraph(passage.text)
            lines = passage.text.split("\n")
            if passage.foreign or opening != self.summary:
                trimmed.append(passage)
            elif rest < len(lines):
                text = "\n".join(lines[rest:])
                trimmed.append(dataclasses.replace(passage, text=text, lines=passage.lines[rest:]))
        return tuple(trimmed)

    def unreachable_with(self, versions: Mapping[str, str]) -> bool:
        """Whether the examples that hold for these versions show the error cannot be raised."""
        kinds = {example.kind for example in self.examples if example.holds(versions)}
        return ExampleKind.UNREACHABLE in kinds and ExampleKind.BAD not in kinds

    @property
    def name(self) -> str:
        """The class name without its module."""
        return self.qualname.rpartition(".")[2]

    @property
    def module(self) -> str:
        """The dotted name of the module that defines the class."""
        return self.qualname.rpartition(".")[0]

    @property
    def documented(self) -> bool:
        """Whether the entry has at least one example of the catalogue's own."""
        return any(example.kind.ours for example in self.examples)

    def __str__(self) -> str:
        return f"{self.location} ({self.qualname})"


@dataclasses.dataclass(frozen=True)
class StatementRun:
    """What one statement did in the entry's process, as doctest would have seen it."""

    got: str = ""
    exc_type: str | None = None
    exc_msg: str | None = None
    transcript: str = ""
    """The output and, if it raised, the traceback, as doctest would print them."""
    seconds: float = 0.0

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> StatementRun:
        """Read the record the entry's process sent (its keys are the field names)."""
        return cls(**{f.name: data[f.name] for f in dataclasses.fields(cls) if f.name in data})


@dataclasses.dataclass(frozen=True)
class ExampleResult:
    """The verdict on one example, with the evidence for it."""

    example: Example
    verdict: Verdict
    expected: str
    actual: str
    runs: tuple[StatementRun, ...]
    seconds: float
    detail: str = ""
    diff: str = ""
    failed_at: Location | None = None
    log: str = ""
    """The traceback of this package's own error that kept the example from running."""

    @property
    def location(self) -> Location:
        """Where to look: the failing statement, else the example."""
        return self.failed_at or self.example.location

    def __str__(self) -> str:
        return f"{self.example}: {self.verdict.value}"


def statement_problem(item: doctest.Example, location: Location) -> FormatProblem | None:
    """What keeps a doctest statement out of the catalogue, at its line, if anything."""
    if item.options.get(doctest.IGNORE_EXCEPTION_DETAIL):
        return FormatProblem(
            "IGNORE_EXCEPTION_DETAIL would hide drift in the error text; "
            "use ... (ELLIPSIS) for the parts that truly vary",
            location,
        )
    return syntax_problem(item, location)


def syntax_problem(item: doctest.Example, location: Location) -> FormatProblem | None:
    """A statement that does not compile, said at the line of the error."""
    try:
        compile(item.source, str(location), "single")
    except SyntaxError as error:
        line = location.line + max((error.lineno or 1) - 1, 0)
        return FormatProblem(f"broken doctest syntax: {error.msg}", Location(location.path, line))
    return None


def kind_problems(example: Example, qualname: str, own_class: str | None) -> list[FormatProblem]:
    """What is wrong with an example for its kind; ``own_class`` None: a message entry's."""
    run = example.statements_run
    last = run[-1] if run and run[-1].exc_msg is not None else None  # the traceback it ends in
    if example.kind is ExampleKind.SEEN_AS:
        if last is not None and last.documented_class != own_class:
            return []
        message = (
            "'Also seen as:' must end in the documented traceback of the error raised "
            f"where {qualname} is not (another class)"
        )
    elif example.kind is not ExampleKind.BAD:
        what = "a good example" if example.kind is ExampleKind.GOOD else "evidence"
        message = f"{what} must run cleanly, but this statement documents a traceback"
        return [FormatProblem(message, s.location) for s in run if s.exc_msg is not None]
    elif last is None:
        message = (
            f"a bad example must end in the documented traceback of "
            f"{own_class or 'the error it documents'} ('Traceback (most recent call "
            f"last):' ... '{own_class or 'ValueError'}: <message>')"
        )
    elif own_class is not None and last.documented_class != own_class:
        message = (
            f"this bad example documents {last.documented_class}, but it belongs to {qualname}"
        )
        return [FormatProblem(message, last.location)]
    else:
        return []
    return [FormatProblem(message, example.location)]
