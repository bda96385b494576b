"""Each error across the recorded releases, drawn on the site."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from flax_errors_ext.sphinx.history import strips

if TYPE_CHECKING:
    from sphinx.application import Sphinx


def setup(app: Sphinx) -> dict[str, Any]:
    """The history's cell: its own HTML; other builders render it as the inline it is."""
    app.add_node(strips.history_cell, html=(strips.visit_cell_html, strips.depart_cell_html))
    return {"parallel_read_safe": True, "parallel_write_safe": True}
