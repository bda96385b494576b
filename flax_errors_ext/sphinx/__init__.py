"""The Sphinx layer: the only part of the package that imports Sphinx.

:func:`setup` registers everything in one place. Beside it, the build's shared
parts: :mod:`.build` (the lifecycle: context, run session, outdated pages, report),
:mod:`.context` (what the whole build shares), :mod:`.state` (what the environment
keeps of each page), :mod:`.loggers` (one warning type, a
:class:`~flax_errors_ext.model.warning_subtypes.WarningSubtype` each), :mod:`.compat`
(where Sphinx 6.2.1 to 9.x differ), :mod:`.table` and :mod:`.badges`. Then a folder
per feature, named as in the other layers:

* :mod:`.catalogue`: each module's run, its page (``flax-errors-catalogue``) and
  each entry's (``flax-errors-entry``), the examples, and another project's docstring;
* :mod:`.runs`: other stacks' and devices' runs beside each entry;
* :mod:`.history`: each error across Flax's releases;
* :mod:`.site`: the error index, the landing figures, the options and warnings
  tables and the command line reference, and linked tracebacks;
* :mod:`.lookup`: pasted error text in the site search.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from flax_errors_ext.model.config import CatalogueConfig
from flax_errors_ext.sphinx import build, compat, state
from flax_errors_ext.sphinx.catalogue import entries, foreign, module_page, signatures
from flax_errors_ext.sphinx.history import strips as history
from flax_errors_ext.sphinx.lookup import search
from flax_errors_ext.sphinx.site import index
from flax_errors_ext.sphinx.site.cli_reference import CliDirective
from flax_errors_ext.sphinx.site.options import OptionsDirective, WarningsDirective
from flax_errors_ext.version import __version__

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config

STATIC_DIR = Path(__file__).parent / "static"
ENV_VERSION = 6


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the extension: config values, nodes, directives, collectors and events."""
    needed_extensions = (
        "myst_nb",
        # An entry's signature (entries.CatalogueDirective._signature). Its types as
        # sphinx-autodoc-typehints' options say where the project loads it (this
        # site's conf.py does); not loaded here, since it would reach every page.
        "sphinx.ext.autodoc",
        "sphinx_design",
        # sphinx-reredirects, which forwards moved pages, is loaded only where a page
        # moved (site.redirects), once the configuration says so.
    )
    for needed in needed_extensions:
        app.setup_extension(needed)
    compat.setup_compat(app)
    for name, default, _ in CatalogueConfig.options():
        # Any type: CatalogueConfig validates every value, with a clearer message.
        app.add_config_value(
            name, default, "env" if CatalogueConfig.changes_pages(name) else "", types=Any
        )
    for node in state.NODES:
        app.add_node(node)
    # Other builders render a cell as the inline it is.
    app.add_node(history.history_cell, html=(history.visit_cell_html, history.depart_cell_html))
    app.add_directive("flax-errors-catalogue", module_page.CatalogueDirective)
    app.add_directive("flax-errors-entry", entries.EntryDirective)
    app.add_directive("flax-errors-index", index.IndexDirective)
    app.add_directive("flax-errors-figures", index.FiguresDirective)
    app.add_directive("flax-errors-options", OptionsDirective)
    app.add_directive("flax-errors-warnings", WarningsDirective)
    app.add_directive("flax-errors-cli", CliDirective)
    app.add_env_collector(state.CatalogueCollector)
    app.add_env_collector(state.LiveDocsCollector)
    app.add_css_file("flax_errors.css")
    app.add_js_file("flax_errors_wrap.js", defer="defer")
    app.add_js_file("flax_errors_anchor.js", defer="defer")

    app.connect("config-inited", build.make_context)
    app.connect("config-inited", _add_static_path)
    app.connect("config-inited", signatures.keep_types_in_signature)
    # Before sphinx-copybutton (priority 500) reads its selector.
    app.connect("config-inited", foreign.narrow_copybutton, priority=400)
    # After myst-nb's handler, which settles the cache path.
    app.connect("builder-inited", build.open_session, priority=600)
    app.connect("env-get-outdated", build.outdated_by_environment)
    app.connect("env-before-read-docs", build.start_reading)
    # Before other extensions' handlers (sphinx-autodoc-typehints adds type fields at 500+).
    app.connect("autodoc-process-docstring", entries.signature_only, priority=400)
    app.connect("env-updated", index.rewrite_live_docs)
    app.connect("doctree-resolved", index.resolve)
    app.connect("missing-reference", foreign.resolve_reference)
    app.connect("html-page-context", search.add_scripts)
    app.connect("build-finished", search.write_data)
    app.connect("build-finished", build.finish_build)
    return {
        "version": __version__,
        # What the environment keeps (typed records, the build context): a new
        # number makes Sphinx discard environments an older layout pickled.
        "env_version": ENV_VERSION,
        "parallel_read_safe": True,
        "parallel_write_safe": True,
    }


def _add_static_path(app: Sphinx, config: Config) -> None:
    config.html_static_path = [*config.html_static_path, str(STATIC_DIR)]
