"""One release of one error's history: what each bad example did, as a cell shows it."""

from __future__ import annotations

import ast
import dataclasses
import enum
import hashlib
import re
from typing import TYPE_CHECKING, Self

from flax_errors_ext.model.catalogue.records import ExampleKind, Verdict
from flax_errors_ext.model.history.releases import ExampleRun, Outcome, comparable, quote
from flax_errors_ext.model.runs.judge import judge
from flax_errors_ext.model.runs.tracebacks import strip_jax_note, strip_roots

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from flax_errors_ext.model.catalogue.records import ErrorEntry, Example, ExampleResult
    from flax_errors_ext.model.history.releases import ReleaseRun, Substitution


QUOTED = 90
"""The characters of an error's text that the history line quotes."""
TOOLTIP = 300
"""The characters of a text that a cell's tooltip shows."""

URL_TAIL = re.compile(r"\s*\(https?://\S+\)\s*$")
"""A link at the end of an error's text: Flax's docs moved, the error did not."""


@enum.unique
class CellState(enum.StrEnum):
    """What a release did, as a cell's colour (and glyph, so that colour is not all) shows it."""

    glyph: str
    meaning: str

    def __new__(cls, value: str, glyph: str = "", meaning: str = "") -> Self:
        """A member whose value is its CSS class."""
        member = str.__new__(cls, value)
        member._value_ = value
        member.glyph, member.meaning = glyph, meaning
        return member

    SAME = "same", "=", "raised with the latest text"
    CHANGED = "changed", "≠", "raised with other text"
    NOT_RAISED = "not-raised", "\u2013", "the example ran and did not raise it"  # an en dash
    NOT_PRESENT = "not-present", "\u00a0", "not in the module"
    COULD_NOT_RUN = "could-not-run", "\u00d7", "the example could not run"  # a multiplication sign
    PRESENT = "present", "○", "in the module; no example raises it"
    STALE = "stale", "?", "no record of the example as it is now; not shown"
    NOT_RUN = "not-run", "·", "not run in this build"

    @property
    def known(self) -> bool:
        """Whether the cell shows what a release did (not stale, not run)."""
        return self not in (CellState.STALE, CellState.NOT_RUN)

    @property
    def raised(self) -> bool:
        """Whether the release raised the error."""
        return self in (CellState.SAME, CellState.CHANGED)


@dataclasses.dataclass(frozen=True)
class Cell:
    """One release of one error's history."""

    release: str
    state: CellState
    wording: tuple[str, ...] = ()
    """Per bad example, the text it raised the error with ("" where it did not)."""
    notes: tuple[str, ...] = ()
    """Per bad example (or raising example of another entry), what it did, in words."""
    current: bool = False
    """Whether the cell is this build's own run."""
    rewritten: tuple[Substitution, ...] = ()

    def title(self, module: str) -> str:
        """The cell's tooltip: the release, what the state means, what each example did."""
        meaning = self.state.meaning.replace("the module", module)
        head = f"flax {self.release}{' (this build)' if self.current else ''}: {meaning}"
        return "\n".join([head, *(self.notes if self.state.known else ())])


def release_cell(name: str, codes: tuple[str, ...], record: ReleaseRun, current: bool) -> Cell:
    """The cell of one release, with a raised one marked SAME until compared."""
    release = record.release.flax
    row = record.entries.get(name)
    runs = row.runs_of(codes) if row is not None else None
    if row is None or runs is None:
        state = CellState.NOT_RUN if row is None and current else CellState.STALE
        return Cell(release, state, current=current)
    if not runs:
        state = CellState.PRESENT if row.present else CellState.NOT_PRESENT
        return Cell(release, state, current=current)
    many = len(runs) > 1
    notes = tuple(
        (f"bad example {n}: " if many else "") + _what_it_did(run) for n, run in enumerate(runs, 1)
    )
    rewritten = merged_substitutions(run.rewritten for run in runs)
    wording = tuple(run.exc_text if run.outcome is Outcome.RAISED else "" for run in runs)
    if not row.present:
        state = CellState.NOT_PRESENT
    elif any(wording):
        state = CellState.SAME
    elif any(run.outcome is not Outcome.COULD_NOT_RUN for run in runs):
        state = CellState.NOT_RAISED
    else:
        state = CellState.COULD_NOT_RUN
    return Cell(release, state, wording, notes, current, rewritten)


def compared_with_latest(cells: list[Cell]) -> list[Cell]:
    """Raised cells compared with the latest one that raised: same text, or changed."""
    latest = next((cell_key(c) for c in reversed(cells) if c.state.raised), None)
    return [
        dataclasses.replace(c, state=CellState.CHANGED)
        if c.state.raised and cell_key(c) != latest
        else c
        for c in cells
    ]


def cell_key(cell: Cell) -> tuple[str, ...] | None:
    """What two raised cells must share to read the same (None: not raised)."""
    return tuple(compared_text(text) for text in cell.wording) if cell.state.raised else None


def compared_text(text: str) -> str:
    """An error's text as compared across releases: without what varies by run, or URL_TAIL."""
    return comparable(URL_TAIL.sub("", text))


def _what_it_did(run: ExampleRun) -> str:
    if run.outcome is Outcome.RAISED:
        did = f"«{quote(exception_message(run.exc_text), TOOLTIP)}»"
    elif run.outcome is Outcome.RAISED_OTHER:
        did = f"raised {quote(run.exc_text, TOOLTIP)}"
    elif run.outcome is Outcome.NO_RAISE:
        did = "raised nothing"
    else:
        did = f"could not run: {quote(run.reason, TOOLTIP)}"
    return did + rewritten_note(run)


def rewritten_note(run: ExampleRun) -> str:
    """`` (run as rewritten for this release: a → b; c → d)``, or "" where it ran as written."""
    made = "; ".join(map(str, run.rewritten))
    return f" (run as rewritten for this release: {made})" if run.rewritten else ""


def merged_substitutions(groups: Iterable[Sequence[Substitution]]) -> tuple[Substitution, ...]:
    """The substitutions of every group, each once, in the order first made."""
    return tuple(dict.fromkeys(s for group in groups for s in group))


def exception_message(text: str) -> str:
    """An exception's text without its leading ``module.Class:``."""
    head, colon, rest = text.partition(": ")
    return rest if colon and " " not in head.strip() else text


def bad_examples(entry: ErrorEntry) -> tuple[Example, ...]:
    """The examples the history runs: the entry's own bad examples."""
    return tuple(e for e in entry.examples if e.kind is ExampleKind.BAD)


def example_code_hash(example: Example) -> str:
    """A hash of an example's statements' syntax trees: rewording, reformatting leave it alone."""
    digest = hashlib.sha256()
    for statement in example.statements_run:
        try:
            syntax = _tree_text(ast.parse(statement.source))
        except SyntaxError:  # a statement that does not parse alone: its source
            syntax = statement.source
        digest.update(syntax.encode("utf-8") + b"\0")
    return digest.hexdigest()[:16]


def _tree_text(node: object) -> str:
    """A syntax tree as text, unlike :func:`ast.dump` the same on every Python (no empty field)."""
    if isinstance(node, ast.AST):
        fields = ", ".join(
            f"{name}={_tree_text(value)}"
            for name, value in ast.iter_fields(node)
            if value is not None and value != []
        )
        return f"{type(node).__name__}({fields})"
    if isinstance(node, list):
        return "[" + ", ".join(_tree_text(item) for item in node) + "]"
    return repr(node)


def entry_codes(entries: Iterable[ErrorEntry]) -> dict[str, tuple[str, ...]]:
    """Each entry's bad examples' code hashes, by class name."""
    return {
        entry.name: tuple(example_code_hash(e) for e in bad_examples(entry)) for entry in entries
    }


def example_run(result: ExampleResult, roots: Iterable[str] = ()) -> ExampleRun:
    """What a bad example did on a release, each statement judged alone (not the documented text).

    One before the last that raised: it could not run. Paths under ``roots`` become relative.
    """
    example, runs, folders = result.example, result.runs, tuple(roots)
    code = example_code_hash(example)
    chosen = example.statements_run
    if not runs:
        return ExampleRun(code, Outcome.COULD_NOT_RUN, reason=result.detail or "it did not run")
    if len(runs) != len(chosen):
        why = f"{len(runs)} of its {len(chosen)} statements reported back"
        return ExampleRun(code, Outcome.COULD_NOT_RUN, reason=why)
    verdicts = [
        judge(dataclasses.replace(example, statements=(statement,)), (run,)).verdict
        for statement, run in zip(chosen, runs, strict=True)
    ]
    for number, (verdict, run) in enumerate(zip(verdicts[:-1], runs[:-1], strict=True), 1):
        if verdict is Verdict.RAISED and run.exc_msg is not None:
            why = f"statement {number} of {len(chosen)} raised {_exception(run.exc_msg, folders)}"
            return ExampleRun(code, Outcome.COULD_NOT_RUN, reason=why)
    last = runs[-1]
    if last.exc_msg is None:
        return ExampleRun(code, Outcome.NO_RAISE)
    text = _exception(last.exc_msg, folders)
    exc_type = last.exc_type or text.split(":", 1)[0]
    raised = verdicts[-1] in (Verdict.PASSED, Verdict.DRIFTED, Verdict.TOO_LOOSE)
    return ExampleRun(code, Outcome.RAISED if raised else Outcome.RAISED_OTHER, exc_type, text)


def _exception(text: str, roots: tuple[str, ...]) -> str:
    return strip_roots(strip_jax_note(text), roots).strip("\n")
