"""Where the history joins the build: the files read, the pages' parts, the stale records.

The files are read into the build's context (the core and the search read them too).
A module's page keeps its view in the environment, by docname, for the error index
and for the stale warnings of ``build-finished``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from docutils import nodes

from flax_errors_ext.execution.history.files import read_histories
from flax_errors_ext.execution.runs.run import run_versions
from flax_errors_ext.ext.history.model.example_runs import entry_codes
from flax_errors_ext.ext.history.model.view import build_release, build_row, module_history
from flax_errors_ext.ext.history.sphinx.strips import entry_history, matrix, retired_box
from flax_errors_ext.model.warning_subtypes import WarningSubtype
from flax_errors_ext.sphinx.context import build_context
from flax_errors_ext.sphinx.extras import EntryExtras, IndexPart
from flax_errors_ext.sphinx.loggers import conf_location, warn
from flax_errors_ext.sphinx.state import CatalogueCollector, kept

if TYPE_CHECKING:
    from collections.abc import Callable, Set

    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

    from flax_errors_ext.execution.catalogue.module_runs import ModuleRun
    from flax_errors_ext.ext.history.model.view import ModuleHistory
    from flax_errors_ext.layout import EntryLocation
    from flax_errors_ext.model.history.releases import History
    from flax_errors_ext.model.runs.entry_record import EntryRecord
    from flax_errors_ext.sphinx.context import BuildContext

EXTENSION = "flax_errors_ext.ext.history"


def views(env: BuildEnvironment) -> dict[str, ModuleHistory]:
    """By docname, the history of the module a page shows, where one is recorded."""
    return kept(env, "histories", dict)


def forget_view(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    """Forget a page's view before it is read again."""
    views(env).pop(docname, None)


def merge_views(
    app: Sphinx, env: BuildEnvironment, docnames: Set[str], other: BuildEnvironment
) -> None:
    """Take the views of pages a parallel reader read."""
    theirs = views(other)
    views(env).update({d: theirs[d] for d in docnames if d in theirs})


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
    """The module's history with the run's rows; None where none is recorded.

    Derived once per run, for every page that shows the module (kept in the run's
    ``extras``); its file is noted as a dependency of the page being read.
    """
    context = build_context(app.env)
    history = context.histories.get(found.module.name)
    if history is None:
        return None
    app.env.note_dependency(history.path)
    if EXTENSION not in found.extras:
        found.extras[EXTENSION] = _module_history(context, found, history)
    view: ModuleHistory = found.extras[EXTENSION]
    return view


def _module_history(context: BuildContext, found: ModuleRun, history: History) -> ModuleHistory:
    settings = context.run
    rows = {}
    for outcome in found.outcomes:
        row = build_row(outcome.entry, outcome.results, context.published_roots)
        if row is not None:
            rows[outcome.entry.name] = row
    module = found.module
    classes = [e.name for e in module.entries] + [item.name for item in module.left_out]
    return module_history(
        history,
        entry_codes(module.entries),
        build_release(settings.fingerprint.version_map, classes, rows),
        unreachable={
            o.entry.name
            for o in found.outcomes
            if o.entry.unreachable_with(run_versions(settings.fingerprint, o.entry))
        },
    )


def entry_strip(app: Sphinx, record: EntryRecord, found: ModuleRun) -> EntryExtras | None:
    """The entry's strip and line, where its module's history is recorded."""
    view = _view(app, found)
    if view is None:
        return None
    return EntryExtras(parts=tuple(entry_history(record.name, view)))


def module_end(app: Sphinx, found: ModuleRun) -> list[nodes.Node]:
    """The module's retired errors; its view is kept for the index and the warnings."""
    view = _view(app, found)
    if view is None:
        return []
    views(app.env)[app.env.docname] = view
    return retired_box(view, build_context(app.env).config.layout)


def index_matrices(
    app: Sphinx, to: Callable[[EntryLocation, nodes.Node], nodes.reference]
) -> list[IndexPart]:
    """Each recorded module's errors across releases, for the error index."""
    records = CatalogueCollector.by_qualname(app.env)
    layout = build_context(app.env).config.layout
    histories = views(app.env)

    def link_any(qualname: str, child: nodes.Node) -> nodes.Node:
        """A link to an entry, or to a retired error where its old URLs land."""
        found = qualname in records
        return to(layout.locate(qualname) if found else layout.printed(qualname), child)

    parts = []
    for docname in sorted(histories):
        view = histories[docname]
        anchor = "history-" + nodes.make_id(view.module)
        title = f"{view.module} across releases"
        parts.append(IndexPart(title, anchor, tuple(matrix(view, link_any, anchor))))
    return parts


def warn_stale(app: Sphinx, exception: Exception | None) -> None:
    """Name every entry whose recorded history is of other code than its bad examples now.

    Every build, from what the pages' reads kept, so that a page the build did not
    read again still says so.
    """
    if exception is not None:
        return
    records = CatalogueCollector.by_qualname(app.env)
    histories = views(app.env)
    for docname in sorted(histories):
        view = histories[docname]
        for entry in view.entries:
            if not entry.stale:
                continue
            qualname = f"{view.module}.{entry.name}"
            found = records.get(qualname)
            location = found[1].source if found else docname
            warn(
                f"{qualname}: {view.source} has no record of its bad examples as they are "
                f"now on flax {entry.stale_releases} (they changed, or are new, since it was "
                "recorded); those releases are not shown until it is recorded again "
                "(nox -s history)",
                WarningSubtype.HISTORY_STALE,
                location,
            )
