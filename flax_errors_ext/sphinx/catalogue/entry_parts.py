"""The parts of an entry's section drawn from its run alone, one small function each.

:meth:`.entries.EntryRenderer._entry` lists every part in the order a reader meets
them; those that parse reST need the directive and live there. Each part here
takes the :class:`EntryPage` and returns its nodes, none if it has nothing to show.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from docutils import nodes

from flax_errors_ext.model.catalogue.records import ExampleKind, Verdict
from flax_errors_ext.model.lookup.patterns import defined_names, names_in
from flax_errors_ext.model.runs.entry_record import relative_source
from flax_errors_ext.model.runs.tracebacks import strip_roots
from flax_errors_ext.model.site.texts import lead_lines, verification_text
from flax_errors_ext.sphinx.badges import status_badge
from flax_errors_ext.sphinx.site.linked_tracebacks import source_links
from flax_errors_ext.sphinx.state import error_record, see_also_placeholder
from flax_errors_ext.sphinx.table import inline_text

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from flax_errors_ext.model.catalogue.records import ErrorEntry
    from flax_errors_ext.model.runs.entry_record import EntryRecord
    from flax_errors_ext.model.runs.outcomes import EntryOutcome
    from flax_errors_ext.sphinx.extras import EntryExtras


@dataclasses.dataclass(frozen=True)
class EntryPage:
    """What the parts of one entry's section are drawn from."""

    outcome: EntryOutcome
    record: EntryRecord
    extras: EntryExtras
    roots: Sequence[str]
    """The folders published paths are shown relative to."""
    source_links: Mapping[str, str | None]
    """``flax_errors_source_links``."""

    @property
    def entry(self) -> ErrorEntry:
        """The entry shown."""
        return self.outcome.entry

    @property
    def leads(self) -> tuple[tuple[str, str], ...]:
        """The one-line captions under the headline (the fix), of the examples that hold here."""
        results = self.outcome.results
        return lead_lines([r.example for r in results if r.verdict is not Verdict.OTHER_VERSIONS])


def title(page: EntryPage) -> list[nodes.Node]:
    """The error's name."""
    return [nodes.title(page.entry.name, page.entry.name)]


def headline(page: EntryPage) -> list[nodes.Node]:
    """What went wrong, in one line: the summary."""
    if not page.entry.summary:
        return []
    line = inline_text(page.entry.summary)
    return [nodes.paragraph("", "", *line, classes=["flax-errors-headline"])]


def lead_captions(page: EntryPage) -> list[nodes.Node]:
    """``Fix: Pass overwrite=True when ...``: the examples' captions, under the headline."""
    found: list[nodes.Node] = []
    for label, text in page.leads:
        paragraph = nodes.paragraph(classes=["flax-errors-fix"])
        paragraph += nodes.strong(label, label)
        paragraph += nodes.Text(" ")
        paragraph.extend(inline_text(text))
        found.append(paragraph)
    return found


def status(page: EntryPage) -> list[nodes.Node]:
    """The verification line: ``✓ Verified on CPU · flax 0.12.8 · jax 0.10.2 · ...``.

    An entry not verified leads with its status badge instead of the check mark.
    No date: rebuilds from the cache and ``-j`` then give the same page.
    """
    record = page.record
    passed = record.status.value == "passed"
    lead = (
        nodes.inline("✓", "✓", classes=["flax-errors-check"])
        if passed
        else status_badge(record.status)
    )
    text = page.extras.verified or verification_text(record)
    line = nodes.paragraph(
        "",
        "",
        lead,
        nodes.Text(" "),
        nodes.Text(text),
        classes=["flax-errors-status", record.status.value],
    )
    return [line]


def raise_site(page: EntryPage) -> list[nodes.Node]:
    """``Raised as ValueError at flax/nnx/pytreelib.py:417``: a message entry's origin.

    The class is the one its bad example documents; the place comes from the run
    (its innermost library frame), so that it follows the library's code.
    """
    entry = page.entry
    if not entry.message or not entry.raised_as:
        return []
    paragraph = _labelled("Raised as:", "flax-errors-raised", entry.raised_as, " or ")
    where = relative_source(page.record.raised_at, page.roots) if page.record.raised_at else ""
    if where:
        path, _, line = where.rpartition(":")
        paragraph += nodes.Text(", by ")
        url = source_links(page.source_links, page.record.version_map).url(path, int(line))
        code = nodes.literal(where, where)
        if url:
            reference = nodes.reference("", "", refuri=url, internal=False)
            reference += code
            paragraph += reference
        else:
            paragraph += code
        package = path.split("/", 1)[0]
        version = page.record.version_map.get(package)
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


def extras(page: EntryPage) -> list[nodes.Node]:
    """What the loaded extras show below the examples."""
    return list(page.extras.parts)


def problems(page: EntryPage) -> list[nodes.Node]:
    """A box for each thing wrong with the entry's docstring."""
    return [
        nodes.warning("", nodes.literal_block("", strip_roots(str(problem), page.roots)))
        for problem in page.entry.problems
    ]


def see_also(page: EntryPage) -> list[nodes.Node]:
    """Related errors: a placeholder, filled once every page is read."""
    return [see_also_placeholder(qualname=page.entry.qualname)]


def record(page: EntryPage) -> list[nodes.Node]:
    """The invisible record that errors.json and the index are made from."""
    return [error_record(record=page.record, loaded=page.outcome.execution.loaded)]
