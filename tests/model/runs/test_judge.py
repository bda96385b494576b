"""Verdicts: doctest's own comparison, the first failing statement decides."""

from __future__ import annotations

import pytest

from flax_errors_ext.model.catalogue.records import (
    Example,
    ExampleKind,
    Location,
    Statement,
    StatementRun,
    Verdict,
)
from flax_errors_ext.model.runs.judge import judge

HERE = Location("m.py", 3)


def statement(want: str = "", exc_msg: str | None = None) -> Statement:
    return Statement(source="f()\n", want=want, exc_msg=exc_msg, location=HERE)


def raised(exc_msg: str) -> StatementRun:
    return StatementRun(
        got="",
        exc_type=exc_msg.split(":", maxsplit=1)[0],
        exc_msg=exc_msg,
        transcript=f"Traceback (most recent call last):\n{exc_msg}",
    )


BAD = Example(ExampleKind.BAD, (statement(exc_msg="m.E: the text (...)\n"),), "", HERE)
GOOD = Example(ExampleKind.GOOD, (statement(want="[1,   2]\n"),), "", HERE)


@pytest.mark.parametrize(
    ("example", "run", "verdict"),
    [
        (BAD, raised("m.E: the text (https://x)\n"), Verdict.PASSED),
        (BAD, raised("m.E: other text (https://x)\n"), Verdict.DRIFTED),
        (BAD, raised("m.Sub: the text (https://x)\n"), Verdict.WRONG_CLASS),
        (BAD, StatementRun(got=""), Verdict.NO_RAISE),
        (GOOD, StatementRun(got="[1, 2]\n"), Verdict.PASSED),  # NORMALIZE_WHITESPACE
        (GOOD, StatementRun(got="[1, 3]\n"), Verdict.DRIFTED),
        (GOOD, raised("KeyError: 'b'\n"), Verdict.RAISED),
    ],
)
def test_verdicts(example: Example, run: StatementRun, verdict: Verdict) -> None:
    result = judge(example, (run,))
    assert result.verdict is verdict
    assert result.verdict.failed is (verdict is not Verdict.PASSED)


def test_drift_carries_a_located_unified_diff() -> None:
    result = judge(BAD, (raised("m.E: new text (https://x)\n"),))
    assert result.diff.splitlines() == [
        "--- documented (m.py:3)",
        "+++ actual",
        "@@ -1 +1 @@",
        "-m.E: the text (...)",
        "+m.E: new text (https://x)",
    ]
    assert str(result.location) == "m.py:3"


def test_ellipsis_never_spans_a_class_name() -> None:
    example = Example(ExampleKind.BAD, (statement(exc_msg="m.E...\n"),), "", HERE)
    assert judge(example, (raised("m.Other: x\n"),)).verdict is Verdict.WRONG_CLASS


@pytest.mark.parametrize("failure", [Verdict.TIMED_OUT, Verdict.CRASHED, Verdict.NOT_RUN])
def test_unfinished_examples_take_the_notebook_failure(failure: Verdict) -> None:
    result = judge(GOOD, None, failure, "why")
    assert result.verdict is failure
    assert result.detail == "why"
    assert result.log == ""


def test_a_crash_of_ours_keeps_its_traceback_as_the_log_not_the_detail() -> None:
    log = "Traceback (most recent call last):\n  ...\nKeyError: 9\n"
    result = judge(GOOD, None, Verdict.CRASHED, "flax-errors could not run it: KeyError: 9", log)
    assert result.log == log
    assert "Traceback" not in result.detail + result.diff


def test_too_few_records_is_a_crash() -> None:
    example = Example(ExampleKind.GOOD, (statement(), statement()), "", HERE)
    assert judge(example, (StatementRun(got=""),)).verdict is Verdict.CRASHED


@pytest.mark.parametrize(
    ("documented", "verdict"),
    [
        ("m.E: ...\n", Verdict.TOO_LOOSE),  # only the class
        ("m.E: Module ...\n", Verdict.TOO_LOOSE),  # 6 of 60 characters
        ("m.E: Module ... has no parameter ... in scope ...\n", Verdict.PASSED),
        (
            "m.E: Module 'Dense_0' has no parameter 'kernel' in scope '/Dense_0'. (...)\n",
            Verdict.PASSED,
        ),
    ],
)
def test_documented_text_that_checks_almost_nothing_is_too_loose(
    documented: str, verdict: Verdict
) -> None:
    example = Example(ExampleKind.BAD, (statement(exc_msg=documented),), "", HERE)
    run = raised(
        "m.E: Module 'Dense_0' has no parameter 'kernel' in scope '/Dense_0'. (https://x)\n"
    )

    result = judge(example, (run,))

    assert result.verdict is verdict
    assert ("too-loose" in str(result)) is (verdict is Verdict.TOO_LOOSE)
    if verdict is Verdict.TOO_LOOSE:
        assert "spell out its wording" in result.detail
        assert result.verdict.failed


def test_tensorstores_spec_and_source_lines_are_not_words_a_text_must_spell() -> None:
    message = (
        'm.E: NOT_FOUND: Error opening "zarr" driver: Metadata at "k/.zarray" does not exist'
        " [source locations='tensorstore/driver/driver.cc:116']"
        " [tensorstore_spec='{" + '\\"driver\\":\\"zarr\\",' * 40 + "}']"
        " [tensorstore_spec[1]='{" + '\\"driver\\":\\"cast\\",' * 40 + "}']\n"
    )
    documented = 'm.E: NOT_FOUND: Error opening "zarr" driver: Metadata at ... does not exist...\n'
    example = Example(ExampleKind.BAD, (statement(exc_msg=documented),), "", HERE)

    assert judge(example, (raised(message),)).verdict is Verdict.PASSED
    # Without them, the same text is far too little of a long message.
    loose = message.replace("[source locations=", "[sources=").replace("[tensorstore_spec", "[s")
    assert "[s[1]='" in loose
    assert judge(example, (raised(loose),)).verdict is Verdict.TOO_LOOSE
