"""The parts of the site drawn from the whole catalogue: index, figures, "See also".

The error index, the landing page's figures and each entry's "See also" line need
every entry's record, which only exists once all pages are read (and, with ``-j``,
merged back from the readers). So their directives leave placeholder
nodes, filled in ``doctree-resolved`` from ``env.flax_errors_records``; and the
pages holding the index or the figures are written again on every build, so that
they never show the figures of an older one (and every catalogue page, when any
entry was read again).
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any, ClassVar

from docutils import nodes
from sphinx.environment.collectors import EnvironmentCollector
from sphinx.util.docutils import SphinxDirective

from flax_errors_ext.core.areas import AREA_ORDER, NOTES, area_of, related
from flax_errors_ext.core.site import (
    badge,
    build_time,
    figures,
    headline,
    inline_parts,
    time_text,
)
from flax_errors_ext.sphinx_table import table

if TYPE_CHECKING:
    from collections.abc import Set

    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

Records = dict[str, tuple[str, dict[str, Any]]]
"""Each entry's docname and record, by full dotted name."""


class catalogue_index(nodes.General, nodes.Element):
    """Where the error index goes, once every record is known."""


class catalogue_figures(nodes.General, nodes.Element):
    """Where the landing page's figures go."""


class see_also_placeholder(nodes.General, nodes.Element):
    """Where an entry's links to related errors go."""


def setup_index(app: Sphinx) -> None:
    """Register the directives, their late rendering and the collector."""
    for node in (catalogue_index, catalogue_figures, see_also_placeholder):
        app.add_node(node)
    app.add_directive("flax-errors-index", IndexDirective)
    app.add_directive("flax-errors-figures", FiguresDirective)
    app.add_env_collector(LiveDocsCollector)
    app.connect("env-updated", _rewrite_live_docs)
    app.connect("doctree-resolved", _resolve)


def see_also(qualname: str) -> see_also_placeholder:
    """The placeholder for an entry's "See also" line."""
    return see_also_placeholder(qualname=qualname)


class IndexDirective(SphinxDirective):
    """``.. flax-errors-index::``: every error, grouped by area, with its status."""

    has_content = False
    option_spec: ClassVar[dict[str, Any]] = {}

    def run(self) -> list[nodes.Node]:
        """Leave the placeholder."""
        return [catalogue_index()]


class FiguresDirective(SphinxDirective):
    """``.. flax-errors-figures::``: how many errors, their statuses, when and where checked."""

    has_content = False
    option_spec: ClassVar[dict[str, Any]] = {}

    def run(self) -> list[nodes.Node]:
        """Leave the placeholder."""
        return [catalogue_figures()]


class LiveDocsCollector(EnvironmentCollector):
    """Remembers which documents show figures of the whole catalogue."""

    @staticmethod
    def live_docs(env: BuildEnvironment) -> set[str]:
        """The docnames holding an index or figures, created on first use."""
        if not hasattr(env, "flax_errors_live_docs"):
            env.flax_errors_live_docs = set()  # type: ignore[attr-defined]
        docs: set[str] = env.flax_errors_live_docs  # type: ignore[attr-defined]
        return docs

    def clear_doc(self, app: Sphinx, env: BuildEnvironment, docname: str) -> None:
        """Forget a document before it is read again."""
        self.live_docs(env).discard(docname)

    def merge_other(
        self, app: Sphinx, env: BuildEnvironment, docnames: Set[str], other: BuildEnvironment
    ) -> None:
        """Take what a parallel reader found."""
        self.live_docs(env).update(self.live_docs(other) & set(docnames))

    def process_doc(self, app: Sphinx, doctree: nodes.document) -> None:
        """Note the document if it holds an index or figures."""
        if any(doctree.findall(catalogue_index)) or any(doctree.findall(catalogue_figures)):
            self.live_docs(app.env).add(app.env.docname)


def _rewrite_live_docs(app: Sphinx, env: BuildEnvironment) -> list[str]:
    live = LiveDocsCollector.live_docs(env)
    if getattr(env, "flax_errors_read_now", None):
        # Entries were read again, so any page's "See also" may gain or lose a target.
        live = live | set(getattr(env, "flax_errors_records", {}))
    return sorted(live & env.found_docs)


def _records(env: BuildEnvironment) -> Records:
    by_doc: dict[str, list[dict[str, Any]]] = getattr(env, "flax_errors_records", {})
    return {r["qualname"]: (doc, r) for doc, records in by_doc.items() for r in records}


def _resolve(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    records = _records(app.env)

    def link(qualname: str, *children: nodes.Node) -> nodes.reference:
        target, _ = records[qualname]
        uri = "" if target == docname else app.builder.get_relative_uri(docname, target)
        return nodes.reference("", "", *children, refuri=f"{uri}#{qualname}", internal=True)

    for index in list(doctree.findall(catalogue_index)):
        index.replace_self(_index(records, link))
    for shown in list(doctree.findall(catalogue_figures)):
        shown.replace_self(_figures([r for _, r in records.values()]))
    for placeholder in list(doctree.findall(see_also_placeholder)):
        line = _see_also(placeholder["qualname"], records, link, app, docname)
        if line is None:
            placeholder.parent.remove(placeholder)
        else:
            placeholder.replace_self(line)


def _index(records: Records, link: Any) -> list[nodes.Node]:
    by_area: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for _, record in records.values():
        by_area[area_of(record["qualname"])].append(record)
    areas = [area for area in AREA_ORDER if by_area.get(area)]
    jump = nodes.paragraph(classes=["flax-errors-areas"])
    result: list[nodes.Node] = [jump]
    for number, area in enumerate(areas):
        anchor = "area-" + nodes.make_id(area)
        if number:
            jump += nodes.Text(" · ")
        jump += nodes.reference(area, area, refuri=f"#{anchor}", internal=True)
        result.append(nodes.rubric(area, area, ids=[anchor], classes=["flax-errors-area"]))
        rows = sorted(by_area[area], key=lambda r: str(r["name"]))
        result.append(_index_table(rows, link))
    return result


def _index_table(rows: list[dict[str, Any]], link: Any) -> nodes.table:
    cells = [
        [
            [link(record["qualname"], nodes.literal(record["name"], record["name"]))],
            [
                nodes.literal(part, part) if code else nodes.Text(part)
                for part, code in inline_parts(headline(record))
            ],
            [_badge(record)],
        ]
        for record in rows
    ]
    return table(
        ["flax-errors-index"], (32, 56, 12), ("Error", "What went wrong", "Status"), cells
    )


def _badge(record: dict[str, Any]) -> nodes.inline:
    shown = badge(record["status"])
    return nodes.inline(
        shown.label,
        shown.label,
        classes=["sd-badge", f"sd-bg-{shown.colour}", f"sd-bg-text-{shown.colour}"],
    )


def _figures(records: list[dict[str, Any]]) -> nodes.Node:
    shown = figures(records)
    box = nodes.container(classes=["flax-errors-figures"])
    count = nodes.paragraph(classes=["flax-errors-count"])
    count += nodes.strong(str(shown.entries), str(shown.entries))
    count += nodes.Text(" errors catalogued")
    box += count
    statuses = nodes.paragraph(classes=["flax-errors-statuses"])
    for number, (status, how_many) in enumerate(shown.statuses):
        if number:
            statuses += nodes.Text("  ")
        label = badge(status)
        statuses += nodes.inline(
            "",
            f"{how_many} {label.label}",
            classes=["sd-badge", f"sd-bg-{label.colour}", f"sd-bg-text-{label.colour}"],
        )
    box += statuses
    if shown.executed:
        text = f"Last verified {time_text(build_time())} on {shown.device}, with {shown.versions}."
    else:
        text = (
            "The examples were not executed in this build, so nothing here is verified "
            f"yet ({shown.versions or 'versions unknown'})."
        )
    box += nodes.paragraph("", "", nodes.Text(text), classes=["flax-errors-verified"])
    return box


def _see_also(
    qualname: str, records: Records, link: Any, app: Sphinx, docname: str
) -> nodes.Node | None:
    others = [other for other in related(qualname) if other in records]
    note = NOTES.get(qualname)
    if note is not None and note[0] not in app.env.found_docs:
        note = None
    if not others and note is None:
        return None
    line = nodes.paragraph(classes=["flax-errors-see-also"])
    line += nodes.strong("See also:", "See also:")
    line += nodes.Text(" ")
    for number, other in enumerate(others):
        if number:
            line += nodes.Text(", ")
        name = other.rpartition(".")[2]
        line += link(other, nodes.literal(name, name))
    if note is not None:
        line += nodes.Text("; design note: " if others else "design note: ")
        target, text = note
        uri = app.builder.get_relative_uri(docname, target)
        line += nodes.reference(text, text, refuri=uri, internal=True)
    return line
