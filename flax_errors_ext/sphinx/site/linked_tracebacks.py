"""Full tracebacks whose library frames link to their source, highlighted as Sphinx would.

Sphinx drops the links of a block it highlights, so a block with links is
highlighted here, token by token, when HTML is written.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
from itertools import pairwise
from typing import TYPE_CHECKING

from docutils import nodes
from docutils.utils.code_analyzer import Lexer, LexerError

from flax_errors_ext.model.site.frame_links import DEFAULT_SOURCE_LINKS, SourceLinks

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence

    from sphinx.writers.html5 import HTML5Translator

    from flax_errors_ext.model.site.frame_links import SourceLink


class linked_traceback(nodes.literal_block):
    """A ``pytb`` block whose library frames link to their source (its ``links``).

    One node until HTML is written: a node per token would carry thousands of nodes
    through every transform, the pickled doctree and the search index.
    """


def source_links(overrides: Mapping[str, str | None], versions: Mapping[str, str]) -> SourceLinks:
    """Links to the source of library frames, for a run of the packages at ``versions``.

    ``overrides`` (``flax_errors_source_links``) go on top of the defaults; None takes
    a default's link away. A package the run did not record is taken at the version
    installed here.
    """
    merged = {**DEFAULT_SOURCE_LINKS, **overrides}
    templates = {package: template for package, template in merged.items() if template}
    found = dict(versions)
    for package in templates.keys() - found.keys():
        with contextlib.suppress(importlib.metadata.PackageNotFoundError):
            found[package] = importlib.metadata.version(package)
    return SourceLinks(templates, found)


def traceback_block(text: str, links: SourceLinks | None = None) -> nodes.literal_block:
    """A published traceback, highlighted, with its library frames linked to their source."""
    found = links.find(text) if links is not None else []
    if not found:
        return nodes.literal_block(text, text, language="pytb")
    block = linked_traceback(text, text, language="pytb")
    block["links"] = found
    return block


def visit_linked_traceback_html(translator: HTML5Translator, node: linked_traceback) -> None:
    """Write the block highlighted and linked, in the markup Sphinx writes for ``pytb``.

    The block's ``rawsource`` writes the links in reST, so differs from its text:
    Sphinx then takes it for a parsed-literal block and does not highlight it again.
    """
    text = node.astext()
    found: list[SourceLink] = node["links"]
    source, start = [], 0
    for link in found:
        source += [text[start : link.start], f"`{text[link.start : link.end]} <{link.url}>`__"]
        start = link.end
    block = nodes.literal_block("".join([*source, text[start:]]), "")
    block.extend(_linked_tokens(text, found))
    inner = nodes.container("", block, classes=["highlight"])
    outer = nodes.container("", inner, classes=["highlight-pytb", "notranslate"])
    outer.walkabout(translator)
    raise nodes.SkipNode


def _linked_tokens(text: str, links: Sequence[SourceLink]) -> list[nodes.Node]:
    """``text`` as highlighted pieces, the pieces of each link's span in its reference."""
    found: list[nodes.Node] = []
    reference = nodes.reference()
    cuts = sorted({cut for link in links for cut in (link.start, link.end)})
    for start, piece, classes in _pieces(text, cuts):
        node = nodes.inline(piece, piece, classes=classes) if classes else nodes.Text(piece)
        link = next((link for link in links if link.start <= start < link.end), None)
        if link is None:
            found.append(node)
            continue
        if start == link.start:
            reference = nodes.reference("", "", refuri=link.url)
            found.append(reference)
        reference += node
    return found


def _pieces(text: str, cuts: Sequence[int]) -> Iterator[tuple[int, str, list[str]]]:
    """``text``'s pytb tokens, split at ``cuts``: each piece's offset, text and classes."""
    try:
        tokens = list(Lexer(text, "pytb", tokennames="short"))
    except LexerError:
        tokens = []
    if "".join(value for _, value in tokens) != text:
        tokens = [([], text)]  # no Pygments, or it changed the text: plain, still linked
    position = 0
    for classes, value in tokens:
        stop = position + len(value)
        bounds = [position, *(cut for cut in cuts if position < cut < stop), stop]
        for start, end in pairwise(bounds):
            yield start, value[start - position : end - position], classes
        position = stop
