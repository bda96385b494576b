"""The catalogue format: docstrings into records, every problem located."""

from __future__ import annotations

import textwrap

import pytest

from flax_errors_ext.model.catalogue.parse import parse_docstring, parse_prose
from flax_errors_ext.model.catalogue.records import ErrorEntry, ExampleKind


def parse(body: str, first_line: int = 10) -> ErrorEntry:
    docstring = "Summary of the error.\n\n" + textwrap.indent(textwrap.dedent(body), "    ")
    return parse_docstring(docstring, "pkg.errors.MyError", "pkg/errors.py", first_line)


GOOD = """\
Good example:

  The fix:

  >>> x = [1,
  ...      2]
  >>> x
  [1, 2]
"""

BAD = """\
Bad example:

  >>> raise ValueError
  Traceback (most recent call last):
    ...
  pkg.errors.MyError: text (...)
"""


def test_sections_statements_and_lines() -> None:
    entry = parse("An explanation with ``code``.\n\n" + BAD + "\n" + GOOD)

    assert entry.summary == "Summary of the error."
    assert [p.text for p in entry.prose] == [
        "Summary of the error.\n\nAn explanation with ``code``."
    ]
    # Shown below the summary, the prose does not repeat it.
    assert [p.text for p in entry.details] == ["An explanation with ``code``."]
    assert entry.details[0].lines[0] == entry.prose[0].lines[2]
    assert [p.lines for p in entry.prose] == [(10, 11, 12)]
    assert entry.problems == ()
    bad, good = entry.examples
    assert bad.kind is ExampleKind.BAD
    assert str(bad.location) == "pkg/errors.py:16"
    assert bad.statements[0].exc_msg == "pkg.errors.MyError: text (...)\n"
    assert bad.statements[0].documented_class == "pkg.errors.MyError"
    assert good.kind is ExampleKind.GOOD
    assert good.description == "The fix:"
    assert [s.source for s in good.statements] == ["x = [1,\n     2]\n", "x\n"]
    assert [s.want for s in good.statements] == ["", "[1, 2]\n"]
    assert [s.location.line for s in good.statements] == [25, 27]


def test_skip_option_is_kept() -> None:
    entry = parse("Good example:\n\n  >>> import os  # doctest: +SKIP\n  >>> 1\n  1\n")
    assert [s.skip for s in entry.examples[0].statements] == [True, False]


def test_the_statements_that_run_leave_out_those_marked_skip() -> None:
    entry = parse("Good example:\n\n  >>> import os  # doctest: +SKIP\n  >>> 1\n  1\n")
    assert [s.source.strip() for s in entry.examples[0].statements_run] == ["1"]


@pytest.mark.parametrize(
    ("body", "line", "message"),
    [
        ("Bad example:\n\n  >>> x = 1\n", 14, "must end in the documented traceback"),
        (
            "Bad example:\n\n  >>> raise E\n  Traceback (most recent call last):\n  ...\n"
            "  other.Error: x\n",
            14,
            "documents other.Error, but it belongs to pkg.errors.MyError",
        ),
        (
            "Good example:\n\n  >>> raise E\n  Traceback (most recent call last):\n  ...\n"
            "  pkg.errors.MyError: x\n",
            14,
            "a good example must run cleanly",
        ),
        ("Fixed example:\n\n  >>> x = 1\n", 12, "unknown section title 'Fixed example:'"),
        ("Good example:\n\n  >>> x = = 1\n", 14, "broken doctest syntax"),
        ("Good example:\n\n  >>> def f():\n  ...     return (\n", 15, "broken doctest syntax"),
        ("Good example:\n\n  >>>x = 1\n", 14, "broken doctest syntax"),
        ("Good example:\n\n  The prose only.\n", 12, "has no >>> statements"),
        (">>> x = 1\n", 12, "a doctest outside any section"),
        (
            "Bad example:\n\n  >>> raise E  # doctest: +IGNORE_EXCEPTION_DETAIL\n"
            "  Traceback (most recent call last):\n  ...\n  pkg.errors.MyError: x\n",
            14,
            "IGNORE_EXCEPTION_DETAIL would hide drift",
        ),
    ],
)
def test_format_problems_are_located(body: str, line: int, message: str) -> None:
    entry = parse(body + "\n" + GOOD)

    (problem,) = entry.problems
    assert message in problem.message
    assert str(problem.location) == f"pkg/errors.py:{line}"
    # The rest of the docstring is still read.
    assert [e.kind for e in entry.examples] == [ExampleKind.GOOD]


def test_titles_without_examples_stay_explanation() -> None:
    entry = parse("Note:\n  A note, not an example.\n\n" + GOOD)
    assert entry.problems == ()
    assert entry.prose[-1].text.endswith("Note:\n  A note, not an example.")


SEEN_AS = """\
Also seen as:

  Where the library's own check is not in place:

  >>> raise TypeError("not a valid type")
  Traceback (most recent call last):
    ...
  {documented}
"""


def test_also_seen_as_documents_another_errors_traceback() -> None:
    entry = parse(BAD + "\n" + SEEN_AS.format(documented="TypeError: not a valid type"))
    assert entry.problems == ()
    (seen_as,) = (e for e in entry.examples if e.kind is ExampleKind.SEEN_AS)
    assert seen_as.statements[-1].documented_class == "TypeError"
    assert seen_as.description == "Where the library's own check is not in place:"


@pytest.mark.parametrize(
    "documented",
    ["pkg.errors.MyError: text", "not a traceback"],
    ids=["own-class", "no-traceback"],
)
def test_also_seen_as_must_end_in_another_errors_traceback(documented: str) -> None:
    body = SEEN_AS.format(documented=documented)
    if "Traceback" not in documented:
        body = body.replace("  Traceback (most recent call last):\n    ...\n", "")
    (problem,) = parse(BAD + "\n" + body).problems
    assert "'Also seen as:' must end in the documented traceback" in problem.message


def test_an_opening_sentence_cut_by_a_blank_line_is_made_whole() -> None:
    docstring = (
        "This error is thrown when the shape is different from\n\n"
        "  the shape of the init_fn. More text.\n\n"
        "  A second paragraph.\n"
    )
    summary, (prose,) = parse_prose(docstring, "flax/errors.py", 100)
    assert (
        summary
        == "This error is thrown when the shape is different from the shape of the init_fn."
    )
    assert prose.text.split("\n\n")[0] == (
        "This error is thrown when the shape is different from\n"
        "the shape of the init_fn. More text."
    )
    assert prose.lines[:2] == (100, 102)  # each line keeps its place in the file
    # An opening that ends its sentence keeps its paragraph.
    whole = "A whole sentence.\n\n  Another paragraph.\n"
    assert parse_prose(whole, "f.py", 1)[1][0].text == "A whole sentence.\n\nAnother paragraph."


NAPOLEON = """\
Examples:

  A call that fails.

  >>> def f():
  ...   raise ValueError
  >>> f()
  Traceback (most recent call last):
    ...
  pkg.errors.MyError: text

  >>> x = [1, 2]

  >>> x
  [1, 2]
"""


def test_a_napoleon_section_is_read_as_a_bad_and_a_good_example() -> None:
    entry = parse("An explanation.\n\n" + NAPOLEON)

    assert entry.problems == ()
    assert [p.text for p in entry.prose] == ["Summary of the error.\n\nAn explanation."]
    bad, good = entry.examples
    assert (bad.kind, bad.description, len(bad.statements)) == (
        ExampleKind.BAD,
        "A call that fails.",
        2,
    )
    assert bad.statements[-1].documented_class == "pkg.errors.MyError"
    assert str(bad.location) == "pkg/errors.py:18"
    # A traceback ends an example; blocks with no prose between them are one.
    assert (good.kind, good.description) == (ExampleKind.GOOD, "")
    assert [(s.source, s.want) for s in good.statements] == [
        ("x = [1, 2]\n", ""),
        ("x\n", "[1, 2]\n"),
    ]
    assert [s.location.line for s in good.statements] == [25, 27]
    assert parse("An explanation.\n\n" + NAPOLEON.replace("Examples:", "Example:")) == entry


@pytest.mark.parametrize(
    ("change", "line", "message"),
    [
        (("pkg.errors.MyError: text", "ValueError: text"), 18, "documents ValueError"),
        (("  >>> x\n  [1, 2]", "  >>> x\n  [1, 2]\n  >>> y = = 1"), 27, "broken doctest syntax"),
        (
            ("  >>> f()", "  >>> f()  # doctest: +IGNORE_EXCEPTION_DETAIL"),
            18,
            "IGNORE_EXCEPTION_DETAIL would hide drift",
        ),
    ],
)
def test_a_napoleon_section_with_a_problem_yields_no_example(
    change: tuple[str, str], line: int, message: str
) -> None:
    entry = parse(NAPOLEON.replace(*change))

    (problem,) = entry.problems
    assert message in problem.message
    assert str(problem.location) == f"pkg/errors.py:{line}"
    # Not even the good one: such a section is a library's own, not the catalogue's.
    assert entry.examples == ()


def test_a_napoleon_section_of_prose_stays_explanation() -> None:
    entry = parse("Examples:\n  Call it twice.\n")
    assert (entry.problems, entry.examples) == ((), ())
    assert entry.prose[-1].text.endswith("Examples:\n  Call it twice.")
