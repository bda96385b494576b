"""Another project's docstring on the site: a built ``tests/roots/test-foreign-prose``."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from bs4 import BeautifulSoup

from flax_errors_ext.sphinx.catalogue.library import (
    COPYBUTTON_SELECTOR,
    NOT_RUN_CLASS,
    NOT_RUN_LABEL_CLASS,
)
from tests.utils import module_html

if TYPE_CHECKING:
    from bs4 import Tag
    from sphinx.testing.util import SphinxTestApp

FLAX_LINEN = "https://flax-linen.readthedocs.io/en/latest/"
JAX_DOCS = "https://docs.jax.dev/en/latest/"


@pytest.mark.sphinx("html", testroot="foreign-prose")
def test_a_foreign_docstring_links_known_names_and_labels_code_never_run(
    app: SphinxTestApp,
) -> None:
    app.build()
    assert app.statuscode == 0
    assert "WARNING" not in app.warning.getvalue()
    html = module_html(Path(app.outdir), "api_reference/foreign_lib")
    soup = BeautifulSoup(html, "html.parser")
    section = soup.find("section", id="foreign_lib.LinkedError")
    assert section is not None

    _assert_known_names_link(section)
    _assert_other_names_are_plain_code(section)
    not_run = section.select(f"div.{NOT_RUN_CLASS}")
    _assert_never_run_blocks_are_labelled(not_run)
    _assert_one_foreign_block_runs(section)
    _assert_the_copy_button_skips_never_run_blocks(soup, not_run, Path(app.outdir))


def _assert_known_names_link(section: Tag) -> None:
    """Known names link to their documentation; the link keeps the role's text."""
    links = {
        a.get_text(): a["href"]
        for a in section.select("a.reference.external.flax-errors-api-link")
    }
    assert links == {
        "Module.apply()": FLAX_LINEN
        + "api_reference/flax.linen/module.html#flax.linen.Module.apply",
        "jit()": JAX_DOCS + "_autosummary/jax.jit.html#jax.jit",
        "nn.vmap": FLAX_LINEN + "api_reference/flax.linen/transformations.html#flax.linen.vmap",
        # Our own prose (the catalogue file) links too.
        "jax.vmap()": JAX_DOCS + "_autosummary/jax.vmap.html#jax.vmap",
    }


def _assert_other_names_are_plain_code(section: Tag) -> None:
    """Unknown or ambiguous names are plain code, nothing styled as a link."""
    assert section.select("code.xref") == [
        code for a in section.select("a.flax-errors-api-link") for code in a.select("code")
    ]
    codes = {code.get_text() for code in section.select("code.literal")}
    assert {"jit()", "their.own.function()", "numpy.ndarray"} <= codes
    assert "flax.linen.unknown_name()" in codes  # a Flax name of our own prose


def _assert_never_run_blocks_are_labelled(not_run: list[Tag]) -> None:
    """The blocks that never run: labelled and classed."""
    texts = [block.get_text() for block in not_run]
    assert len(not_run) == 3, texts
    assert "model.apply(variables, inputs)" in texts[0]
    assert "wrapped = jax.jit(model.apply)" in texts[1]
    assert 'print("skipped")' in texts[2]
    for block in not_run:
        label = block.find_previous_sibling()
        assert label is not None
        assert label.name == "p"
        assert NOT_RUN_LABEL_CLASS in label["class"]
        # Typeset by docutils' smart quotes: an apostrophe, not a straight quote.
        assert label.get_text() == "From foreign_lib\u2019s docstring, not run"


def _assert_one_foreign_block_runs(section: Tag) -> None:
    """Of the foreign docstring's blocks, only the one that runs is not classed as never run."""
    ran = [
        block
        for block in section.select(".flax-errors-foreign div.highlight")
        if block.parent is not None and NOT_RUN_CLASS not in block.parent["class"]
    ]
    assert len(ran) == 1
    assert "print(1 + 1)" in ran[0].get_text()


def _assert_the_copy_button_skips_never_run_blocks(
    soup: BeautifulSoup, not_run: list[Tag], outdir: Path
) -> None:
    """The blocks that never run are out of the copy button's reach; the others are not."""
    script = (outdir / "_static" / "copybutton.js").read_text()
    assert f"const COPYBUTTON_SELECTOR = '{COPYBUTTON_SELECTOR}';" in script
    copied = soup.select(COPYBUTTON_SELECTOR)
    assert not {id(pre) for block in not_run for pre in block.select("pre")} & {
        id(pre) for pre in copied
    }
    assert any("print(1 + 1)" in pre.get_text() for pre in copied)
    # The checked examples keep their copy button.
    assert any(pre.find_parent(class_="flax-errors-transcript") for pre in copied)


@pytest.mark.sphinx(
    "html",
    testroot="foreign-prose",
    srcdir="foreign_prose_elsewhere",
    confoverrides={"nitpicky": True, "nb_execution_mode": "off"},
)
def test_references_on_the_projects_own_pages_are_left_to_the_project(
    app: SphinxTestApp,
) -> None:
    """The inventory links only the catalogue's entries: elsewhere Sphinx decides."""
    (Path(app.srcdir) / "notes.rst").write_text(
        ":orphan:\n\nNotes\n=====\n\nSee :py:func:`jax.jit` and :py:func:`jax.no_such_function`.\n"
    )
    app.build()

    notes = (Path(app.outdir) / "notes.html").read_text()
    assert "flax-errors-api-link" not in notes
    assert JAX_DOCS not in notes
    # A nitpicky project hears of each, as it would without the extension.
    warnings = app.warning.getvalue()
    assert re.search(
        r"notes\.rst:\d+: WARNING: py:func reference target not found: jax\.jit\b", warnings
    )
    assert "py:func reference target not found: jax.no_such_function" in warnings
