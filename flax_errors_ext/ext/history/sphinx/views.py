"""A module's recorded history with this build's run as its release's row."""

from __future__ import annotations

from typing import TYPE_CHECKING

from flax_errors_ext.execution.runs.run import run_versions
from flax_errors_ext.ext.history.model.example_runs import entry_codes
from flax_errors_ext.ext.history.model.view import build_release, build_row, module_history

if TYPE_CHECKING:
    from flax_errors_ext.execution.catalogue.module_runs import ModuleRun
    from flax_errors_ext.ext.history.model.view import ModuleHistory
    from flax_errors_ext.sphinx.context import BuildContext

EXTENSION = "flax_errors_ext.ext.history"


def module_view(context: BuildContext, found: ModuleRun) -> ModuleHistory | None:
    """The history of ``found``'s module with the run's row; None where none is recorded.

    Derived once per run, for every page that shows the module (kept in the run's
    ``extras``).
    """
    module = found.module
    history = context.histories.get(module.name)
    if history is None:
        return None
    if EXTENSION in found.extras:
        kept: ModuleHistory = found.extras[EXTENSION]
        return kept
    settings = context.run
    rows = {}
    for outcome in found.outcomes:
        row = build_row(outcome.entry, outcome.results, context.published_roots)
        if row is not None:
            rows[outcome.entry.name] = row
    classes = [e.name for e in module.entries] + [item.name for item in module.left_out]
    current = build_release(settings.fingerprint.version_map, classes, rows)
    view = module_history(
        history.history,
        entry_codes(module.entries),
        current,
        unreachable={
            o.entry.name
            for o in found.outcomes
            if o.entry.unreachable_with(run_versions(settings.fingerprint, o.entry))
        },
        source=history.path,
    )
    found.extras[EXTENSION] = view
    return view
