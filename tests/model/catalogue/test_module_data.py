"""A module's data: what its module.toml holds, checked and made a typed record."""

from __future__ import annotations

import tomllib
from typing import Any

import pytest

from flax_errors_ext.model.catalogue.module_data import ModuleData, module_data
from flax_errors_ext.model.catalogue.repairs import DocstringFix

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
