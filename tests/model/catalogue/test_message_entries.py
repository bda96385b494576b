"""Message entries: errors a library raises as builtin exceptions, one file each."""

from __future__ import annotations

import textwrap

import pytest

from flax_errors_ext.model.catalogue.discover import CatalogueFile, message_entries
from flax_errors_ext.model.catalogue.parse import parse_docstring
from flax_errors_ext.model.config.values import ModuleSpec

ENTRY = textwrap.dedent(
    """\
    A number written in words was parsed as an integer.

    Bad example:

      ``int`` given a word.

      >>> int("three")
      Traceback (most recent call last):
        ...
      ValueError: invalid literal for int() with base 10: 'three'

    Good example:

      Parse digits.

      >>> int("3")
      3
    """
)
SPEC = ModuleSpec.from_value({"module": "demo.messages", "messages": True})


def test_a_message_entry_documents_the_builtin_class_it_is_raised_as() -> None:
    entry = parse_docstring(ENTRY, "demo.messages.WordsAsInteger", "W.txt", 1, message=True)

    assert entry.problems == ()
    assert entry.message
    assert entry.raised_as == ("ValueError",)
    assert [e.kind.value for e in entry.examples] == ["bad", "good"]


def test_the_same_text_as_a_class_entry_is_malformed() -> None:
    # A class's entry must raise the class itself: ValueError is not demo.messages.X.
    entry = parse_docstring(ENTRY, "demo.messages.WordsAsInteger", "W.txt", 1)

    assert not entry.message
    assert [p.message for p in entry.problems] == [
        "this bad example documents ValueError, but it belongs to demo.messages.WordsAsInteger"
    ]


def test_a_message_entry_without_a_raising_bad_example_says_what_it_needs() -> None:
    good_only = ENTRY[ENTRY.index("Good example:") :]
    entry = parse_docstring(
        "An error.\n\n" + good_only, "demo.messages.X", "X.txt", 1, message=True
    )

    (problem,) = entry.problems
    assert "a message entry needs a 'Bad example:'" in problem.message
    assert str(problem.location) == "X.txt:1"


def test_each_file_of_a_group_is_an_entry_named_by_the_file_and_placed_by_the_layout() -> None:
    files = {
        "WordsAsInteger": CatalogueFile("cat/demo.messages/WordsAsInteger.txt", ENTRY),
        "AnotherOne": CatalogueFile("cat/demo.messages/AnotherOne.txt", ENTRY),
    }

    entries = message_entries(SPEC, files)

    assert [e.qualname for e in entries] == [
        "demo.messages.AnotherOne",
        "demo.messages.WordsAsInteger",
    ]
    assert entries[1].site.path == (
        "api_reference/demo.messages/WordsAsInteger.html#demo.messages.WordsAsInteger"
    )
    assert str(entries[1].location) == "cat/demo.messages/WordsAsInteger.txt:1"


def test_a_file_name_that_is_no_identifier_is_a_located_problem() -> None:
    files = {"words-as-int": CatalogueFile("cat/demo.messages/words-as-int.txt", ENTRY)}

    (entry,) = message_entries(SPEC, files)

    (problem,) = entry.problems
    assert "'words-as-int' is not an identifier" in problem.message
    assert str(problem.location) == "cat/demo.messages/words-as-int.txt:1"


def test_a_module_spec_says_whether_it_is_a_group_of_message_entries() -> None:
    assert ModuleSpec.from_value("flax.messages").messages
    assert ModuleSpec.from_value("jax.messages").messages
    assert not ModuleSpec.from_value("flax.errors").messages
    with pytest.raises(TypeError, match=r"^x.messages: 'messages' must be True or False$"):
        ModuleSpec.from_value({"module": "x.messages", "messages": "yes"})
