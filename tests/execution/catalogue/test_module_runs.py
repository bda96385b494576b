"""A module's run, as the pages that show the module share it."""

from __future__ import annotations

from pathlib import Path

from flax_errors_ext.execution.catalogue.module_runs import ModuleRun
from flax_errors_ext.model.catalogue.discover import ErrorModule
from flax_errors_ext.model.catalogue.records import ErrorEntry, Location
from flax_errors_ext.model.runs.jobs import EntryOutcome, Execution


def _run(entries: int) -> ModuleRun:
    found = tuple(
        ErrorEntry(
            qualname=f"pkg.errors.Error{number}",
            summary="x" * 200,
            prose=(),
            examples=(),
            problems=(),
            location=Location("pkg/errors.py", number),
        )
        for number in range(entries)
    )
    outcomes = tuple(EntryOutcome(entry, Execution(runs=()), ()) for entry in found)
    return ModuleRun(ErrorModule("pkg.errors", Path("pkg/errors.py"), "", found), outcomes)


def test_its_repr_stays_short_however_many_entries_the_module_has() -> None:
    # Sphinx takes the repr of every event's arguments, and an entry's event carries
    # its module's run: a repr the size of the run would cost each entry that much.
    assert repr(_run(500)) == "ModuleRun('pkg.errors', 500 entries)"


def test_an_entry_is_found_by_its_dotted_name() -> None:
    run = _run(3)

    found = run.outcome("pkg.errors.Error2")

    assert found is not None
    assert found.entry.qualname == "pkg.errors.Error2"
    assert run.outcome("pkg.errors.Missing") is None
