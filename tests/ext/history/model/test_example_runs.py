"""A bad example's run on a release: which examples run, their code hash, what one did."""

from __future__ import annotations

import ast

from flax_errors_ext.ext.history.model import cells
from flax_errors_ext.ext.history.model.cells import (
    bad_examples,
    entry_codes,
    example_code_hash,
    example_run,
)
from flax_errors_ext.model.catalogue.parse import parse_docstring
from flax_errors_ext.model.catalogue.records import ErrorEntry, Example, StatementRun, Verdict
from flax_errors_ext.model.history.releases import ExampleRun, Outcome
from flax_errors_ext.model.runs.judge import judge

ENTRY = """\
Summary.

Bad example:

  >>> import flax
  >>> x = flax.make()
  >>> flax.use(x)
  Traceback (most recent call last):
    ...
  flax.errors.MyError: documented text

Good example:

  >>> print(1)
  1
"""


def entry(text: str = ENTRY, name: str = "MyError") -> ErrorEntry:
    return parse_docstring(text, f"flax.errors.{name}", f"{name}.txt", 1)


def bad(text: str = ENTRY) -> Example:
    (example,) = bad_examples(entry(text))
    return example


def ok(got: str = "") -> StatementRun:
    return StatementRun(got=got)


def raised(text: str) -> StatementRun:
    return StatementRun(got="", exc_type=text.split(":", 1)[0], exc_msg=text + "\n")


def recorded(
    runs: list[StatementRun] | None, text: str = ENTRY, roots: tuple[str, ...] = ()
) -> ExampleRun:
    """The history's record of the bad example's run, judged by the one judge."""
    if runs is None:
        return example_run(judge(bad(text), None, Verdict.TIMED_OUT, "timed out after 120 s"))
    return example_run(judge(bad(text), tuple(runs)), roots)


# --- what one run did ---


def test_the_documented_error_is_raised_with_its_text() -> None:
    run = recorded([ok(), ok(), raised("flax.errors.MyError: new text")])
    assert run.outcome is Outcome.RAISED
    assert run.exc_type == "flax.errors.MyError"
    assert run.exc_text == "flax.errors.MyError: new text"
    assert run.code == example_code_hash(bad())


def test_another_exception_is_kept_with_its_text() -> None:
    run = recorded([ok(), ok(), raised("ValueError: old wording")])
    assert run.outcome is Outcome.RAISED_OTHER
    assert (run.exc_type, run.exc_text) == ("ValueError", "ValueError: old wording")
    elsewhere = recorded([ok(), ok(), raised("flax.core.scope.MyError: text")])
    assert elsewhere.outcome is Outcome.RAISED_OTHER  # the judge's class is the documented one


def test_nothing_raised() -> None:
    run = recorded([ok(), ok(), ok("3\n")])
    assert run.outcome is Outcome.NO_RAISE
    assert run.exc_text == ""


def test_an_earlier_statement_that_raises_means_it_could_not_run() -> None:
    error = "AttributeError: module 'flax' has no attribute 'make'"
    run = recorded([ok(), raised(error), raised("NameError: name 'x' is not defined")])
    assert run.outcome is Outcome.COULD_NOT_RUN
    assert run.reason == f"statement 2 of 3 raised {error}"
    assert run.exc_text == ""


def test_an_earlier_statements_output_is_not_what_the_history_records() -> None:
    text = ENTRY.replace("  >>> import flax\n", "  >>> import flax; print(1)\n  1\n")
    run = recorded([ok("2\n"), ok(), raised("flax.errors.MyError: text")], text)
    assert run.outcome is Outcome.RAISED


def test_an_earlier_statement_may_document_its_own_traceback() -> None:
    text = ENTRY.replace(
        "  >>> x = flax.make()\n",
        "  >>> flax.check()\n  Traceback (most recent call last):\n    ...\n  KeyError: 'x'\n"
        "  >>> x = flax.make()\n",
    )
    runs = [ok(), raised("KeyError: 'x'"), ok(), raised("flax.errors.MyError: text")]
    assert recorded(runs, text).outcome is Outcome.RAISED


def test_a_process_that_died_or_timed_out() -> None:
    run = recorded(None)
    assert (run.outcome, run.reason) == (Outcome.COULD_NOT_RUN, "timed out after 120 s")
    short = recorded([ok()])
    assert short.outcome is Outcome.COULD_NOT_RUN
    assert "1 of its 3 statements" in short.reason


def test_machine_paths_and_jax_notes_are_not_kept() -> None:
    note = (
        "\n--------------------\nFor simplicity, JAX has removed its internal frames from "
        "the traceback of the following exception."
    )
    error = "ImportError: cannot import name 'io' from 'flax' (/venv/site-packages/flax/x.py)"
    runs = [ok(), raised(error), raised("flax.errors.MyError: text" + note)]
    run = recorded(runs, roots=("/venv/site-packages",))
    assert run.reason.endswith("(flax/x.py)")
    last = recorded([ok(), ok(), raised("flax.errors.MyError: text" + note)])
    assert last.exc_text == "flax.errors.MyError: text"


# --- code hashes ---


def test_code_hash_follows_the_code_not_the_documented_text() -> None:
    reworded = ENTRY.replace("documented text", "other text")
    assert example_code_hash(bad(reworded)) == example_code_hash(bad())
    changed = ENTRY.replace("flax.use(x)", "flax.use(x, 2)")
    assert example_code_hash(bad(changed)) != example_code_hash(bad())
    skipped = ENTRY.replace(
        "  >>> import flax\n", "  >>> import flax\n  >>> y = 1  # doctest: +SKIP\n"
    )
    assert example_code_hash(bad(skipped)) == example_code_hash(bad())


def test_code_hash_follows_what_runs_not_how_it_is_formatted() -> None:
    """flax-errors export formats the code as Flax does: its records still hold."""
    formatted = ENTRY.replace(
        "  >>> x = flax.make()\n",
        "  >>> x = flax.make(  # made here\n  ... )\n",
    ).replace("flax.use(x)", "flax.use( x )")
    assert example_code_hash(bad(formatted)) == example_code_hash(bad())
    assert example_code_hash(bad(ENTRY.replace("flax.use(x)", "flax.use('x')"))) != (
        example_code_hash(bad())
    )


def test_code_hash_leaves_out_the_fields_each_python_adds_or_drops() -> None:
    """3.12 added ``type_params`` (empty here); 3.13's ast.dump drops empty fields."""
    tree = cells._tree_text(ast.parse("class A(B):\n  def f(self, x): return x"))
    assert "type_params" not in tree
    assert "returns" not in tree
    assert "decorator_list" not in tree
    assert tree.startswith("Module(body=[ClassDef(name='A', bases=[Name(id='B', ctx=Load())]")


def test_entry_codes_one_hash_per_bad_example() -> None:
    section = ENTRY[ENTRY.index("Bad example:") : ENTRY.index("Good example:")]
    changed = section.replace("flax.use(x)", "flax.use(x, 2)")
    two = ENTRY.replace("Good example:", changed + "Good example:")
    other = entry(ENTRY.replace("MyError", "Other"), "Other")
    codes = entry_codes([entry(two), other])
    first, second = bad_examples(entry(two))
    assert codes == {
        "MyError": (example_code_hash(first), example_code_hash(second)),
        "Other": (example_code_hash(bad()),),
    }
    assert example_code_hash(first) != example_code_hash(second)
    unreachable = "Summary.\n\nUnreachable:\n\n  >>> print(1)\n  1\n"
    assert entry_codes([entry(unreachable)]) == {"MyError": ()}
