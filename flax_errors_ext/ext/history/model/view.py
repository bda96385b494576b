"""What the site shows of a module's errors across releases: cells, lines, the matrix."""

from __future__ import annotations

import collections
import dataclasses
import itertools
from typing import TYPE_CHECKING

from flax_errors_ext.ext.history.model.cells import (
    QUOTED,
    TOOLTIP,
    URL_TAIL,
    Cell,
    CellState,
    bad_examples,
    cell_key,
    compared_text,
    compared_with_latest,
    example_run,
    exception_message,
    merged_substitutions,
    release_cell,
    rewritten_note,
)
from flax_errors_ext.model.catalogue.records import ExampleKind, Verdict
from flax_errors_ext.model.history.releases import (
    EntryRun,
    Release,
    ReleaseRun,
    quote,
    retired,
    version_key,
    version_range,
)

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Mapping, Sequence

    from flax_errors_ext.model.catalogue.records import ErrorEntry, ExampleResult
    from flax_errors_ext.model.history.releases import History, Retired, Substitution


@dataclasses.dataclass(frozen=True)
class ErrorHistory:
    """An error's cells, one per release, and its history in words."""

    name: str
    cells: tuple[Cell, ...]
    line: str
    retired: bool = False
    """Whether the module no longer has the class."""

    @property
    def stale(self) -> tuple[str, ...]:
        """The recorded releases whose record is of other code than the examples now."""
        return tuple(c.release for c in self.cells if c.state is CellState.STALE)

    @property
    def stale_releases(self) -> str:
        """The stale releases in short: ``0.4.2-0.12.8`` or ``0.4.2, 0.9.0``."""
        return releases_in_short(self.stale, [c.release for c in self.cells])

    @property
    def rewritten(self) -> str:
        """The releases shown where its examples ran rewritten, by substitutions ("" if none)."""
        every = [c.release for c in self.cells]
        groups: dict[tuple[Substitution, ...], list[str]] = {}
        for cell in self.cells:
            if cell.rewritten and cell.state.known:
                groups.setdefault(cell.rewritten, []).append(cell.release)
        return "; ".join(
            f"Run as rewritten for flax {releases_in_short(releases, every)}: "
            + "; ".join(map(str, made))
            for made, releases in groups.items()
        )


@dataclasses.dataclass(frozen=True)
class ModuleHistory:
    """A module's errors across the releases: what its page and the index show."""

    module: str
    releases: tuple[str, ...]
    """The columns, oldest first: the recorded releases and the build's own."""
    current: str
    """The build's release ("" if the build's Flax version is unknown)."""
    entries: tuple[ErrorHistory, ...]
    retired: tuple[ErrorHistory, ...] = ()
    source: str = ""

    @property
    def rows(self) -> list[ErrorHistory]:
        """Every error by name, entries and retired ones."""
        return sorted([*self.entries, *self.retired], key=lambda row: row.name)

    def entry(self, name: str) -> ErrorHistory | None:
        """The history of the entry called ``name``, if it has one."""
        return next((e for e in self.entries if e.name == name), None)

    @property
    def labels(self) -> dict[str, str]:
        """Each column's shortest label: major.minor, unless two releases share it."""
        short = {r: ".".join(r.split(".")[:2]) for r in self.releases}
        counts = collections.Counter(short.values())
        return {r: label if counts[label] == 1 else r for r, label in short.items()}


def build_row(
    entry: ErrorEntry, results: Sequence[ExampleResult], roots: Iterable[str] = ()
) -> EntryRun | None:
    """The build's own record of ``entry`` on the installed release; None if it did not run."""
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
) -> ModuleHistory:
    """Every entry's cells and line, and the module's retired errors.

    ``codes``: the entries, with their bad examples' code hashes; ``current`` replaces its record.
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
            raisers = releases if name in unreachable else []
            line = presence_line(f"{module}.{name}", cells, module, raisers)
        entries.append(ErrorHistory(name, tuple(cells), line))
    combined = dataclasses.replace(history, releases=tuple(releases))
    gone = tuple(retired_error(combined, r, now) for r in retired(combined) if r.name not in codes)
    versions = tuple(r.release.flax for r in releases)
    return ModuleHistory(module, versions, now, tuple(entries), gone, history.path)


def history_line(cells: Sequence[Cell]) -> str:
    """An entry's history in a line: "No longer raised since 0.9.0; before that: «…» (0.8.5)"."""
    shown = [c for c in cells if c.state.known]
    if not shown:
        return ""
    # Consecutive cells that read the same: raised with one wording, or not raised.
    spans = [list(span) for _, span in itertools.groupby(shown, key=cell_key)]
    raised = [span for span in spans if span[0].state.raised]
    if not raised:
        return "Not raised by its example in any release shown"
    latest = raised[-1]
    if spans[-1] is latest:
        every = f"in every release shown ({_range(latest)})"
        parts = [
            f"Raised with this text {every if len(spans) == 1 else 'since ' + latest[0].release}"
        ]
        earlier = [span for span in raised[:-1] if cell_key(span[0]) != cell_key(latest[0])]
        reference: Cell | None = latest[0]
        stated = {latest[0].release}
    else:
        after = spans[spans.index(latest) + 1][0].release
        parts = [f"No longer raised since {after}"]
        earlier, reference, stated = raised, None, set()
    quoted = [
        (text, [cell for span in group for cell in span])
        for text, group in itertools.groupby(earlier, key=lambda span: _quoted(span[0], reference))
    ]
    if quoted:
        parts.append(
            "before that: " + ", ".join(f"«{t}» ({_range(s)})" for t, s in reversed(quoted))
        )
    first = raised[0][0].release
    if first not in stated | {span[0].release for _, span in quoted}:
        parts.append(f"first raised in {first}")
    return "; ".join(parts)


def _range(span: Sequence[Cell]) -> str:
    return version_range(span[0].release, span[-1].release)


def _quoted(cell: Cell, reference: Cell | None) -> str:
    texts = list(enumerate(cell.wording))
    if reference is not None:
        theirs = dict(enumerate(reference.wording))
        differing = [
            (n, t) for n, t in texts if t and compared_text(t) != compared_text(theirs.get(n, ""))
        ]
        texts = differing or texts
    number, text = next((n, t) for n, t in texts if t)
    prefix = f"bad example {number + 1}: " if number else ""
    return prefix + quote(URL_TAIL.sub("", exception_message(text)), QUOTED)


def presence_line(
    qualname: str, cells: Sequence[Cell], module: str, raisers: Sequence[ReleaseRun] = ()
) -> str:
    """The line of an entry without bad examples: when the module had it, and ``raisers``' hits."""
    shown = [c for c in cells if c.state.known]
    present = [c.release for c in shown if c.state is not CellState.NOT_PRESENT]
    if not shown:
        return ""
    if not present:
        parts = [f"Not in {module} in any release shown"]
    elif present == [c.release for c in shown][len(shown) - len(present) :]:
        since = (
            "in every release shown" if present[0] == shown[0].release else "since " + present[0]
        )
        parts = [f"In {module} {since}"]
    else:
        parts = [f"In {module} in {', '.join(present)}"]
    found = [(r.release.flax, hits[0]) for r in raisers if (hits := r.raisers(qualname))]
    if found:
        entries = sorted({entry for _, (entry, _, _) in found})
        _, (_, _, last) = found[-1]
        text = quote(exception_message(last.exc_text), QUOTED)
        span = version_range(found[0][0], found[-1][0])
        parts.append(
            f"unreachable today, but {span} raised it (the example of "
            f"{', '.join(entries)}): «{text}»"
        )
    return "; ".join(parts)


def releases_in_short(chosen: Sequence[str], every: Sequence[str]) -> str:
    """``chosen`` in short: a range where they are consecutive among ``every``."""
    if not chosen:
        return ""
    positions = [every.index(r) for r in chosen]
    if positions == list(range(positions[0], positions[0] + len(positions))):
        return version_range(chosen[0], chosen[-1])
    return ", ".join(chosen)


def retired_error(history: History, gone: Retired, now: str) -> ErrorHistory:
    """A retired class's cells and line: when the module had it, what raised it, what now."""
    newest = history.releases[-1]
    last = "No recorded example raised it."
    replaced: set[str] = set()
    cells = []
    for record in history.releases:
        release = record.release.flax
        hits = record.raisers(f"{history.module}.{gone.name}")
        for entry, index, run in hits:
            replaced.update(_raised_now(newest, entry, index, run.code, history.module))
        notes = tuple(
            f"the example of {entry}: «{quote(run.exc_text, TOOLTIP)}»{rewritten_note(run)}"
            for entry, _, run in hits
        )
        present = CellState.PRESENT if gone.name in record.classes else CellState.NOT_PRESENT
        state = CellState.SAME if hits else present
        wording = (hits[0][2].exc_text,) if hits else ()
        made = merged_substitutions(run.rewritten for _, _, run in hits)
        cells.append(Cell(release, state, wording, notes, release == now, made))
        if hits:
            entry, _, run = hits[-1]
            substitutions = "; ".join(map(str, made))
            how = f", run as rewritten for that release: {substitutions}" if made else ""
            last = (
                f"Last raised in {release} (by the example of {entry}{how}): "
                f"«{quote(exception_message(run.exc_text), QUOTED)}»."
            )
    had = (
        f"in {gone.first} only" if gone.first == gone.last else f"from {gone.first} to {gone.last}"
    )
    parts = [f"In {history.module} {had}; gone since {gone.gone_since}.", last]
    if replaced_by := sorted(replaced - {gone.name}):
        parts.append(f"The same code raises {', '.join(replaced_by)} today.")
    line = " ".join(parts)
    return ErrorHistory(gone.name, tuple(compared_with_latest(cells)), line, retired=True)


def _raised_now(newest: ReleaseRun, entry: str, index: int, code: str, module: str) -> set[str]:
    if (row := newest.entries.get(entry)) is None or index >= len(row.examples):
        return set()
    run = row.examples[index]
    if run.code != code or not run.exc_type.startswith(module + "."):
        return set()
    return {run.exc_type.rpartition(".")[2]}
