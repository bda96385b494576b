"""The pure side of ``flax-errors update``: rewriting text, planning and applying edits."""

from __future__ import annotations

import ast
import doctest
import stat
from typing import TYPE_CHECKING

import pytest

from flax_errors_ext.cli import runs as cli_runs
from flax_errors_ext.model.catalogue.parse import parse_docstring
from flax_errors_ext.model.catalogue.records import (
    ErrorEntry,
    ExampleResult,
    StatementRun,
    Verdict,
)
from flax_errors_ext.model.runs import update
from flax_errors_ext.model.runs.judge import judge

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

JAX_NOTE = (
    "--------------------\nFor simplicity, JAX has removed its internal frames from the "
    "traceback of the following exception. Set JAX_TRACEBACK_FILTERING=off to include these.\n"
)
URL = "https://flax.readthedocs.io/en/latest/api_reference/flax.errors.html#m.E"


# rewrite: the new documented text ---------------------------------------------------


def test_rewrite_leaves_matching_text_alone() -> None:
    documented = "m.E: a message (...)...\n"
    assert update.rewrite(documented, f"m.E: a message ({URL})\n{JAX_NOTE}") == documented


def test_rewrite_keeps_a_trailing_ellipsis_over_jax_note() -> None:
    documented = f'm.E: Cannot mutate "x" from a different trace level ({URL})...\n'
    actual = f'm.E: Cannot mutate "y" from another trace level ({URL})\n{JAX_NOTE}'

    new = update.rewrite(documented, actual)

    assert new == f'm.E: Cannot mutate "y" from another trace level ({URL})...\n'


def test_rewrite_keeps_a_standalone_ellipsis_line() -> None:
    documented = f"m.E: old words ({URL})\n...\n"
    actual = f"m.E: new words ({URL})\n{JAX_NOTE}"

    assert update.rewrite(documented, actual) == f"m.E: new words ({URL})\n...\n"


def test_rewrite_cuts_a_changed_tail_before_the_ellipsis() -> None:
    """The word that carried the ``...`` itself changed: only its counterpart is kept."""
    documented = "m.E: a message (https://old.example/page#m.E)...\n"
    actual = f"m.E: a message ({URL})\n{JAX_NOTE}"

    assert update.rewrite(documented, actual) == f"m.E: a message ({URL})...\n"


def test_rewrite_keeps_the_documented_wrapping_of_unchanged_words() -> None:
    documented = "m.E: Linen Module MLP was passed to a JAX\ntransformation as argument `model`.\n"
    actual = "m.E: Linen Module MLP was handed to a JAX transformation as argument `model`.\n"

    new = update.rewrite(documented, actual)

    assert new == (
        "m.E: Linen Module MLP was handed to a JAX\ntransformation as argument `model`.\n"
    )


def test_rewrite_keeps_an_inner_ellipsis_that_still_matches() -> None:
    documented = "m.E: <function f at 0x...> is not valid.\n"
    actual = "m.E: <function f at 0x7f8a08176de0> is no longer valid.\n"

    assert update.rewrite(documented, actual) == "m.E: <function f at 0x...> is no longer valid.\n"


def test_rewrite_marks_blank_lines() -> None:
    assert update.rewrite("one\ntwo\n", "one\n\nthree\n") == "one\n<BLANKLINE>\nthree\n"


def test_rewrite_without_normalize_whitespace_takes_the_actual_layout() -> None:
    flags = doctest.ELLIPSIS
    new = update.rewrite("a  b\nc...\n", "a b c d\n", flags)

    assert doctest.OutputChecker().check_output(new, "a b c d\n", flags)


# plan and apply, on files -----------------------------------------------------------

MODULE = '''\
"""Errors for the update tests."""

from flax.errors import FlaxError


class RenamedError(FlaxError):
    """Raised with a message that changed.

    Bad example:

        >>> print("kept")
        kept
        >>> raise RenamedError("x")
        Traceback (most recent call last):
            ...
        m.RenamedError: the old wording of "x", which was
        wrapped by hand (...)...

    Good example:

        >>> print("new output")
        old output
        >>> print(2)
        2
    """
'''


def entry_from(path: Path, name: str = "RenamedError") -> ErrorEntry:
    """Parse the docstring of class ``name`` in the Python file at ``path``."""
    tree = ast.parse(path.read_text())
    node = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == name)
    docstring = node.body[0]
    assert isinstance(docstring, ast.Expr)
    assert isinstance(docstring.value, ast.Constant)
    assert isinstance(docstring.value.value, str)
    return parse_docstring(docstring.value.value, f"m.{name}", str(path), docstring.lineno)


def runs_for(entry: ErrorEntry, replace: dict[str, str]) -> list[tuple[StatementRun, ...]]:
    """What the examples would do if the code now said ``replace``'s values."""
    runs = []
    for example in entry.examples:
        records = []
        for statement in example.statements:
            if statement.exc_msg is not None:
                message = statement.exc_msg
                for old, new in replace.items():
                    message = message.replace(old, new)
                message = message.replace("(...)...", f"({URL})\n{JAX_NOTE}")
                records.append(StatementRun("", statement.documented_class, message))
            else:
                got = statement.want
                for old, new in replace.items():
                    got = got.replace(old, new)
                records.append(StatementRun(got))
        runs.append(tuple(records))
    return runs


def results(entry: ErrorEntry, runs: Sequence[tuple[StatementRun, ...]]) -> list[ExampleResult]:
    """The verdict on each example of ``entry`` given its statements' runs."""
    return [judge(example, r) for example, r in zip(entry.examples, runs, strict=True)]


def applied(text: str, edits: Sequence[update.Edit], *, python: bool) -> str:
    """The text with every edit made; each one must be."""
    new_text, skips = update.apply_each(text, edits, python=python)
    assert skips == []
    return new_text


@pytest.fixture
def module(tmp_path: Path) -> Path:
    path = tmp_path / "m.py"
    path.write_text(MODULE)
    return path


def test_round_trip_rewrites_only_the_drifted_lines(module: Path) -> None:
    entry = entry_from(module)
    runs = runs_for(entry, {"old wording": "new wording", "old output": "new output"})
    assert [r.verdict for r in results(entry, runs)] == [Verdict.DRIFTED, Verdict.DRIFTED]

    edits, skips = update.plan(results(entry, runs))
    source = cli_runs.SourceFile.read(module)
    cli_runs.write(source, applied(source.text, edits, python=True))

    assert skips == []
    before, after = MODULE.splitlines(), module.read_text().splitlines()
    changed = [(n + 1, a) for n, (b, a) in enumerate(zip(before, after, strict=True)) if a != b]
    assert changed == [
        (16, '        m.RenamedError: the new wording of "x", which was'),
        (22, "        new output"),
    ]
    again = entry_from(module)
    assert [judge(x, r).verdict for x, r in zip(again.examples, runs, strict=True)] == [
        Verdict.PASSED,
        Verdict.PASSED,
    ]


def test_output_can_appear_and_vanish(tmp_path: Path) -> None:
    path = tmp_path / "m.txt"
    path.write_text("Summary.\n\nGood example:\n\n  >>> f()\n  >>> g()\n  gone\n  >>> h()\n  3\n")
    entry = parse_docstring(path.read_text(), "m.E", str(path), 1)
    runs = [(StatementRun("new\nlines\n"), StatementRun(""), StatementRun("3\n"))]

    edits, _ = update.plan(results(entry, runs))
    new = applied(path.read_text(), edits, python=False)

    assert new == (
        "Summary.\n\nGood example:\n\n  >>> f()\n  new\n  lines\n  >>> g()\n  >>> h()\n  3\n"
    )


def test_failures_other_than_drift_are_skipped(module: Path) -> None:
    entry = entry_from(module)
    runs = runs_for(entry, {})
    bad = list(runs[0])
    bad[1] = StatementRun("")  # the error is no longer raised
    runs[0] = tuple(bad)

    edits, skips = update.plan(results(entry, runs))

    assert edits == []
    assert len(skips) == 1
    assert skips[0].location.line == 13
    assert "no-raise" in skips[0].reason


def test_a_crashed_example_is_skipped(module: Path) -> None:
    entry = entry_from(module)
    crashed = judge(entry.examples[0], None, Verdict.CRASHED, "the kernel died")

    edits, skips = update.plan([crashed])

    assert edits == []
    assert [s.reason for s in skips] == ["crashed: the kernel died"]


def test_apply_refuses_when_the_text_moved(module: Path) -> None:
    entry = entry_from(module)
    edits, _ = update.plan(results(entry, runs_for(entry, {"old output": "new output"})))
    moved = module.read_text().replace("    Bad example:\n", "    Bad example:\n\n")

    text, skips = update.apply_each(moved, edits, python=True)

    assert text == moved
    assert [s.location for s in skips] == [e.location for e in edits]
    assert all("expected" in s.reason for s in skips)


def test_write_refuses_a_concurrent_edit(module: Path) -> None:
    entry = entry_from(module)
    edits, _ = update.plan(results(entry, runs_for(entry, {"old output": "new output"})))
    source = cli_runs.SourceFile.read(module)
    new_text = applied(source.text, edits, python=True)
    theirs = MODULE + "\n# an edit made while the examples ran\n"
    module.write_text(theirs)

    with pytest.raises(cli_runs.ConcurrentEditError, match="changed while the examples ran"):
        cli_runs.write(source, new_text)
    assert module.read_text() == theirs


def test_write_keeps_the_file_mode_and_leaves_no_temporary_file(module: Path) -> None:
    module.chmod(0o640)
    source = cli_runs.SourceFile.read(module)

    cli_runs.write(source, "x = 1\n")

    assert module.read_text() == "x = 1\n"
    assert stat.S_IMODE(module.stat().st_mode) == 0o640
    assert sorted(p.name for p in module.parent.iterdir()) == ["m.py"]


def test_crlf_endings_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "m.txt"
    path.write_bytes(b"Summary.\r\n\r\nGood example:\r\n\r\n  >>> f()\r\n  old\r\n")
    entry = parse_docstring(path.read_text(), "m.E", str(path), 1)
    edits, _ = update.plan(results(entry, [(StatementRun("new\n"),)]))
    source = cli_runs.SourceFile.read(path)

    cli_runs.write(source, applied(source.text, edits, python=False))

    assert path.read_bytes() == b"Summary.\r\n\r\nGood example:\r\n\r\n  >>> f()\r\n  new\r\n"


def test_backslashes_are_escaped_in_a_plain_docstring(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text(
        'class E:\n    """Summary.\n\n    Good example:\n\n        >>> f()\n        old\n    """\n'
    )
    entry = parse_docstring(
        "Summary.\n\n    Good example:\n\n        >>> f()\n        old\n    ", "m.E", str(path), 2
    )
    edits, _ = update.plan(results(entry, [(StatementRun("C:\\temp\n"),)]))

    new = applied(path.read_text(), edits, python=True)

    assert "        C:\\\\temp\n" in new
    namespace: dict[str, type] = {}
    exec(compile(new, str(path), "exec"), namespace)  # the docstring reads back as the output
    assert "C:\\temp" in (namespace["E"].__doc__ or "")


def test_a_latin1_source_is_written_back_in_latin1(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_bytes("# -*- coding: latin-1 -*-\nMESSAGE = 'café'\n".encode("latin-1"))
    source = cli_runs.SourceFile.read(path)
    assert source.text.endswith("MESSAGE = 'café'\n")

    cli_runs.write(source, source.text.replace("café", "crème"))
    assert path.read_bytes().endswith("MESSAGE = 'crème'\n".encode("latin-1"))

    again = cli_runs.SourceFile.read(path)
    with pytest.raises(update.UpdateError, match="cannot be written as iso-8859-1"):
        cli_runs.write(again, again.text.replace("crème", "→"))
    assert path.read_bytes().endswith("MESSAGE = 'crème'\n".encode("latin-1"))


def test_what_cannot_be_written_is_skipped_and_the_rest_is_written(module: Path) -> None:
    entry = entry_from(module)
    runs = runs_for(entry, {"old wording": 'new """ wording', "old output": "new output"})
    edits, skips = update.plan(results(entry, runs))
    assert (len(edits), skips) == (2, [])

    text, unwritable = update.apply_each(module.read_text(), edits, python=True)

    (skip,) = unwritable
    assert "cannot write a triple quote into a docstring" in skip.reason
    assert str(skip.location) == f"{module}:13"  # its >>> line
    assert "        new output\n" in text  # the other statement is rewritten
    assert "old wording" in text  # and the one that cannot be stays as it was
