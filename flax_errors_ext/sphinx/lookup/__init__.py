"""Finding an entry from the site's search."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from flax_errors_ext.sphinx.lookup import search

if TYPE_CHECKING:
    from sphinx.application import Sphinx


def setup(app: Sphinx) -> dict[str, Any]:
    """The search page's script, and the entries' texts it matches a paste against."""
    app.connect("html-page-context", search.add_scripts)
    app.connect("build-finished", search.write_data)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
