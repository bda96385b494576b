"""Pasting an error message into the site's search finds its entry.

Sphinx's search indexes every word of the site, error text included, but it
ranks whole pages, and one page holds all of a module's errors. So the build also
writes the catalogue's error messages to ``_static/flax_errors_search_data.js``
(today's, the other errors an entry is "also seen as", and the wordings of past
releases from the recorded history), and the search page loads
``flax_errors_search.js``, which matches the query against them and puts the
matching entries, with their anchors and what the match was, first.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flax_errors_ext.model.lookup.wordings import recorded_wordings
from flax_errors_ext.model.site.texts import search_entries
from flax_errors_ext.sphinx.context import build_context, published_roots
from flax_errors_ext.sphinx.state import CatalogueCollector

if TYPE_CHECKING:
    from sphinx.application import Sphinx

DATA_FILE = "flax_errors_search_data.js"
SCRIPT_FILE = "flax_errors_search.js"


def add_scripts(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    """Load the message search on the search page."""
    if pagename == "search":
        # Deferred: they run once Sphinx's searchtools.js is loaded, before it searches.
        app.add_js_file(DATA_FILE, defer="defer")
        app.add_js_file(SCRIPT_FILE, defer="defer")


def write_data(app: Sphinx, exception: Exception | None) -> None:
    """Write the catalogue's messages for the search page, after every HTML build."""
    if exception is not None or app.builder.format != "html":
        return
    by_qualname = CatalogueCollector.by_qualname(app.env)
    histories = [file.history for file in build_context(app.env).histories.values()]
    items = search_entries(
        [record for _, record in by_qualname.values()],
        roots=published_roots(app),
        wordings=recorded_wordings(histories),
    )
    layout = build_context(app.env).config.layout
    for item in items:
        # Where the script's result links: the page by its docname, and the anchor.
        location = layout.locate(item["qualname"])
        item["docname"], item["anchor"] = location.page, location.anchor
    text = f"window.FLAX_ERRORS_SEARCH = {json.dumps(items, ensure_ascii=True, indent=1)};\n"
    static = Path(app.outdir, "_static")
    static.mkdir(parents=True, exist_ok=True)
    (static / DATA_FILE).write_text(text, encoding="utf-8")
