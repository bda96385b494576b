"""The figures of a patched flax/errors.py, and the pins the doctests' venv takes."""

from __future__ import annotations

import pytest

from tools.flax_export.figures import Shape, pins, report


def test_shape_counts_lines_prompts_and_width() -> None:
    text = 'class E:\n  """Doc.\n\n  >>> x = 1\n  ... \n  >>> x\n  1\n  """\n' + "#" * 81 + "\n"

    assert Shape.of(text) == Shape(lines=9, prompts=2, longest=81, over_width=1)
    assert Shape.of("") == Shape(lines=0, prompts=0, longest=0, over_width=0)


def test_report_puts_flaxs_figure_first() -> None:
    assert report("a\n", "a\n>>> b\n") == (
        "lines: 1 -> 2\nprompts: 0 -> 1\nlongest: 1 -> 5\nover width: 0 -> 0"
    )


def test_pins_are_read_by_canonical_name_in_the_order_asked() -> None:
    lines = [
        "absl-py==2.5.1",
        "Flax==0.12.8  # via x",
        "jax==0.10.2",
        "jaxlib==0.10.2",
        "pytest_xdist==3.8",
    ]

    assert pins(lines, ["jax", "flax", "pytest-xdist"]) == [
        "jax==0.10.2",
        "Flax==0.12.8",
        "pytest_xdist==3.8",
    ]
    with pytest.raises(ValueError, match="do not pin pytest, numpy"):
        pins(lines, ["flax", "pytest", "numpy"])
