"""Each error across the releases recorded (``flax_errors_history``, by ``nox -s history``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sphinx.application import Sphinx


def setup(app: Sphinx) -> dict[str, Any]:
    """Load the core, and join its build: the files read, the strips, the matrices."""
    from flax_errors_ext.ext.history.sphinx import pages
    from flax_errors_ext.sphinx import context, extras

    metadata = extras.setup_extra(app)
    app.add_node(pages.history_cell, html=(pages.visit_cell_html, pages.depart_cell_html))
    context.PER_DOC.add(pages.VIEWS)  # each page's view, forgotten and merged as the core's
    app.connect(extras.CONTEXT_INITED, pages.read_files)
    app.connect(extras.ENTRY_EXTRAS, pages.entry_strip)
    app.connect(extras.MODULE_EXTRAS, pages.module_end)
    app.connect(extras.INDEX_EXTRAS, pages.index_matrices)
    app.connect("build-finished", pages.warn_stale)
    return metadata
