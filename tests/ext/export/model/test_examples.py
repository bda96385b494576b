"""The examples a docstring keeps, and their section in Flax's style."""

from __future__ import annotations

import doctest
import textwrap

from flax_errors_ext.ext.export.model.style import examples_section, kept_examples
from flax_errors_ext.model.catalogue.parse import parse_docstring
from flax_errors_ext.model.catalogue.records import ErrorEntry, ExampleKind

LONG = "The first argument passed to an apply function should be a dictionary of collections."

ENTRY = f"""\
Summary.

Bad example:

  :holds for: flax < 0.12.9

  Only on old releases.

  >>> raise MyError('old')
  Traceback (most recent call last):
    ...
  pkg.MyError: old

Bad example:

  A call that fails everywhere, with a description long enough to be wrapped by the export.

  >>> import math
  >>> from os import path
  >>> def fail(x):
  ...     if x:
  ...         raise MyError('{LONG}')
  >>> fail(math.pi)
  Traceback (most recent call last):
    ...
  pkg.MyError: {LONG} (https://example.org/errors.html#pkg.MyError)

Unreachable:

  >>> print('evidence')
  evidence

Good example:

  >>> import math
  >>> from os import path
  >>> import json
  >>> value = {{'key': 'a value', 'other key': 'another value', 'third': 'and a third', 'n': 4}}
  >>> print(json.dumps(value))
  {{"key": "a value", "other key": "another value", "third": "and a third", "n": 4}}

Good example:

  The second good example.

  >>> x = 1
"""


def entry(text: str = ENTRY) -> ErrorEntry:
    return parse_docstring(text, "pkg.MyError", "pkg/MyError.txt", 1)


def test_the_first_bad_and_good_that_hold_everywhere_are_kept() -> None:
    bad, good = kept_examples(entry())

    assert (bad.kind, bad.location.line) == (ExampleKind.BAD, 18)
    assert (good.kind, good.location.line) == (ExampleKind.GOOD, 35)
    assert kept_examples(entry("Summary.\n")) == ()


def test_the_section_reads_back_as_the_examples_it_keeps() -> None:
    section = examples_section(kept_examples(entry()), 2)
    assert section is not None
    text = "\n".join(section.lines)

    # Within Flax's 80 columns at the docstring's indent, but for a string no formatter breaks.
    assert [line for line in section.lines if len(line) > 78] == [f"  ...         '{LONG}'"]
    assert "http" not in text
    # Each example keeps its imports: the site runs it in a namespace of its own.
    assert text.count(">>> import math") == 2
    assert "...   if x:\n  ...     raise MyError(" in text
    assert section.shape == ((ExampleKind.BAD, 4), (ExampleKind.GOOD, 5))
    again = parse_docstring("Summary.\n\n" + text, "pkg.MyError", "x.py", 1)
    assert again.problems == ()
    assert [(e.kind, len(e.statements)) for e in again.examples] == list(section.shape)
    bad, good = again.examples
    assert bad.description.startswith("A call that fails everywhere")
    assert dict(bad.statements[-1].options) == {doctest.NORMALIZE_WHITESPACE: True}
    assert dict(good.statements[-1].options) == {doctest.NORMALIZE_WHITESPACE: True}


def test_the_wrapped_documented_text_accepts_what_is_printed() -> None:
    section = examples_section(kept_examples(entry()), 2)
    assert section is not None
    example = parse_docstring("S.\n\n" + "\n".join(section.lines), "pkg.MyError", "x", 1)
    printed = '{"key": "a value", "other key": "another value", "third": "and a third", "n": 4}\n'
    good = example.examples[1].statements[-1]
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    assert doctest.OutputChecker().check_output(good.want, printed, flags)
    raised = f"pkg.MyError: {LONG} (https://example.org/errors.html#pkg.MyError)\n"
    bad = example.examples[0].statements[-1]
    assert bad.exc_msg is not None
    assert doctest.OutputChecker().check_output(bad.exc_msg, raised, flags)


def test_one_example_is_titled_example() -> None:
    good_only = textwrap.dedent(ENTRY[ENTRY.index("Good example:") :])
    section = examples_section(kept_examples(entry("Summary.\n\n" + good_only)), 2)

    assert section is not None
    assert section.lines[0] == "Example:"
    assert examples_section((), 2) is None
