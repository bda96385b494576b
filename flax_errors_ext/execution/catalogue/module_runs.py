"""A module's run: every entry run at once, and its history with this run's row.

The pages that show a module's errors (its own, and each entry's) all render from
one such run per build (:mod:`flax_errors_ext.sphinx.catalogue.per_build` keeps it).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from flax_errors_ext.execution.runs.run import check_module, run_versions
from flax_errors_ext.model.history.example_runs import entry_codes
from flax_errors_ext.model.history.view import build_release, build_row, module_history

if TYPE_CHECKING:
    from collections.abc import Sequence

    from flax_errors_ext.execution.history.files import HistoryFile
    from flax_errors_ext.execution.runs.run import EntryOutcome, RunSettings
    from flax_errors_ext.model.catalogue.discover import ErrorModule
    from flax_errors_ext.model.history.view import ModuleHistory


@dataclasses.dataclass(frozen=True)
class ModuleRun:
    """A module's entries as one build ran them, and its history with that run's row."""

    module: ErrorModule
    outcomes: tuple[EntryOutcome, ...]
    history: ModuleHistory | None
    """The recorded history with this build's runs as their release's row; None if none."""

    def outcome(self, qualname: str) -> EntryOutcome | None:
        """The outcome of the entry of that name, if the module has it."""
        return next((o for o in self.outcomes if o.entry.qualname == qualname), None)


def run_module(
    module: ErrorModule,
    settings: RunSettings,
    *,
    jobs: int,
    history: HistoryFile | None,
    roots: Sequence[str],
) -> ModuleRun:
    """Run (or fetch from the cache) every entry of ``module``, and place the runs in its history.

    Args:
        module: The module, as the build discovered it.
        settings: What running an entry needs besides the entry.
        jobs: How many kernels run at once.
        history: The module's recorded history, if one is.
        roots: The folders published paths are shown relative to.
    """
    outcomes = check_module(module, settings, settings.sources(), jobs=jobs)
    found = None
    if history is not None:
        found = _history(module, outcomes, settings, history, roots)
    return ModuleRun(module, tuple(outcomes), found)


def _history(
    module: ErrorModule,
    outcomes: Sequence[EntryOutcome],
    settings: RunSettings,
    history: HistoryFile,
    roots: Sequence[str],
) -> ModuleHistory:
    """The module's recorded history with this build's own runs as their release's row."""
    rows = {}
    for outcome in outcomes:
        row = build_row(outcome.entry, outcome.results, roots)
        if row is not None:
            rows[outcome.entry.name] = row
    classes = [e.name for e in module.entries] + [item.name for item in module.left_out]
    current = build_release(settings.fingerprint.version_map, classes, rows)
    return module_history(
        history.history,
        entry_codes(module.entries),
        current,
        unreachable={
            o.entry.name
            for o in outcomes
            if o.entry.unreachable_with(run_versions(settings.fingerprint, o.entry))
        },
        source=history.path,
    )
