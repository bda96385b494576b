"""A pasted error text finds its entry in the site's search (:mod:`.sphinx.search_page`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sphinx.application import Sphinx

STATIC_DIR = Path(__file__).parent / "static"


def setup(app: Sphinx) -> dict[str, Any]:
    """Load the core; the search page's scripts, and the entries' texts they match."""
    from flax_errors_ext.ext.search.sphinx import search_page
    from flax_errors_ext.sphinx.extras import setup_extra

    metadata = setup_extra(app, static=STATIC_DIR)
    app.connect("html-page-context", search_page.add_scripts)
    # Before the core's report, which ends the build.
    app.connect("build-finished", search_page.write_data, priority=400)
    return metadata
