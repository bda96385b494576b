"""Which versions an example holds for: the ``:holds for:`` line, read and applied."""

from __future__ import annotations

import textwrap

import pytest

from flax_errors_ext.model.catalogue.conditions import (
    Condition,
    ConditionError,
    describe,
    holds,
    parse_conditions,
    versions_named,
)
from flax_errors_ext.model.catalogue.parse import parse_docstring
from flax_errors_ext.model.catalogue.records import ErrorEntry, Verdict
from flax_errors_ext.model.runs.entry_record import EntryStatus, entry_status
from flax_errors_ext.model.runs.judge import judge


def test_clauses_without_a_name_continue_the_package_before_them() -> None:
    conditions = parse_conditions(" flax >= 0.10, < 0.12.9, JAX>=0.6")
    assert conditions == (Condition("flax", ">=0.10,<0.12.9"), Condition("jax", ">=0.6"))
    assert describe(conditions) == "flax >= 0.10, < 0.12.9 and jax >= 0.6"


@pytest.mark.parametrize(
    ("versions", "expected"),
    [
        ({"flax": "0.12.8", "jax": "0.10.2"}, True),
        ({"flax": "0.12.9", "jax": "0.10.2"}, False),
        ({"flax": "0.9", "jax": "0.10.2"}, False),
        ({"flax": "0.12.8"}, False),  # jax not installed: the example cannot hold
        ({"flax": "0.12.8rc1", "jax": "0.6"}, True),  # a pre-release is a version too
        ({"flax": "not-a-version", "jax": "0.6"}, False),
    ],
)
def test_an_example_holds_where_every_named_package_is_admitted(
    versions: dict[str, str], expected: bool
) -> None:
    assert holds(parse_conditions("flax >= 0.10, < 0.12.9, jax >= 0.6"), versions) is expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("flax", "cannot read 'flax'"),
        ("< 0.12", "names no package"),
        ("flax < 0.12 or jax", "cannot read 'flax < 0.12 or jax'"),
        ("", "cannot read ''"),
        ("flax ~= 1", "flax: Invalid specifier"),
    ],
)
def test_a_line_that_cannot_be_read_says_why(text: str, message: str) -> None:
    with pytest.raises(ConditionError, match=message):
        parse_conditions(text)


def test_versions_named_says_what_the_run_has() -> None:
    conditions = parse_conditions("flax < 0.12.9, optax > 0")
    assert versions_named(conditions, {"flax": "0.12.12"}) == "flax 0.12.12, no optax"


def _entry(sections: str) -> ErrorEntry:
    docstring = "Summary.\n\n" + textwrap.indent(textwrap.dedent(sections), "    ")
    return parse_docstring(docstring, "pkg.errors.MyError", "pkg/errors.py", 10)


OLD_AND_NEW = """\
Bad example:

  :holds for: flax < 0.12.9

  The old way.

  >>> old()
  Traceback (most recent call last):
    ...
  pkg.errors.MyError: old

Unreachable:

  :holds for: flax >= 0.12.9

  >>> print('gone')
  gone
"""


def test_the_line_opens_a_section_and_is_not_prose() -> None:
    entry = _entry(OLD_AND_NEW)
    assert entry.problems == ()
    bad, unreachable = entry.examples
    assert bad.holds_for == (Condition("flax", "<0.12.9"),)
    assert bad.description == "The old way."
    assert unreachable.holds_for == (Condition("flax", ">=0.12.9"),)
    assert not entry.unreachable_with({"flax": "0.12.8"})
    assert entry.unreachable_with({"flax": "0.12.12"})


def test_a_misplaced_or_broken_line_is_a_located_problem() -> None:
    misplaced = _entry("Bad example:\n\n  Prose.\n\n  :holds for: flax < 1\n\n  >>> x = 1\n")
    assert [str(p) for p in misplaced.problems] == [
        "pkg/errors.py:16: ':holds for:' must be the section's first line"
    ]
    broken = _entry("Good example:\n\n  :holds for: flax\n\n  >>> x = 1\n")
    assert len(broken.problems) == 1
    assert str(broken.problems[0]).startswith("pkg/errors.py:14: ':holds for:' cannot read")


def test_an_example_for_other_versions_neither_passes_nor_fails_its_entry() -> None:
    bad, unreachable = _entry(OLD_AND_NEW).examples
    set_aside = judge(bad, None, Verdict.OTHER_VERSIONS, "holds for flax < 0.12.9")
    assert not set_aside.verdict.failed
    evidence = judge(unreachable, None, Verdict.PASSED)
    entry = _entry(OLD_AND_NEW)
    assert entry_status(entry, [set_aside, evidence]) is EntryStatus.UNREACHABLE
    assert entry_status(entry, [set_aside]) is EntryStatus.NOT_RUN


def test_a_platform_clause_holds_on_the_devices_it_names() -> None:
    tpu_only, not_cpu = parse_conditions("platform == tpu"), parse_conditions("platform != cpu")

    assert holds(tpu_only, {"platform": "tpu"})
    assert not holds(tpu_only, {"platform": "cpu"})
    assert not holds(tpu_only, {})  # no device known: nothing device-bound holds
    assert holds(not_cpu, {"platform": "gpu"})
    assert not holds(not_cpu, {"platform": "cpu"})
    assert describe(parse_conditions("platform == TPU, flax >= 0.12")) == (
        "platform == tpu and flax >= 0.12"
    )


def test_a_platform_takes_only_equality() -> None:
    with pytest.raises(ConditionError, match="platform takes == or !="):
        parse_conditions("platform >= tpu")
