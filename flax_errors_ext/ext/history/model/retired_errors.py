"""The errors a module had in a recorded release and has no longer.

Each one gets a cell per release (in the module or not, raised by which entry's
example) and a summary: when it was there, the last text it was raised with, and
what the same code raises today.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from flax_errors_ext.ext.history.model.cells import (
    QUOTED,
    TOOLTIP,
    Cell,
    CellState,
    compared_text,
    compared_with_latest,
    exception_message,
    merged_substitutions,
    rewritten_note,
    run_as,
)
from flax_errors_ext.model.history.releases import version_key
from flax_errors_ext.model.history.timeline import Retired, quote

if TYPE_CHECKING:
    from flax_errors_ext.model.history.releases import History, ReleaseRun


@dataclasses.dataclass(frozen=True, kw_only=True)
class RetiredError(Retired):
    """A retired class as the module's page shows it: its cells, and who raised it."""

    cells: tuple[Cell, ...]
    raised: tuple[tuple[str, str, str], ...] = ()
    """``(release, entry, text)``: the last release each wording was raised in, by which
    entry's example, oldest first."""
    replaced_by: tuple[str, ...] = ()
    """Classes of the module that the code that raised it raises on the newest release."""

    def summary(self, module: str) -> str:
        """When it was there, when raised and with what text, and what replaces it."""
        where = (
            f"In {module} in {self.first} only"
            if self.first == self.last
            else f"In {module} from {self.first} to {self.last}"
        )
        parts = [f"{where}; gone since {self.gone_since}."]
        if self.raised:
            release, entry, text = self.raised[-1]
            cell = next((c for c in self.cells if c.release == release), None)
            how = f", {run_as(cell.rewritten, 'that release')}" if cell and cell.rewritten else ""
            parts.append(
                f"Last raised in {release} (by the example of {entry}{how}): "
                f"«{quote(exception_message(text), QUOTED)}»."
            )
        else:
            parts.append("No recorded example raised it.")
        if self.replaced_by:
            parts.append(f"The same code raises {', '.join(self.replaced_by)} today.")
        return " ".join(parts)


def retired_error(history: History, gone: Retired, now: str) -> RetiredError:
    """A retired class's cells: in the module or not, and raised by which example."""
    newest = history.releases[-1]
    raised: dict[str, tuple[str, str, str]] = {}
    replaced: set[str] = set()
    cells = []
    for record in history.releases:
        release = record.release.flax
        hits = record.raisers(f"{history.module}.{gone.name}")
        for entry, index, run in hits:
            raised.pop(compared_text(run.exc_text), None)
            raised[compared_text(run.exc_text)] = (release, entry, run.exc_text)
            replaced.update(_raised_now(newest, entry, index, run.code, history.module))
        notes = tuple(
            f"the example of {entry}: «{quote(run.exc_text, TOOLTIP)}»{rewritten_note(run)}"
            for entry, _, run in hits
        )
        if hits:
            state = CellState.SAME
        elif gone.name in record.classes:
            state = CellState.PRESENT
        else:
            state = CellState.NOT_PRESENT
        wording = (hits[0][2].exc_text,) if hits else ()
        made = merged_substitutions(run.rewritten for _, _, run in hits)
        cells.append(Cell(release, state, wording, notes, release == now, made))
    return RetiredError(
        **vars(gone),
        cells=tuple(compared_with_latest(cells)),
        raised=tuple(sorted(raised.values(), key=lambda hit: version_key(hit[0]))),
        replaced_by=tuple(sorted(replaced - {gone.name})),
    )


def _raised_now(newest: ReleaseRun, entry: str, index: int, code: str, module: str) -> set[str]:
    """What the same example, with the same code, raises on the newest release."""
    row = newest.entries.get(entry)
    if row is None or index >= len(row.examples):
        return set()
    run = row.examples[index]
    if run.code != code or not run.exc_type.startswith(module + "."):
        return set()
    return {run.exc_type.rpartition(".")[2]}
