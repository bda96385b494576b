"""The parts of an entry's section drawn from its run alone, one small function each.

:meth:`.entries.EntryRenderer._entry` lists every part in the order a reader meets
them; those that parse reST need the directive and live there. Each part here
returns its nodes, none if it has nothing to show.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from docutils import nodes

from flax_errors_ext.model.catalogue.records import ExampleKind
from flax_errors_ext.model.lookup.patterns import defined_names, names_in
from flax_errors_ext.model.runs.entry_record import relative_source
from flax_errors_ext.model.runs.tracebacks import strip_roots
from flax_errors_ext.model.site.texts import verification_text
from flax_errors_ext.sphinx.table import inline_text, status_badge

if TYPE_CHECKING:
    from collections.abc import Sequence

    from flax_errors_ext.model.catalogue.records import ErrorEntry
    from flax_errors_ext.model.runs.entry_record import EntryRecord
    from flax_errors_ext.model.site.frame_links import SourceLinks


def headline(summary: str) -> list[nodes.Node]:
    """What went wrong, in one line: the entry's summary."""
    if not summary:
        return []
    return [nodes.paragraph("", "", *inline_text(summary), classes=["flax-errors-headline"])]


def lead_captions(leads: Sequence[tuple[str, str]]) -> list[nodes.Node]:
    """``Fix: Pass overwrite=True when ...``: the examples' captions, under the headline."""
    found: list[nodes.Node] = []
    for label, text in leads:
        paragraph = nodes.paragraph(classes=["flax-errors-fix"])
        paragraph += nodes.strong(label, label)
        paragraph += nodes.Text(" ")
        paragraph.extend(inline_text(text))
        found.append(paragraph)
    return found


def status(record: EntryRecord, verified: str | None) -> list[nodes.Node]:
    """The verification line: ``✓ Verified on CPU · flax 0.12.8 · jax 0.10.2 · ...``.

    An entry not verified leads with its status badge instead of the check mark;
    ``verified``: the line as an extra words it. No date: rebuilds from the cache
    and ``-j`` then give the same page.
    """
    if record.status.value == "passed":
        lead = nodes.inline("✓", "✓", classes=["flax-errors-check"])
    else:
        lead = status_badge(record.status)
    text = verified or verification_text(record)
    classes = ["flax-errors-status", record.status.value]
    return [nodes.paragraph("", "", lead, nodes.Text(" "), nodes.Text(text), classes=classes)]


def raise_site(
    entry: ErrorEntry, record: EntryRecord, roots: Sequence[str], links: SourceLinks
) -> list[nodes.Node]:
    """``Raised as ValueError at flax/nnx/pytreelib.py:417``: a message entry's origin.

    The class is the one its bad example documents; the place comes from the run
    (its innermost library frame), so that it follows the library's code.
    """
    if not entry.message or not entry.raised_as:
        return []
    paragraph = _labelled("Raised as:", "flax-errors-raised", entry.raised_as, " or ")
    where = relative_source(record.raised_at, roots) if record.raised_at else ""
    if where:
        path, _, line = where.rpartition(":")
        paragraph += nodes.Text(", by ")
        url = links.url(path, int(line))
        code = nodes.literal(where, where)
        paragraph += nodes.reference("", "", code, refuri=url, internal=False) if url else code
        package = path.split("/", 1)[0]
        version = record.version_map.get(package)
        if version:
            paragraph += nodes.Text(f" ({package} {version})")
    return [paragraph, *_varying(entry)]


def _varying(entry: ErrorEntry) -> list[nodes.Node]:
    """``Yours in your message: layers, MLP``: the example's own names its message quotes."""
    bad = next((e for e in entry.examples if e.kind is ExampleKind.BAD), None)
    message = bad.statements[-1].exc_msg if bad is not None and bad.statements else None
    names = names_in(message or "", defined_names(bad)) if bad is not None else ()
    if not names:
        return []
    paragraph = _labelled("Yours in your message:", "flax-errors-varies", names, ", ")
    paragraph += nodes.Text(" (the example's; your code's own names stand there)")
    return [paragraph]


def _labelled(label: str, kind: str, codes: Sequence[str], separator: str) -> nodes.paragraph:
    """``Label: `a`, `b```: a paragraph of class ``kind`` listing ``codes`` as code."""
    paragraph = nodes.paragraph(classes=[kind])
    paragraph += nodes.strong(label, label)
    paragraph += nodes.Text(" ")
    for n, code in enumerate(codes):
        if n:
            paragraph += nodes.Text(separator)
        paragraph += nodes.literal(code, code)
    return paragraph


def problems(entry: ErrorEntry, roots: Sequence[str]) -> list[nodes.Node]:
    """A box for each thing wrong with the entry's docstring."""
    return [
        nodes.warning("", nodes.literal_block("", strip_roots(str(problem), roots)))
        for problem in entry.problems
    ]
