"""Compare what an example did with what its docstring documents, as doctest does."""

from __future__ import annotations

import difflib
import doctest
import re

from flax_errors_ext.model.catalogue.records import (
    Example,
    ExampleKind,
    ExampleResult,
    Statement,
    StatementRun,
    Verdict,
)
from flax_errors_ext.model.runs.tracebacks import strip_jax_note, strip_tensorstore_notes

OPTION_FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
_URL = re.compile(r"https?://\S+")
MIN_CHECKED_SHARE = 0.2
"""How much of an error's message its documented text must spell out, ``...`` aside."""


def judge(
    example: Example,
    runs: tuple[StatementRun, ...] | None,
    failure: Verdict | None = None,
    failure_detail: str = "",
    failure_log: str = "",
) -> ExampleResult:
    """The verdict on ``example`` given its records; ``runs`` None: ``failure`` says why."""
    statements = example.statements_run
    expected = "".join(_documented(s) for s in statements)
    if runs is None:
        verdict = failure or Verdict.CRASHED
        detail = failure_detail or "the example produced no record"
        return ExampleResult(example, verdict, expected, "", (), 0.0, detail, log=failure_log)
    actual = "".join(run.exc_msg if run.exc_msg is not None else run.got for run in runs)
    seconds = sum(run.seconds for run in runs)
    for statement, run in zip(statements, runs, strict=False):
        verdict, detail = _judge_statement(example.kind, statement, run)
        if verdict is not Verdict.PASSED:
            if run.exc_msg is None:
                got = run.got
            else:  # what raised where nothing should have shows its traceback
                got = run.transcript if statement.exc_msg is None else run.exc_msg
            diff = unified_diff(_documented(statement), got, str(statement.location))
            return ExampleResult(
                example, verdict, expected, actual, runs, seconds, detail, diff, statement.location
            )
    if len(runs) < len(statements):
        detail = f"only {len(runs)} of {len(statements)} statements ran"
        return ExampleResult(example, Verdict.CRASHED, expected, actual, runs, seconds, detail)
    return ExampleResult(example, Verdict.PASSED, expected, actual, runs, seconds)


def _judge_statement(
    kind: ExampleKind, statement: Statement, run: StatementRun
) -> tuple[Verdict, str]:
    flags = statement_flags(statement)
    checker = doctest.OutputChecker()
    if run.exc_msg is None:
        if statement.exc_msg is not None:
            detail = f"expected {statement.documented_class} to be raised, but nothing was"
            return Verdict.NO_RAISE, detail
        if checker.check_output(statement.want, run.got, flags):
            return Verdict.PASSED, ""
        return Verdict.DRIFTED, "the output differs from the documented output"
    if kind is ExampleKind.UPSTREAM and statement.exc_msg is not None:
        return _judge_as_doctest(statement.exc_msg, run.exc_msg, run.exc_type, flags)
    if statement.exc_msg is None:
        what = {
            ExampleKind.GOOD: "a good example",
            ExampleKind.UNREACHABLE: "the evidence of unreachability",
        }.get(kind, "a statement documented to run cleanly")
        return Verdict.RAISED, f"{what} raised {run.exc_type}"
    if run.exc_type != statement.documented_class:
        detail = f"raised {run.exc_type}, but the docstring documents {statement.documented_class}"
        return Verdict.WRONG_CLASS, detail
    if checker.check_output(statement.exc_msg, run.exc_msg, flags):
        loose = _too_loose(statement.exc_msg, run.exc_msg)
        return (Verdict.TOO_LOOSE, loose) if loose else (Verdict.PASSED, "")
    detail = f"{run.exc_type} was raised, but its message differs from the documented text"
    return Verdict.DRIFTED, detail


def _judge_as_doctest(
    documented: str, got: str, raised: str | None, flags: int
) -> tuple[Verdict, str]:
    # Under IGNORE_EXCEPTION_DETAIL, doctest compares the class name, without its module.
    if flags & doctest.IGNORE_EXCEPTION_DETAIL:
        documented, got = (
            line.split(":", 1)[0].strip().rpartition(".")[2] + ":\n" for line in (documented, got)
        )
    if doctest.OutputChecker().check_output(documented, got, flags):
        return Verdict.PASSED, ""
    return Verdict.DRIFTED, f"{raised} was raised, which is not what the docstring documents"


def _too_loose(documented: str, actual: str) -> str:
    # The wording is what counts: not JAX's note about hidden frames, nor a link, nor
    # TensorStore's spec.
    spelled = "".join(
        _URL.sub("", _message(documented)).replace(doctest.ELLIPSIS_MARKER, "").split()
    )
    message = strip_tensorstore_notes(strip_jax_note(_message(actual)))
    total = "".join(_URL.sub("", message).split())
    if total and len(spelled) < MIN_CHECKED_SHARE * len(total):
        return (
            f"the documented text checks {len(spelled)} of the message's {len(total)} "
            f"characters (less than {MIN_CHECKED_SHARE:.0%}); spell out its wording and "
            "keep ... for the parts that vary"
        )
    return ""


def _message(exception_line: str) -> str:
    head, colon, rest = exception_line.partition(":")
    return rest if colon and " " not in head.strip() else exception_line


def accepts(statement: Statement, text: str) -> bool:
    """Whether ``statement``'s documented text (output or error) accepts ``text``."""
    documented = _documented(statement)
    return doctest.OutputChecker().check_output(documented, text, statement_flags(statement))


def statement_flags(statement: Statement) -> int:
    """The doctest flags a statement is compared under: ours plus its inline options."""
    flags = OPTION_FLAGS
    for flag, enabled in statement.options:
        flags = flags | flag if enabled else flags & ~flag
    return flags


def _documented(statement: Statement) -> str:
    return statement.exc_msg if statement.exc_msg is not None else statement.want


def unified_diff(
    documented: str, actual: str, label: str, names: tuple[str, str] = ("documented", "actual")
) -> str:
    """A unified diff of documented against actual text; ``label`` follows the first name."""
    lines = difflib.unified_diff(
        documented.splitlines(keepends=True),
        actual.splitlines(keepends=True),
        fromfile=f"{names[0]} ({label})",
        tofile=names[1],
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)
