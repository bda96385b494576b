"""Each error across the recorded releases as nodes: strips, retired errors, the matrix.

Everything shown is computed by :mod:`flax_errors_ext.ext.history.model.view`. A cell
is a :class:`history_cell`, an inline whose HTML carries its tooltip; other builders
render it as its text. An entry gets its strip and line; the module's page, one box
per retired class at the anchor its old URLs name; the error index, every error by
release in a box that scrolls sideways on a narrow screen.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import TYPE_CHECKING

from docutils import nodes

from flax_errors_ext.ext.history.model.cells import CellState
from flax_errors_ext.sphinx.table import table

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from sphinx.writers.html5 import HTML5Translator

    from flax_errors_ext.ext.history.model.cells import Cell
    from flax_errors_ext.ext.history.model.view import ModuleHistory
    from flax_errors_ext.layout import SiteLayout

    Link = Callable[[str, nodes.Node], nodes.Node]
    """A link to an error's anchor, around the given node."""

CELL_CLASS = "flax-errors-cell"
GLYPHS = {
    CellState.SAME: "=",
    CellState.CHANGED: "≠",
    CellState.NOT_RAISED: "\u2013",  # an en dash
    CellState.NOT_PRESENT: "\u00a0",
    CellState.COULD_NOT_RUN: "\u00d7",  # a multiplication sign
    CellState.PRESENT: "○",
    CellState.STALE: "?",
    CellState.NOT_RUN: "·",
}
"""What a cell of the matrix shows besides its colour, so that colour is not all."""


class history_cell(nodes.inline):
    """One release of an error's history: a coloured cell with a tooltip."""


def visit_cell_html(self: HTML5Translator, node: history_cell) -> None:
    """``<span class="flax-errors-cell same" title="...">``, newlines kept in the tooltip."""
    classes = html.escape(" ".join(node["classes"]), quote=True)
    title = html.escape(node["title"], quote=True).replace("\n", "&#10;")
    self.body.append(f'<span class="{classes}" title="{title}">')


def depart_cell_html(self: HTML5Translator, node: history_cell) -> None:
    """Close the cell."""
    self.body.append("</span>")


def cell(item: Cell, module: str, text: str) -> history_cell:
    """A cell showing ``text``, coloured by its state, with its tooltip."""
    classes = [CELL_CLASS, item.state.value] + (["current"] if item.current else [])
    node = history_cell(text, text, classes=classes)
    node["title"] = item.title(module)
    return node


def strip(cells: Sequence[Cell], view: ModuleHistory, text: str) -> nodes.paragraph:
    """A row of cells, each labelled with its release's short label, then ``text``."""
    line = nodes.paragraph(classes=["flax-errors-history"])
    row = nodes.inline(classes=["flax-errors-strip"])
    for number, item in enumerate(cells):
        if number:
            row += nodes.Text(" ")  # for text output; a flex row drops it
        row += cell(item, view.module, view.label(item.release))
    line += row
    if text:
        line += nodes.Text(text)
    return line


def entry_history(name: str, view: ModuleHistory) -> list[nodes.Node]:
    """An entry's strip and line, and the note on records left out as stale."""
    found = view.entry(name)
    if found is None:
        return []
    text = "".join(f" {part}." for part in (found.line, found.rewritten) if part)
    parts: list[nodes.Node] = [strip(found.cells, view, text)]
    if found.stale:
        note = (
            f"History of flax {found.stale_releases} not shown: {Path(view.source).name} has "
            "no record of this entry's bad examples as they are now (they changed, or are "
            "new, since it was recorded)."
        )
        parts.append(nodes.paragraph(note, note, classes=["flax-errors-history-stale"]))
    return parts


def retired_box(view: ModuleHistory, layout: SiteLayout) -> list[nodes.Node]:
    """A "Retired errors" box: one short box per class the module has no longer.

    Each stands where the links its class printed land (``layout.printed``). Boxes
    with rubrics, not sections, for the reason
    :func:`flax_errors_ext.sphinx.catalogue.module_page._grouped` gives: no
    label of the project's own pages is taken.
    """
    if not view.retired:
        return []
    title = "Retired errors"
    box = nodes.container(ids=[f"retired-{nodes.make_id(view.module)}"])
    box += nodes.rubric(title, title, classes=["flax-errors-area"])
    intro = (
        f"Classes {view.module} had in a recorded release and has no longer. A link "
        "that names one lands here."
    )
    box += nodes.paragraph(intro, intro)
    for gone in view.retired:
        anchor = layout.printed(f"{view.module}.{gone.name}").anchor
        entry = nodes.container(ids=[anchor], classes=["flax-errors-retired"])
        entry += nodes.rubric(gone.name, gone.name, classes=["flax-errors-retired-name"])
        entry += strip(gone.cells, view, " " + gone.line)
        box += entry
    return [box]


def matrix(view: ModuleHistory, link: Link, anchor: str) -> list[nodes.Node]:
    """Every error of the module by release, with a legend, in a box that scrolls sideways."""
    title = f"{view.module} across releases"
    heading = nodes.rubric(title, title, ids=[anchor], classes=["flax-errors-area"])
    intro = nodes.paragraph(classes=["flax-errors-legend"])
    intro += nodes.Text("What each error's bad examples did on each Flax release")
    if view.current:
        intro += nodes.Text(f" (outlined: this build's own run, on flax {view.current})")
    intro += nodes.Text("; hover over a cell for what its release raised. ")
    used = {c.state for row in view.rows for c in row.cells}
    for state in (s for s in CellState if s in used):
        key = nodes.inline(classes=["flax-errors-key"])
        meaning = state.meaning.replace("the module", view.module)
        text = GLYPHS[state]
        key += history_cell(text, text, classes=[CELL_CLASS, state.value], title=meaning)
        key += nodes.Text(f"\u00a0{meaning}")
        intro += key
        intro += nodes.Text(" ")
    cells: list[list[list[nodes.Node]]] = []
    for row in view.rows:
        label = [link(f"{view.module}.{row.name}", nodes.literal(row.name, row.name))]
        if row.retired:
            label.append(nodes.Text(" (retired)"))
        by_release: dict[str, list[nodes.Node]] = {
            c.release: [cell(c, view.module, GLYPHS[c.state])] for c in row.cells
        }
        cells.append([label, *(by_release.get(release, []) for release in view.releases)])
    labels = ["Error", *(view.label(r) for r in view.releases)]
    box = nodes.container(classes=["flax-errors-matrix-box"])
    box += table(["flax-errors-matrix"], (1,) * len(labels), labels, cells)
    return [heading, intro, box]
