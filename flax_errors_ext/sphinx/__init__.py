"""The Sphinx layer: the only part of the core that imports Sphinx (an extra has its own)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flax_errors_ext.model.config import CatalogueConfig
from flax_errors_ext.sphinx import build, compat, context, extras, site
from flax_errors_ext.sphinx.catalogue import entries, examples, library, module_page
from flax_errors_ext.version import __version__

if TYPE_CHECKING:
    from sphinx.application import Sphinx

STATIC_DIR = Path(__file__).parent / "static"
ENV_VERSION = 8
NEEDED_EXTENSIONS = (
    "myst_nb",
    # An entry's signature (sphinx-autodoc-typehints, which reaches every page, only if loaded).
    "sphinx.ext.autodoc",
    "sphinx_design",
    # sphinx-reredirects only where a page moved (build._forward).
)


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the extension: config values, nodes, collectors, events, the features."""
    for needed in NEEDED_EXTENSIONS:
        app.setup_extension(needed)
    compat.setup_compat(app)
    for event in extras.EVENTS:
        app.add_event(event)
    for name, default, _ in CatalogueConfig.options():
        # Any type: CatalogueConfig validates, more clearly. Given a function as default,
        # every Sphinx hands a -D override over as text, which from_values reads alike.
        app.add_config_value(
            name,
            lambda _config, default=default: copy.deepcopy(default),
            "env" if CatalogueConfig.changes_pages(name) else "",
            types=Any,
        )
    for node in context.NODES:
        app.add_node(node)
    app.add_env_collector(context.CatalogueCollector)
    app.add_css_file("flax_errors.css")
    app.add_js_file("flax_errors_wrap.js", defer="defer")
    app.add_js_file("flax_errors_anchor.js", defer="defer")
    app.connect("config-inited", build.make_context)
    extras.add_static_folder(app, STATIC_DIR)
    # After myst-nb's handler, which settles the cache path.
    app.connect("builder-inited", build.open_session, priority=600)
    app.connect("env-get-outdated", build.outdated_by_environment)
    app.connect("env-before-read-docs", build.start_reading)
    app.add_directive("flax-errors-catalogue", module_page.CatalogueDirective)
    app.add_directive("flax-errors-entry", entries.EntryDirective)
    app.connect("config-inited", library.keep_types_in_signature)
    # Before sphinx-copybutton (priority 500) reads its selector.
    app.connect("config-inited", library.narrow_copybutton, priority=400)
    # Before other extensions' handlers (sphinx-autodoc-typehints adds type fields at 500+).
    app.connect("autodoc-process-docstring", library.signature_only, priority=400)
    app.connect("missing-reference", library.resolve_reference)
    app.add_directive("flax-errors-index", site.PlaceholderDirective)
    app.add_directive("flax-errors-figures", site.PlaceholderDirective)
    app.add_directive("flax-errors-options", site.OptionsDirective)
    app.add_directive("flax-errors-warnings", site.WarningsDirective)
    app.add_directive("flax-errors-cli", site.CliDirective)
    app.add_node(examples.linked_traceback, html=(examples.visit_linked_traceback_html, None))
    app.connect("env-updated", site.rewrite_live_docs)
    app.connect("doctree-resolved", site.resolve)
    app.connect("build-finished", build.finish_build)
    return {
        "version": __version__,
        # A new number: Sphinx discards environments (records, context) an older layout pickled.
        "env_version": ENV_VERSION,
        "parallel_read_safe": True,
        "parallel_write_safe": True,
    }
