"""An entry's job: its examples' statements, numbered as doctest numbers them."""

from __future__ import annotations

import textwrap

from flax_errors_ext.model.catalogue.parse import parse_docstring
from flax_errors_ext.model.runs.jobs import entry_job, statement_numbers

DOCSTRING = textwrap.dedent(
    """\
    Raised when x.

    Bad example:

      >>> x = 1
      >>> x = 2  # doctest: +SKIP
      >>> raise ValueError(x)
      Traceback (most recent call last):
        ...
      ValueError: 1

    Good example:

      >>> print(x)
      1
    """
)


def test_statements_are_numbered_across_the_docstring_and_skipped_ones_left_out() -> None:
    entry = parse_docstring(DOCSTRING, "pkg.E", "pkg/errors.py", 1, message=True)

    job = entry_job(entry, "pkg", ("/project",), 1000)

    assert [[n for n, _ in example.statements] for example in job.examples] == [[0, 2], [3]]
    assert statement_numbers(entry) == [[0, 2], [3]]
    assert (job.total, job.module, job.import_paths, job.output_limit) == (
        4,
        "pkg",
        ("/project",),
        1000,
    )


def test_another_projects_example_runs_in_its_modules_namespace() -> None:
    entry = parse_docstring(DOCSTRING, "pkg.E", "pkg/errors.py", 1, message=True)

    ours = entry_job(entry, None)

    assert {example.module_namespace for example in ours.examples} == {None}
