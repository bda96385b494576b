"""The help index: the texts ``explain`` matches, written down, and answered alike."""

from __future__ import annotations

import json
import textwrap

import pytest

from flax_errors_ext.model.catalogue.parse import parse_docstring
from flax_errors_ext.model.lookup.find import find
from flax_errors_ext.model.lookup.help_index import HelpIndex, answer, help_index
from flax_errors_ext.model.lookup.texts import MIN_FIRST_LINE, Text, failing_call, findable

KEY = textwrap.dedent(
    """\
    A setting was read by a name it was never stored under.

    Bad example:

      >>> settings = {"learning_rate": 0.1}
      >>> settings["lr"]
      Traceback (most recent call last):
        ...
      KeyError: 'lr'

    Good example:

      Read it by the name it was stored under.

      >>> {"learning_rate": 0.1}["learning_rate"]
      0.1
    """
)
FIRST_LINE = (
    "Found unexpected data in static attribute 'layers' of Pytree type '<class '...MLP'>'."
)
LAYERS = f"""\
A Module keeps its layers in a plain list.

Bad example:

  >>> class MLP:
  ...     def __init__(self):
  ...         self.layers = []
  ...         raise ValueError("Found unexpected data in static attribute 'layers' of Pytree "
  ...                          "type '<class '__main__.MLP'>'.\\nConsider one of the options.")
  >>> MLP()
  Traceback (most recent call last):
    ...
  ValueError: {FIRST_LINE}
  Consider one of the options.
"""
ENTRIES = [
    parse_docstring(KEY, "demo.messages.SettingNotStored", "K.txt", 1, message=True),
    parse_docstring(LAYERS, "demo.messages.LayersInPlainList", "L.txt", 1, message=True),
]
INDEX = help_index((e, f"https://x.org/{e.name}.html", "Do it right.") for e in ENTRIES)


FRAME = 'Traceback (most recent call last):\n  File "/venv/site-packages/demo/config.py", line 9\n'


def test_a_builtins_message_answers_only_a_paste_of_its_class() -> None:
    found = find(ENTRIES, FRAME + "KeyError: 'momentum'")
    assert [m.entry.name for m in found] == ["SettingNotStored"]
    # The same quoted value, raised as another class, is another error.
    assert find(ENTRIES, FRAME + "ValueError: 'momentum'") == []
    # A message pasted without its class may be either.
    assert [m.entry.name for m in find(ENTRIES, FRAME + "'momentum'")] == ["SettingNotStored"]


def test_pythons_own_words_for_any_object_answer_only_with_a_frame_of_the_library() -> None:
    assert find(ENTRIES, "KeyError: 'momentum'") == []
    elsewhere = FRAME.replace("/demo/", "/other/")
    assert find(ENTRIES, elsewhere + "KeyError: 'momentum'") == []


def test_the_first_line_of_a_message_stands_for_it_with_the_readers_names() -> None:
    first = (
        "Found unexpected data in static attribute 'blocks' of Pytree type '<class 'model.Net'>'."
    )
    assert len(first) >= MIN_FIRST_LINE

    (match,) = find(ENTRIES, f"ValueError: {first}")

    assert (match.entry.name, match.how) == ("LayersInPlainList", "message")


def test_the_index_holds_each_text_with_what_is_derived_from_it_and_reads_back() -> None:
    data = json.loads(json.dumps(INDEX.to_json()))

    read = HelpIndex.from_json(data)

    assert read == INDEX
    assert [t.documented for t in read.entries[1].found.texts] == [
        t.documented for t in findable(ENTRIES[1]).texts
    ]
    assert read.entries[0].lines() == (
        "help: Do it right.",
        "see: https://x.org/SettingNotStored.html",
    )


@pytest.mark.parametrize(
    "pasted",
    [
        "KeyError: 'momentum'",
        FRAME + "KeyError: 'momentum'",
        "ValueError: 'momentum'",
        "Found unexpected data in static attribute 'w' of Pytree type '<class 'a.B'>'.",
        "ValueError: Found unexpected data in static attribute.",
        "RuntimeError: the kernel died",
    ],
)
def test_the_help_answers_where_explain_does_and_is_silent_where_it_is(pasted: str) -> None:
    matches = find(ENTRIES, pasted)
    found = answer(INDEX, pasted)

    assert (found.found.qualname if found else None) == (
        matches[0].entry.qualname if matches else None
    )


def test_an_index_of_another_schema_is_refused_saying_so() -> None:
    with pytest.raises(ValueError, match="not a flax-errors help index of schema 2"):
        HelpIndex.from_json({"schema": 99, "entries": []})
    with pytest.raises(ValueError, match="not a flax-errors help index"):
        HelpIndex.from_json({"schema": 2, "entries": [{"qualname": "x"}]})


def test_a_later_index_replaces_an_entry_of_the_same_name() -> None:
    other = help_index([(ENTRIES[0], "https://y.org/", "Other fix.")])

    merged = INDEX + other

    assert [e.found.qualname for e in merged.entries] == [
        "demo.messages.LayersInPlainList",
        "demo.messages.SettingNotStored",
    ]
    assert merged.entries[1].fix == "Other fix."


def test_pythons_words_raised_in_the_readers_code_need_no_frame_where_they_name_more() -> None:
    # Of the reader's own code, as its runs raised them: no frame of the library to show.
    unfreeze = Text.of("'dict' object has no attribute 'unfreeze'", plain=True, library="flax")
    append = Text.of("'tuple' object has no attribute 'append'", plain=True, library="flax")
    key = Text.of("'momentum'", plain=True, library="flax")
    # Raised in the library's own file: its frame says which.
    raised_there = Text.of(
        "'dict' object has no attribute 'unfreeze'",
        plain=True,
        library="flax",
        sites=("flax/core/frozen_dict.py",),
    )

    assert unfreeze.context == ""
    assert (append.context, key.context, raised_there.context) == ("flax", "flax", "flax")


def test_pythons_words_raised_in_the_readers_code_keep_the_call_they_are_about() -> None:
    unpack = "too many values to unpack (expected 2...)"

    popped = Text.of(unpack, plain=True, library="flax", call=failing_call(POP))
    raised_there = Text.of(
        unpack, plain=True, library="flax", sites=("flax/core/scope.py",), call=".pop('params')"
    )

    assert (popped.context, popped.code) == ("flax", ".pop('params')")
    assert raised_there.code == ""


POP = 'state, params = variables.pop( "params" )'


@pytest.mark.parametrize(
    ("source", "call"),
    [
        (POP, ".pop('params')"),
        ("x = freeze(a, 'b', key=1)", ""),  # a variable among the arguments says too little
        ("a, b = model.init()", ""),
        ("y = x + 1", ""),
        ("x = [", ""),
    ],
)
def test_the_call_a_statement_makes_is_kept_where_its_arguments_are_literals(
    source: str, call: str
) -> None:
    assert failing_call(source) == call
