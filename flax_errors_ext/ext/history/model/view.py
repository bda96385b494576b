"""What the site shows of a module's errors across releases: the matrix of their histories.

Computed from a recorded :class:`~flax_errors_ext.model.history.releases.History`, the
code hashes of the entries' bad examples now, and the build's own release
(:func:`build_release`), which replaces any record of that release and is a column
even where no record has it.
"""

from __future__ import annotations

import collections
import dataclasses
from typing import TYPE_CHECKING

from flax_errors_ext.ext.history.model.cells import CellState, compared_with_latest, release_cell
from flax_errors_ext.ext.history.model.example_runs import bad_examples, example_run
from flax_errors_ext.ext.history.model.lines import (
    history_line,
    presence_line,
    releases_in_short,
    rewritten_line,
)
from flax_errors_ext.ext.history.model.retired_errors import retired_error
from flax_errors_ext.model.catalogue.records import ExampleKind, Verdict
from flax_errors_ext.model.history.releases import EntryRun, Release, ReleaseRun, version_key
from flax_errors_ext.model.history.timeline import retired

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Mapping, Sequence

    from flax_errors_ext.ext.history.model.cells import Cell
    from flax_errors_ext.ext.history.model.retired_errors import RetiredError
    from flax_errors_ext.model.catalogue.records import ErrorEntry, ExampleResult
    from flax_errors_ext.model.history.releases import History


@dataclasses.dataclass(frozen=True)
class EntryHistory:
    """An entry's cells, one per release, and its history in a line."""

    name: str
    cells: tuple[Cell, ...]
    line: str
    """The history in words, from the cells shown (stale ones left out)."""
    stale: tuple[str, ...] = ()
    """The recorded releases whose record is of other code than the examples now."""

    @property
    def stale_releases(self) -> str:
        """The stale releases in short: ``0.4.2-0.12.8`` or ``0.4.2, 0.9.0``."""
        return releases_in_short(self.stale, [c.release for c in self.cells])

    @property
    def rewritten(self) -> str:
        """Where its examples ran rewritten, and how, in a sentence ("" if nowhere)."""
        return rewritten_line(self.cells)


@dataclasses.dataclass(frozen=True)
class ModuleHistory:
    """A module's errors across the releases: what its page and the index show."""

    module: str
    releases: tuple[str, ...]
    """The columns, oldest first: the recorded releases and the build's own."""
    current: str
    """The build's release ("" if the build's Flax version is unknown)."""
    entries: tuple[EntryHistory, ...]
    retired: tuple[RetiredError, ...] = ()
    source: str = ""
    """The file the history was read from."""

    @property
    def rows(self) -> list[tuple[str, tuple[Cell, ...], bool]]:
        """Every error by name, entries and retired ones: ``(name, cells, retired)``."""
        return sorted(
            [(e.name, e.cells, False) for e in self.entries]
            + [(r.name, r.cells, True) for r in self.retired]
        )

    def entry(self, name: str) -> EntryHistory | None:
        """The history of the entry called ``name``, if it has one."""
        return next((e for e in self.entries if e.name == name), None)

    def label(self, release: str) -> str:
        """A column's short label: ``0.12`` where no other release shares the line."""
        return release_labels(self.releases).get(release, release)


def release_labels(releases: Sequence[str]) -> dict[str, str]:
    """Each release's shortest label: major.minor, unless two releases share it."""
    short = {r: ".".join(r.split(".")[:2]) for r in releases}
    counts = collections.Counter(short.values())
    return {r: label if counts[label] == 1 else r for r, label in short.items()}


def build_row(
    entry: ErrorEntry, results: Sequence[ExampleResult], roots: Iterable[str] = ()
) -> EntryRun | None:
    """The build's own record of ``entry`` on the installed release; None if it did not run.

    Made from the judged runs as ``nox -s history`` makes a past release's.
    """
    folders = tuple(roots)
    bad = [r for r in results if r.example.kind is ExampleKind.BAD]
    if len(bad) != len(bad_examples(entry)) or any(r.verdict is Verdict.NOT_RUN for r in bad):
        return None
    return EntryRun(True, tuple(example_run(result, folders) for result in bad))


def build_release(
    versions: Mapping[str, str], classes: Iterable[str], rows: Mapping[str, EntryRun]
) -> ReleaseRun | None:
    """The build's own release record; None where the build's Flax version is unknown."""
    flax = versions.get("flax", "")
    if not flax:
        return None
    release = Release(flax, versions.get("jax", ""), versions.get("jaxlib", ""), "")
    return ReleaseRun(release, tuple(sorted(set(classes))), dict(rows))


def module_history(
    history: History,
    codes: Mapping[str, tuple[str, ...]],
    current: ReleaseRun | None = None,
    unreachable: Collection[str] = (),
    source: str = "",
) -> ModuleHistory:
    """Every entry's cells and line, and the module's retired errors.

    Args:
        history: The recorded releases of the module.
        codes: The code hashes of each entry's bad examples now, by class name: the
            entries to show.
        current: The build's own release: its rows replace any record of the same
            release; an entry without a row there was not run by the build.
        unreachable: The entries that document that their error cannot be raised
            today: their line says if a release raised it all the same.
        source: The file ``history`` was read from, for notes and warnings.
    """
    now = current.release.flax if current is not None else ""
    releases = [r for r in history.releases if r.release.flax != now]
    if current is not None:
        releases.append(current)
    releases.sort(key=lambda r: version_key(r.release.flax))
    module = history.module
    entries = []
    for name in sorted(codes):
        cells = compared_with_latest(
            [release_cell(name, codes[name], r, r.release.flax == now) for r in releases]
        )
        if codes[name]:
            line = history_line(cells)
        else:
            line = presence_line(f"{module}.{name}", cells, releases, module, name in unreachable)
        stale = tuple(c.release for c in cells if c.state is CellState.STALE)
        entries.append(EntryHistory(name, tuple(cells), line, stale))
    combined = dataclasses.replace(history, releases=tuple(releases))
    gone = tuple(retired_error(combined, r, now) for r in retired(combined) if r.name not in codes)
    versions = tuple(r.release.flax for r in releases)
    return ModuleHistory(module, versions, now, tuple(entries), gone, source)
