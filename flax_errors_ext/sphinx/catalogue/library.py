"""What an entry shows of the library itself: its docstrings' prose, its constructor's signature.

References link by the shipped inventories (intersphinx would reach every page); only doctest
statements run; a C constructor gets a Python stand-in with the qualified name autodoc needs.
"""

from __future__ import annotations

import functools
import inspect
import re
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from docutils import nodes
from sphinx.util.inspect import signature_from_str

from flax_errors_ext.model.site.links import (
    SITES,
    Inventory,
    block_runs,
    not_run_label,
    ran_statements,
)
from flax_errors_ext.sphinx.compat import read_inventory

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence

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
    code = nodes.literal_block | nodes.doctest_block
    for block in [b for b in container.findall(nodes.Element) if isinstance(b, code)]:
        if block_runs(block.astext(), ran):
            continue
        assert block.parent is not None  # inside the container
        block["classes"].append(NOT_RUN_CLASS)
        caption = nodes.paragraph(label, label, classes=[NOT_RUN_LABEL_CLASS])
        block.parent.insert(block.parent.index(block), caption)
    return container


def resolve_reference(
    app: Sphinx, env: Any, node: addnodes.pending_xref, contnode: nodes.Element
) -> nodes.Element | None:
    """In an entry, a reference nothing here resolves: a link by the inventories, or plain text.

    Plain (no warning) in another project's docstring, or for a covered name unless ``nitpicky``.
    """
    foreign, qualname = _context(node)
    if not qualname:
        return None
    plain = foreign
    if node.get("refdomain") == "py":
        inventory = shipped_inventory()
        if (target := inventory.find(node["reftarget"], qualname.partition(".")[0])) is not None:
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
    foreign, parent = False, node.parent
    while parent is not None:
        classes = parent.get("classes", ()) if isinstance(parent, nodes.Element) else ()
        foreign = foreign or FOREIGN_CLASS in classes
        if _ENTRY_CLASS in classes and parent["ids"]:
            return foreign, parent["ids"][0]
        parent = parent.parent
    return foreign, ""


def narrow_copybutton(app: Sphinx, config: Config) -> None:
    """Leave the blocks that never ran out of sphinx-copybutton's default selector."""
    if getattr(config, "copybutton_selector", None) == COPYBUTTON_DEFAULT:
        config.copybutton_selector = COPYBUTTON_SELECTOR


_CONSTRUCTORS = ("__new__", "__init__")
_STATED = re.compile(r"(?:[A-Za-z_][\w.]*)?(\(.*\))\s*(?:->\s*(.+))?")
"""A signature a docstring's first line states, ``(self, msg: str) -> None``, name optional."""


@contextmanager
def readable_constructor(cls: type) -> Iterator[None]:
    """While autodoc reads ``cls``, give it a constructor with a qualified name."""
    own: dict[str, Any] = {}
    try:
        for name in _CONSTRUCTORS:
            native = nameless_constructor(cls, name)
            if native is None:
                continue
            before = cls.__dict__.get(name)
            try:
                setattr(cls, name, _stand_in(cls, name, native))
            except TypeError:  # an immutable type
                continue
            own[name] = before
        yield
    finally:
        for name, before in own.items():
            if before is None:
                delattr(cls, name)
            else:
                setattr(cls, name, before)


def nameless_constructor(cls: type, name: str) -> Callable[..., Any] | None:
    """The ``__new__`` or ``__init__`` of ``cls``, inherited or its own, if it has no qualname."""
    for klass in cls.__mro__:
        if name in vars(klass):
            found = vars(klass)[name]
            function = found.__func__ if isinstance(found, staticmethod) else found
            qualname = getattr(function, "__qualname__", "")
            return None if isinstance(qualname, str) else function
    return None


def stated_signature(function: Callable[..., Any]) -> inspect.Signature | None:
    """The signature a C function states (docstring's first line, or CPython's way), or None."""
    doc = getattr(function, "__doc__", None)
    lines = doc.strip().splitlines() if isinstance(doc, str) else []
    if lines and (stated := _STATED.fullmatch(lines[0].strip())) is not None:
        try:
            return signature_from_str(f"{stated[1]} -> {stated[2]}" if stated[2] else stated[1])
        except (SyntaxError, ValueError):
            pass  # not a signature after all: ask inspect
    try:
        found = inspect.signature(function)
    except (TypeError, ValueError):
        return None
    varargs = {inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD}
    return None if all(p.kind in varargs for p in found.parameters.values()) else found


def _stand_in(cls: type, name: str, native: Callable[..., Any]) -> Any:
    """A Python ``name`` for ``cls`` that calls ``native`` and states its signature."""

    def constructor(*args: Any, **kwargs: Any) -> Any:
        return native(*args, **kwargs)

    constructor.__name__ = name
    constructor.__qualname__ = f"{cls.__qualname__}.{name}"
    constructor.__module__ = cls.__module__
    constructor.__doc__ = getattr(native, "__doc__", None)
    if (signature := stated_signature(native)) is not None:
        # What inspect.signature (autodoc) and sphinx-autodoc-typehints read.
        vars(constructor)["__signature__"] = signature
        params = signature.parameters.values()
        annotations = {p.name: p.annotation for p in params if p.annotation is not p.empty}
        if signature.return_annotation is not signature.empty:
            annotations["return"] = signature.return_annotation
        constructor.__annotations__ = annotations
    return staticmethod(constructor) if name == "__new__" else constructor


SIGNATURE_ONLY: set[str] = set()
"""Classes whose autodoc output is being built for a signature (one read at a time)."""


def signature_only(
    app: Sphinx, what: str, name: str, obj: Any, options: Any, lines: list[str]
) -> None:
    """Empty the docstring autodoc renders for an entry: the entry renders it itself."""
    if name in SIGNATURE_ONLY:
        lines[:] = []


TYPEHINTS = "sphinx_autodoc_typehints"
_USE_SIGNATURE = "typehints_use_signature"


def keep_types_in_signature(app: Sphinx, config: Config) -> None:
    """Turn ``typehints_use_signature`` on (unless set): an entry empties the type fields."""
    if TYPEHINTS not in app.extensions:
        return
    # Sphinx keeps what conf.py set apart from the defaults only in _raw_config
    # (6.2.1 to 9.2 alike); a default cannot tell "set to False" from "not set".
    if _USE_SIGNATURE in config._raw_config or _USE_SIGNATURE in config.overrides:
        return
    config[_USE_SIGNATURE] = True
