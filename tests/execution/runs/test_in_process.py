"""Statements run as an entry's process runs them: doctest's runner, one record each."""

from __future__ import annotations

from flax_errors_ext.execution.runs.in_process import run_statements
from flax_errors_ext.model.catalogue.records import StatementRun


def _run(*sources: str, **options: object) -> list[StatementRun]:
    chosen = list(enumerate(sources))
    return [
        StatementRun.from_json(r)
        for r in run_statements("pkg.errors.E", len(sources), chosen, **options)  # type: ignore[arg-type]
    ]


def test_statements_not_chosen_do_not_run_and_have_no_record() -> None:
    records = [
        StatementRun.from_json(r)
        for r in run_statements("pkg.errors.E", 3, [(0, "x = 1\n"), (2, "print(x)\n")], {})
    ]

    assert [r.got for r in records] == ["", "1\n"]


def test_statements_start_from_the_globals_given_and_share_theirs() -> None:
    records = _run("y = z + 1\n", "raise ValueError(y)\n", namespace={"z": 2})

    assert records[0].exc_msg is None
    assert records[1].exc_type == "ValueError"
    assert "ValueError: 3" in str(records[1].exc_msg)


def test_a_traceback_names_the_statement_as_doctest_does() -> None:
    (record,) = _run("1 / 0\n", namespace={})

    assert "<doctest pkg.errors.E[0]>" in record.transcript


def test_an_output_over_the_limit_is_cut_as_an_entry_process_cuts_it() -> None:
    (whole,) = _run("print('a' * 5000)\n", namespace={})
    (cut,) = _run("print('a' * 5000)\n", namespace={}, output_limit=200)

    assert len(whole.got) == 5001
    assert len(cut.got) < 1000
