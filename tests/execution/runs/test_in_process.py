"""Statements run in this process, as an entry's process runs them."""

from __future__ import annotations

import doctest

from flax_errors_ext.execution.runs.in_process import run_here
from flax_errors_ext.model.catalogue.records import Location, Statement, StatementRun

HERE = Location("pkg/errors.py", 1)


def _statement(source: str, *, skip: bool = False) -> Statement:
    options = ((doctest.SKIP, True),) if skip else ()
    return Statement(source, "", None, HERE, options)


def test_a_statement_marked_skip_does_not_run_and_has_no_record() -> None:
    statements = [
        _statement("x = 1\n"),
        _statement("x = 2\n", skip=True),
        _statement("print(x)\n"),
    ]

    records = [StatementRun.from_json(r) for r in run_here("pkg.errors.E", statements)]

    assert [r.got for r in records] == ["", "1\n"]


def test_statements_start_from_the_globals_given_and_share_theirs() -> None:
    statements = [_statement("y = z + 1\n"), _statement("raise ValueError(y)\n")]

    records = [StatementRun.from_json(r) for r in run_here("pkg.errors.E", statements, {"z": 2})]

    assert records[0].exc_msg is None
    assert records[1].exc_type == "ValueError"
    assert "ValueError: 3" in str(records[1].exc_msg)


def test_an_output_over_the_limit_is_cut_as_an_entry_process_cuts_it() -> None:
    statements = [_statement("print('a' * 5000)\n")]

    whole = StatementRun.from_json(run_here("pkg.errors.E", statements)[0])
    cut = StatementRun.from_json(run_here("pkg.errors.E", statements, output_limit=200)[0])

    assert len(whole.got) == 5001
    assert len(cut.got) < 1000
