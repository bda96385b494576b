"""The catalogue directive: one section per error, its examples, other projects' prose."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from flax_errors_ext.sphinx.catalogue import entries, foreign, module_page, signatures

if TYPE_CHECKING:
    from sphinx.application import Sphinx


def setup(app: Sphinx) -> dict[str, Any]:
    """The module and entry directives, their signatures, and other projects' prose."""
    app.add_directive("flax-errors-catalogue", module_page.CatalogueDirective)
    app.add_directive("flax-errors-entry", entries.EntryDirective)
    app.connect("config-inited", signatures.keep_types_in_signature)
    # Before sphinx-copybutton (priority 500) reads its selector.
    app.connect("config-inited", foreign.narrow_copybutton, priority=400)
    # Before other extensions' handlers (sphinx-autodoc-typehints adds type fields at 500+).
    app.connect("autodoc-process-docstring", signatures.signature_only, priority=400)
    app.connect("missing-reference", foreign.resolve_reference)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
