"""Pages drawn from the whole catalogue: the index, figures, options, CLI reference.

Also what every entry's page shows of the site: full tracebacks linked to their source.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from flax_errors_ext.sphinx.site import index, linked_tracebacks, reference

if TYPE_CHECKING:
    from sphinx.application import Sphinx


def setup(app: Sphinx) -> dict[str, Any]:
    """The directives of the catalogue-wide pages, and the pages that show live figures."""
    app.add_directive("flax-errors-index", index.IndexDirective)
    app.add_directive("flax-errors-figures", index.FiguresDirective)
    app.add_directive("flax-errors-options", reference.OptionsDirective)
    app.add_directive("flax-errors-warnings", reference.WarningsDirective)
    app.add_directive("flax-errors-cli", reference.CliDirective)
    app.add_node(
        linked_tracebacks.linked_traceback,
        html=(linked_tracebacks.visit_linked_traceback_html, None),
    )
    app.connect("env-updated", index.rewrite_live_docs)
    app.connect("doctree-resolved", index.resolve)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
