"""A module's run: its entries as one build ran them, for every page that shows them."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from flax_errors_ext.execution.runs.run import check_modules

if TYPE_CHECKING:
    from collections.abc import Sequence

    from flax_errors_ext.execution.runs.run import RunSettings
    from flax_errors_ext.model.catalogue.discover import ErrorModule
    from flax_errors_ext.model.runs.jobs import EntryOutcome


@dataclasses.dataclass(frozen=True, repr=False)
class ModuleRun:
    """A module's entries as one build ran them."""

    module: ErrorModule
    outcomes: tuple[EntryOutcome, ...]
    extras: dict[str, Any] = dataclasses.field(default_factory=dict, compare=False)
    """What each loaded extra derived from this run (a history's row), by its name."""

    def __repr__(self) -> str:
        # Short: Sphinx's event manager takes the repr of an event's arguments at every
        # emit, once per entry rendered.
        return f"ModuleRun({self.module.name!r}, {len(self.outcomes)} entries)"

    def outcome(self, qualname: str) -> EntryOutcome | None:
        """The outcome of the entry of that name, if any."""
        return next((o for o in self.outcomes if o.entry.qualname == qualname), None)


def run_modules(
    modules: Sequence[ErrorModule], settings: RunSettings, *, jobs: int
) -> list[ModuleRun]:
    """Run (or fetch from the cache) every entry of ``modules``, ``jobs`` processes at once."""
    outcomes = check_modules(modules, settings, settings.sources(), jobs=jobs)
    return [ModuleRun(m, tuple(o)) for m, o in zip(modules, outcomes, strict=True)]
