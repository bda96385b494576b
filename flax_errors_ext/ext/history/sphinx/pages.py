"""Where the history joins the build, and what it shows: strips, retired errors, the matrix."""

from __future__ import annotations

import html
from pathlib import Path
from typing import TYPE_CHECKING, cast

from docutils import nodes

from flax_errors_ext.execution.history.files import read_histories
from flax_errors_ext.execution.runs.run import run_versions
from flax_errors_ext.ext.history.model.cells import CellState, entry_codes
from flax_errors_ext.ext.history.model.view import build_release, build_row, module_history
from flax_errors_ext.model.warning_subtypes import WarningSubtype
from flax_errors_ext.sphinx.compat import conf_location, warn
from flax_errors_ext.sphinx.context import CatalogueCollector, build_context, kept
from flax_errors_ext.sphinx.extras import EntryExtras, IndexPart
from flax_errors_ext.sphinx.table import joined, table

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment
    from sphinx.writers.html5 import HTML5Translator

    from flax_errors_ext.execution.catalogue.module_runs import ModuleRun
    from flax_errors_ext.ext.history.model.cells import Cell
    from flax_errors_ext.ext.history.model.view import ModuleHistory
    from flax_errors_ext.layout import EntryLocation
    from flax_errors_ext.model.runs.entry_record import EntryRecord
    from flax_errors_ext.sphinx.context import BuildContext

    Link = Callable[[str, nodes.Node], nodes.Node]

EXTENSION = "flax_errors_ext.ext.history"
VIEWS = "histories"


def views(env: BuildEnvironment) -> dict[str, ModuleHistory]:
    """By docname, the history of the module a page shows: for the index and stale warnings."""
    return kept(env, VIEWS, dict)


def read_files(app: Sphinx, context: BuildContext) -> None:
    """Read the history files the config names, once; defer what cannot be read."""
    config = context.config
    histories, problems = read_histories(
        Path(app.confdir), config.history, {spec.name for spec in config.modules}
    )
    context.histories.update(histories)
    for problem in problems:
        context.defer(problem, WarningSubtype.HISTORY, conf_location(app, "flax_errors_history"))


def _view(app: Sphinx, found: ModuleRun) -> ModuleHistory | None:
    """The module's history with the run's rows (once per run, kept in its ``extras``)."""
    context = build_context(app.env)
    if (history := context.histories.get(found.module.name)) is None:
        return None
    app.env.note_dependency(history.path)
    if EXTENSION in found.extras:
        return cast("ModuleHistory", found.extras[EXTENSION])
    fingerprint = context.run.fingerprint
    roots = context.published_roots
    built = {o.entry.name: build_row(o.entry, o.results, roots) for o in found.outcomes}
    rows = {name: row for name, row in built.items() if row is not None}
    module = found.module
    classes = [e.name for e in module.entries] + [item.name for item in module.left_out]
    view = module_history(
        history,
        entry_codes(module.entries),
        build_release(fingerprint.version_map, classes, rows),
        unreachable={
            o.entry.name
            for o in found.outcomes
            if o.entry.unreachable_with(run_versions(fingerprint, o.entry))
        },
    )
    found.extras[EXTENSION] = view
    return view


def entry_strip(app: Sphinx, record: EntryRecord, found: ModuleRun) -> EntryExtras | None:
    """The entry's strip and line, and the note on records left out as stale."""
    view = _view(app, found)
    shown = view.entry(record.name) if view is not None else None
    if view is None or shown is None:
        return None
    text = "".join(f" {part}." for part in (shown.line, shown.rewritten) if part)
    parts: list[nodes.Node] = [strip(shown.cells, view, text)]
    if shown.stale:
        note = (
            f"History of flax {shown.stale_releases} not shown: {Path(view.source).name} has "
            "no record of this entry's bad examples as they are now (they changed, or are "
            "new, since it was recorded)."
        )
        parts.append(nodes.paragraph(note, note, classes=["flax-errors-history-stale"]))
    return EntryExtras(parts=tuple(parts))


def module_end(app: Sphinx, found: ModuleRun) -> list[nodes.Node]:
    """A "Retired errors" box: a box (not a section) per class gone, where its links land."""
    view = _view(app, found)
    if view is None:
        return []
    views(app.env)[app.env.docname] = view
    if not view.retired:
        return []
    layout = build_context(app.env).config.layout
    title = "Retired errors"
    box = nodes.container(ids=[f"retired-{nodes.make_id(view.module)}"])
    box += nodes.rubric(title, title, classes=["flax-errors-area"])
    intro = (
        f"Classes {view.module} had in a recorded release and has no longer. A link "
        "that names one lands here."
    )
    box += nodes.paragraph(intro, intro)
    for gone in view.retired:
        anchor = layout.printed(f"{view.module}.{gone.name}").anchor
        entry = nodes.container(ids=[anchor], classes=["flax-errors-retired"])
        entry += nodes.rubric(gone.name, gone.name, classes=["flax-errors-retired-name"])
        entry += strip(gone.cells, view, " " + gone.line)
        box += entry
    return [box]


def index_matrices(
    app: Sphinx, to: Callable[[EntryLocation, nodes.Node], nodes.reference]
) -> list[IndexPart]:
    """Each recorded module's errors across releases, for the error index."""
    records = CatalogueCollector.by_qualname(app.env)
    layout = build_context(app.env).config.layout
    histories = views(app.env)

    def link_any(qualname: str, child: nodes.Node) -> nodes.Node:
        found = qualname in records
        return to(layout.locate(qualname) if found else layout.printed(qualname), child)

    return [matrix(histories[docname], link_any) for docname in sorted(histories)]


def warn_stale(app: Sphinx, exception: Exception | None) -> None:
    """Warn, every build, of each entry whose history records other code than its examples now."""
    if exception is not None:
        return
    records = CatalogueCollector.by_qualname(app.env)
    histories = views(app.env)
    for docname in sorted(histories):
        view = histories[docname]
        for entry in (e for e in view.entries if e.stale):
            qualname = f"{view.module}.{entry.name}"
            found = records.get(qualname)
            warn(
                f"{qualname}: {view.source} has no record of its bad examples as they are "
                f"now on flax {entry.stale_releases} (they changed, or are new, since it was "
                "recorded); those releases are not shown until it is recorded again "
                "(nox -s history)",
                WarningSubtype.HISTORY_STALE,
                found[1].source if found else docname,
            )


CELL_CLASS = "flax-errors-cell"


class history_cell(nodes.inline):
    """One release of an error's history: a coloured cell with a tooltip."""


def visit_cell_html(self: HTML5Translator, node: history_cell) -> None:
    """Open the cell, newlines kept in its tooltip (docutils' attributes would drop them)."""
    classes = html.escape(" ".join(node["classes"]), quote=True)
    title = html.escape(node["title"], quote=True).replace("\n", "&#10;")
    self.body.append(f'<span class="{classes}" title="{title}">')


def depart_cell_html(self: HTML5Translator, node: history_cell) -> None:
    """Close the cell."""
    self.body.append("</span>")


def cell(item: Cell, module: str, text: str) -> history_cell:
    """A cell showing ``text``, coloured by its state, with its tooltip."""
    classes = [CELL_CLASS, item.state.value] + (["current"] if item.current else [])
    node = history_cell(text, text, classes=classes)
    node["title"] = item.title(module)
    return node


def strip(cells: Sequence[Cell], view: ModuleHistory, text: str) -> nodes.paragraph:
    """A row of cells, each labelled with its release's short label, then ``text``."""
    line = nodes.paragraph(classes=["flax-errors-history"])
    row = nodes.inline(classes=["flax-errors-strip"])
    labels = view.labels
    # Spaced for text output; a flex row drops the spaces.
    row += joined(([cell(item, view.module, labels[item.release])] for item in cells), " ")
    line += row
    if text:
        line += nodes.Text(text)
    return line


def matrix(view: ModuleHistory, link: Link) -> IndexPart:
    """Every error of the module by release, with a legend, in a box that scrolls sideways."""
    title = f"{view.module} across releases"
    anchor = "history-" + nodes.make_id(view.module)
    heading = nodes.rubric(title, title, ids=[anchor], classes=["flax-errors-area"])
    intro = nodes.paragraph(classes=["flax-errors-legend"])
    intro += nodes.Text("What each error's bad examples did on each Flax release")
    if view.current:
        intro += nodes.Text(f" (outlined: this build's own run, on flax {view.current})")
    intro += nodes.Text("; hover over a cell for what its release raised. ")
    used = {c.state for row in view.rows for c in row.cells}
    for state in (s for s in CellState if s in used):
        key = nodes.inline(classes=["flax-errors-key"])
        meaning = state.meaning.replace("the module", view.module)
        key += history_cell(
            state.glyph, state.glyph, classes=[CELL_CLASS, state.value], title=meaning
        )
        key += nodes.Text(f"\u00a0{meaning}")
        intro += key
        intro += nodes.Text(" ")
    cells: list[list[list[nodes.Node]]] = []
    for row in view.rows:
        label = [link(f"{view.module}.{row.name}", nodes.literal(row.name, row.name))]
        if row.retired:
            label.append(nodes.Text(" (retired)"))
        by_release: dict[str, list[nodes.Node]] = {
            c.release: [cell(c, view.module, c.state.glyph)] for c in row.cells
        }
        cells.append([label, *(by_release.get(release, []) for release in view.releases)])
    labels = ["Error", *view.labels.values()]
    box = nodes.container(classes=["flax-errors-matrix-box"])
    box += table(["flax-errors-matrix"], (1,) * len(labels), labels, cells)
    return IndexPart(title, anchor, (heading, intro, box))
