"""Another project's docstring on the site: where its names link, and which code ran.

Flax's and JAX's docstrings refer to their own sites' objects (``:func:`~jax.jit```):
they link by the Sphinx inventories shipped with the package (never fetched).
``sphinx.ext.intersphinx`` is not used: it would link references on every page of
a project. Only their doctest statements run; every other code block is labelled
"not run" and left out of sphinx-copybutton's selector: the plain copy button is
for code that ran.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from docutils import nodes

from flax_errors_ext.model.catalogue.snippets import block_runs, not_run_label, ran_statements
from flax_errors_ext.model.site.inventory import SITES, Inventory
from flax_errors_ext.sphinx.compat import read_inventory

if TYPE_CHECKING:
    from collections.abc import Sequence

    from sphinx import addnodes
    from sphinx.application import Sphinx
    from sphinx.config import Config

    from flax_errors_ext.model.catalogue.records import ErrorEntry

FOREIGN_CLASS = "flax-errors-foreign"
NOT_RUN_CLASS = "flax-errors-not-run"
NOT_RUN_LABEL_CLASS = "flax-errors-not-run-label"
EXTERNAL_CLASS = "flax-errors-api-link"
COPYBUTTON_DEFAULT = "div.highlight pre"
"""sphinx-copybutton's own ``copybutton_selector``."""
COPYBUTTON_SELECTOR = f"div:not(.{NOT_RUN_CLASS}) > div.highlight pre"
_ENTRY_CLASS = "flax-errors-entry"


@functools.cache
def shipped_inventory() -> Inventory:
    """The inventories shipped with the package, read once per process."""
    return Inventory.from_sites(
        (site, read_inventory(site.path.read_bytes(), site.base)) for site in SITES
    )


def foreign_passage(parsed: Sequence[nodes.Node], entry: ErrorEntry) -> nodes.container:
    """Another project's parsed docstring in ``entry``, its code blocks that never run labelled."""
    container = nodes.container("", *parsed, classes=[FOREIGN_CLASS])
    label = not_run_label(shipped_inventory().project_name(entry.qualname))
    ran = ran_statements(entry.examples)
    for block in list(container.findall(_is_code)):
        if block_runs(block.astext(), ran) or not isinstance(block, nodes.Element):
            continue
        assert block.parent is not None  # inside the container
        block["classes"].append(NOT_RUN_CLASS)
        caption = nodes.paragraph(label, label, classes=[NOT_RUN_LABEL_CLASS])
        block.parent.insert(block.parent.index(block), caption)
    return container


def _is_code(node: nodes.Node) -> bool:
    return isinstance(node, nodes.literal_block | nodes.doctest_block)


def resolve_reference(
    app: Sphinx, env: Any, node: addnodes.pending_xref, contnode: nodes.Element
) -> nodes.Element | None:
    """In an entry, a reference nothing on this site resolves: a link by the inventories, or text.

    Short names settle on the docstring's own project. Plain text loses the ``xref``
    class: in another project's docstring always, so that no warning fails ``-W`` for
    text the project cannot edit; elsewhere for a name of a package the inventory
    documents, unless the project is ``nitpicky``, where Sphinx warns as usual.
    """
    foreign, qualname = _context(node)
    if not qualname:
        return None
    plain = foreign
    if node.get("refdomain") == "py":
        inventory = shipped_inventory()
        target = inventory.find(node["reftarget"], qualname.partition(".")[0])
        if target is not None:
            return nodes.reference(
                "",
                "",
                contnode,
                internal=False,
                refuri=target.url,
                reftitle=f"{target.name} ({target.site} documentation)",
                classes=[EXTERNAL_CLASS],
            )
        plain = foreign or (inventory.covers(node["reftarget"]) and not env.config.nitpicky)
    if not plain:
        return None
    if isinstance(contnode, nodes.Element):  # a signature's annotation is Text
        contnode["classes"] = [c for c in contnode["classes"] if c != "xref"]
    return contnode


def _context(node: nodes.Node) -> tuple[bool, str]:
    """Whether the node is in another project's docstring, and the entry it is in."""
    foreign, qualname = False, ""
    parent = node.parent
    while parent is not None:
        classes = parent.get("classes", ()) if isinstance(parent, nodes.Element) else ()
        foreign = foreign or FOREIGN_CLASS in classes
        if _ENTRY_CLASS in classes and parent["ids"]:
            qualname = parent["ids"][0]
            break
        parent = parent.parent
    return foreign, qualname


def narrow_copybutton(app: Sphinx, config: Config) -> None:
    """Leave the blocks that never ran out of sphinx-copybutton's default selector."""
    if getattr(config, "copybutton_selector", None) == COPYBUTTON_DEFAULT:
        config.copybutton_selector = COPYBUTTON_SELECTOR
