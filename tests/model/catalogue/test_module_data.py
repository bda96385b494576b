"""A module's data: what its module.toml holds, checked and made a typed record; its repairs.

The exact repairs to a library's docstrings are the lists that the site and export share.
"""

from __future__ import annotations

import inspect
import tomllib
from typing import Any

import flax.errors
import jax
import jax.errors
import jax.numpy as jnp
import pytest

from flax_errors_ext.execution.catalogue.modules import read_module_data
from flax_errors_ext.model.catalogue.discover import SHIPPED_CATALOGUE
from flax_errors_ext.model.catalogue.module_data import (
    DocstringFix,
    ModuleData,
    module_data,
    repaired,
    repaired_docstring,
)

TEXT = '''
order = 2
area = "Everything else"
related = [["ShapeError", "TypeError"], ["ShapeError", "other.lib.SizeError"]]

[areas]
"Shapes" = ["ShapeError"]
"Types" = ["TypeError", "CastError"]

[notes.ShapeError]
doc = "shape_design"
title = "Why shapes are checked late"

[[repair]]
error = "ShapeError"
old = "(5, 5, 1)"
new = "(5, 5)"
why = """
The prose swaps \\
the shapes."""
'''


def test_every_key_becomes_part_of_the_record() -> None:
    data = module_data("lib", "cat/lib/module.toml", tomllib.loads(TEXT))
    assert data == ModuleData(
        path="cat/lib/module.toml",
        order=2,
        area="Everything else",
        areas=(("Shapes", ("ShapeError",)), ("Types", ("TypeError", "CastError"))),
        # A bare name is the module's class; a dotted one another module's error.
        related=(("lib.ShapeError", "lib.TypeError"), ("lib.ShapeError", "other.lib.SizeError")),
        notes=(("ShapeError", "shape_design", "Why shapes are checked late"),),
        repairs=(
            DocstringFix(
                "ShapeError",
                "(5, 5, 1)",
                "(5, 5)",
                "The prose swaps the shapes.",
                "cat/lib/module.toml",
            ),
        ),
    )
    # The classes of the module it names, each where it names it.
    assert data.names("lib") == [
        ("areas", "ShapeError"),
        ("areas", "TypeError"),
        ("areas", "CastError"),
        ("related", "ShapeError"),
        ("related", "TypeError"),
        ("related", "ShapeError"),
        ("notes", "ShapeError"),
        ("repair", "ShapeError"),
    ]


def test_an_empty_file_is_empty_data() -> None:
    assert module_data("lib", "m.toml", {}) == ModuleData("m.toml")


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"areas": {"A": ["E"]}, "area_order": 1}, "unknown key area_order"),
        ({"order": "1"}, "order must be an integer"),
        ({"order": True}, "order must be an integer"),
        ({"area": ["A"]}, "area must be a string"),
        ({"areas": ["E"]}, r"areas must be a table \(\[areas\]\)"),
        ({"areas": {"A": "E"}}, "areas.A must be a list of class names"),
        ({"areas": {"A": ["E"], "B": ["F", "E"]}}, "one area at most: E in two"),
        ({"related": [["E", 1]]}, "each group of related must be a list of class names"),
        ({"notes": {"E": {"doc": "d"}}}, "notes.E needs doc, title, each a string"),
        ({"notes": {"E": {"doc": "d", "title": "t", "url": "u"}}}, "unknown key notes.E.url"),
        ({"repair": {"error": "E"}}, r"repair must be an array of tables \(\[\[repair\]\]\)"),
        ({"repair": [{"error": "E", "old": "a", "new": "a b", "why": "w"}]}, "does not keep"),
    ],
)
def test_what_a_module_toml_cannot_hold_is_said(table: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        module_data("lib", "m.toml", table)


FLAX_FIXES = read_module_data("flax.errors", [SHIPPED_CATALOGUE]).repairs
JAX_FIXES = read_module_data("jax.errors", [SHIPPED_CATALOGUE]).repairs

DOCSTRING = """The shape is wrong.

    The apply shape (``(5, 5, 1)``) differs
    from the init shape::

      f(x)
    """


def test_a_repair_replaces_every_occurrence_and_reports_none() -> None:
    fix = DocstringFix("E", old="a(1)", new="a(2)", why="")
    assert repaired("a(1) then a(1)", [fix]) == ("a(2) then a(2)", ())


def test_a_repair_already_made_is_neither_made_again_nor_stale() -> None:
    fix = DocstringFix("E", old="a(1)", new="a(1, 2)", why="")
    assert repaired("a(1, 2)", [fix]) == ("a(1, 2)", ())


def test_a_repair_whose_texts_are_both_gone_is_stale() -> None:
    gone = DocstringFix("E", old="a(1)", new="a(2)", why="")
    deleted = DocstringFix("E", old=" extra", new="", why="")
    assert repaired("b(3)", [gone, deleted]) == ("b(3)", (gone, deleted))
    assert "no longer holds 'a(1)'" in gone.stale_message()
    assert gone.stale_message().endswith("review it in its module.toml")
    listed = DocstringFix("E", old="a(1)", new="a(2)", why="", path="cat/lib/module.toml")
    assert listed.stale_message().endswith("review it in cat/lib/module.toml")


@pytest.mark.parametrize(
    ("old", "new", "why"),
    [
        ("x", "xy", "does not keep"),
        ("", "y", "does not keep"),
        ("one line", "two\nlines", "number of lines"),
    ],
)
def test_a_repair_must_replace_its_text_and_keep_the_lines(old: str, new: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        DocstringFix("E", old=old, new=new, why="")


def test_a_docstring_is_repaired_line_for_line_as_cleandoc_reads_it() -> None:
    fix = DocstringFix("E", old="(``(5, 5, 1)``) differs", new="(``(5, 5)``) differs", why="")
    text, stale = repaired_docstring(DOCSTRING, [fix])
    assert stale == ()
    assert text.split("\n") == [
        "The shape is wrong.",
        "",
        "The apply shape (``(5, 5)``) differs",
        "from the init shape::",
        "",
        "  f(x)",
        "",
    ]
    # Line n is still line n: what the site numbers from the docstring's first line.
    assert len(text.split("\n")) == len(DOCSTRING.split("\n"))
    assert inspect.cleandoc(text) == inspect.cleandoc(DOCSTRING).replace("(5, 5, 1)", "(5, 5)")


def test_a_docstring_without_a_repair_to_make_is_returned_as_it_is() -> None:
    made = DocstringFix("E", old="(5, 5, 1)", new="(5, 5, 2)", why="")
    assert repaired_docstring(DOCSTRING, []) == (DOCSTRING, ())
    right = DOCSTRING.replace("(5, 5, 1)", "(5, 5, 2)")
    assert repaired_docstring(right, [made]) == (right, ())


def test_every_flax_repair_applies_to_the_installed_flax() -> None:
    """A repair that Flax has made itself changes nothing; none may be stale."""
    assert FLAX_FIXES
    for fix in FLAX_FIXES:
        assert fix.path == str(SHIPPED_CATALOGUE / "flax.errors" / "module.toml")
        docstring = inspect.cleandoc(getattr(flax.errors, fix.name).__doc__)
        assert fix.old in docstring or fix.new in docstring, fix
        assert fix.why, fix


def test_scope_param_shape_errors_shapes_are_put_the_right_way_round() -> None:
    docstring = flax.errors.ScopeParamShapeError.__doc__ or ""
    fixes = [f for f in FLAX_FIXES if f.name == "ScopeParamShapeError"]
    text, stale = repaired_docstring(docstring, fixes)
    assert stale == ()
    assert "the apply shape\n(``(5, 5)``) is different from the init shape (``(5, 5, 1)``)" in text
    # The code block the prose describes: init with (5, 5, 1), apply with (5, 5).
    assert "init(random.key(0), jnp.ones((5, 5, 1)))" in text
    assert "apply(variables, jnp.ones((5, 5)))" in text
    assert "this error::" in text


def test_every_jax_repair_applies_to_the_installed_jax() -> None:
    """The same check for jax.errors, on whichever jax this stack runs."""
    assert JAX_FIXES
    for fix in JAX_FIXES:
        docstring = inspect.cleandoc(getattr(jax.errors, fix.name).__doc__)
        assert fix.old in docstring or fix.new in docstring, fix
        assert fix.why, fix


def test_the_jax_repairs_are_made_and_none_is_stale() -> None:
    by_class: dict[str, list[DocstringFix]] = {}
    for fix in JAX_FIXES:
        by_class.setdefault(fix.name, []).append(fix)
    texts = {}
    for name, fixes in by_class.items():
        docstring = getattr(jax.errors, name).__doc__ or ""
        texts[name], stale = repaired_docstring(docstring, fixes)
        assert stale == (), name
        assert len(texts[name].split("\n")) == len(docstring.split("\n")), name
    # An array cannot be marked static (it is not hashable), so the prose no longer says so.
    assert "marked as static" not in texts["NonConcreteBooleanIndexError"]
    boolean = texts["NonConcreteBooleanIndexError"]
    assert "compile-time\n  because it depends on the values in `x`, and so" in boolean
    # The quoted words are those the message prints.
    leaked = texts["UnexpectedTracerError"]
    assert "``When the value was created, the final 5 stack frames ...``" in leaked


def test_an_array_cannot_be_marked_static_as_the_repaired_prose_says() -> None:
    """What the NonConcreteBooleanIndexError repair rests on, measured on this stack's jax."""
    positive_values = jax.jit(lambda x: x[x > 0], static_argnums=0)
    with pytest.raises(ValueError, match="Non-hashable static arguments are not supported"):
        positive_values(jnp.arange(-5, 5))
