"""The typed records every other module passes around."""

from __future__ import annotations

import dataclasses
import doctest
import enum
from typing import TYPE_CHECKING, Any

from flax_errors_ext.layout import DEFAULT_LAYOUT
from flax_errors_ext.model.catalogue.conditions import Condition, holds
from flax_errors_ext.model.catalogue.descriptions import first_paragraph

if TYPE_CHECKING:
    from collections.abc import Mapping

    from flax_errors_ext.layout import EntryLocation


@enum.unique
class ExampleKind(enum.StrEnum):
    """Whether an example must raise its error (bad) or run cleanly (good).

    An ``unreachable`` section runs like a good example: it checks and prints the
    evidence that the error cannot be raised, so that the claim drifts when the
    library changes.
    """

    BAD = "bad"
    GOOD = "good"
    UNREACHABLE = "unreachable"
    SEEN_AS = "seen-as"
    """The same mistake raising another error where this one is not in place (JAX's
    own ``TypeError`` where :func:`flax_errors_ext.install` was not called): checked
    like a bad example, and what a pasted message of that other error finds."""
    UPSTREAM = "upstream"
    """The doctest statements of another project's docstring (JAX's), run as that
    project's doctest would; their verdicts are the library's, not the catalogue's."""

    @property
    def section_title(self) -> str:
        """The section title in a docstring, without its colon: ``Bad example``."""
        return _SECTION_TITLES.get(self, f"{self.capitalize()} example")

    @property
    def heading(self) -> str:
        """What a reader sees above such an example on the site."""
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
    """What happened when an example ran, compared with what its docstring says.

    A failing verdict is logged as the warning subtype of its name, whose
    description says what it means
    (:class:`~flax_errors_ext.model.warning_subtypes.WarningSubtype`).
    """

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
    """The example holds for other package versions than the run's (its ``:holds
    for:`` line), so it was not run: neither a pass nor a failure of this run."""

    @property
    def failed(self) -> bool:
        """Whether this verdict fails the build."""
        return self not in (Verdict.PASSED, Verdict.NOT_RUN, Verdict.OTHER_VERSIONS)

    @property
    def may_be_transient(self) -> bool:
        """Whether the run itself may be at fault (an exception nobody documented).

        Such a run is not kept in the cache: the cause (a missing file, memory, an
        event loop) may be gone by the next build. Drift and no-raise are facts of
        the code under the cache's key, and stay cached.
        """
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
    """Documented output when no exception is expected."""
    exc_msg: str | None
    """Documented final traceback line (``module.Class: message``), if any."""
    location: Location
    options: tuple[tuple[int, bool], ...] = ()
    """doctest's inline options (``# doctest: +SKIP``), as (flag, enabled) pairs."""
    want_line: int = 0
    """The file line where the documented output (``want``) starts, right after the
    source; where output would go when none is documented. 0 when unknown."""

    @property
    def skip(self) -> bool:
        """Whether doctest would skip this statement."""
        return dict(self.options).get(doctest.SKIP, False)

    @property
    def documented_class(self) -> str | None:
        """The dotted class name the documented traceback names."""
        if self.exc_msg is None:
            return None
        return self.exc_msg.split(":", 1)[0].strip()


@dataclasses.dataclass(frozen=True)
class Example:
    """One ``Bad example:`` or ``Good example:`` section of a docstring."""

    kind: ExampleKind
    statements: tuple[Statement, ...]
    description: str
    """reST prose that precedes the first ``>>>`` of the section."""
    location: Location
    holds_for: tuple[Condition, ...] = ()
    """The versions the example is true of (its ``:holds for:`` line); empty: all."""

    def holds(self, versions: Mapping[str, str]) -> bool:
        """Whether the example is true of a run with these package versions."""
        return holds(self.holds_for, versions)

    @property
    def statements_run(self) -> tuple[Statement, ...]:
        """The statements that run (not ``+SKIP``): a run records one result for each."""
        return tuple(s for s in self.statements if not s.skip)

    @property
    def documented_class(self) -> str | None:
        """The class the traceback it ends in names (the last statement that runs)."""
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
    """The explanation: reST outside the example sections. In our own format it
    opens with the summary's paragraph (see :attr:`details` for the rest).

    Several passages when an entry adds notes to a docstring it cannot edit.
    """
    examples: tuple[Example, ...]
    problems: tuple[FormatProblem, ...]
    location: Location
    located: EntryLocation | None = None
    """Where discovery placed the entry on the site, by the configured layout; None
    for an entry read on its own (see :attr:`site`)."""
    message: bool = False
    """Whether the entry documents an error a library raises as a builtin exception
    (a message entry): ``qualname`` then names the entry, not a class."""

    @property
    def raised_as(self) -> tuple[str, ...]:
        """A message entry's classes, each once, that its bad examples raise.

        ``ValueError``, say; empty for an error class's entry, raised as itself.
        """
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
        """The prose without the paragraph that repeats the summary, for showing below it.

        Another project's docstring is kept whole: its summary is only a sentence of it.
        """
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
        """Whether, with these package versions, the entry's error cannot be raised.

        Only the examples that hold for them count: an error that an older Flax
        raises may be unreachable on today's.
        """
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
    """A sentence that says what went wrong, or "" when it passed."""
    diff: str = ""
    failed_at: Location | None = None
    log: str = ""
    """The traceback of this package's own error that kept the example from running
    (a crash of ours, not of the example's code), or ""."""

    @property
    def location(self) -> Location:
        """Where to look: the failing statement, else the example."""
        return self.failed_at or self.example.location

    def __str__(self) -> str:
        return f"{self.example}: {self.verdict.value}"
