"""What the site shows of each error's history: a strip of cells, a line, retired errors.

Pure: computed from a recorded :class:`~flax_errors_ext.model.history.releases.History`
(read from its file by the Sphinx layer), the code hashes of the entries' bad
examples now (:func:`~flax_errors_ext.model.history.releases.entry_codes`), and the build's
own row for the Flax it runs on (:func:`build_row`), which replaces any record of
that release and is the last cell even where no record has it.

Each entry gets one :class:`Cell` per release, in a state a reader tells at a
glance: raised with the text it has now, raised with other text, not raised, not in
the module, could not run. A record made with other code than the entry's bad
examples have now is *stale*: its cell says so instead of showing what that code
did, and :attr:`EntryHistory.stale` names the releases, for a warning. Where an
example ran rewritten for an old release (``rewrites.toml``), what it did is shown
with the substitutions it ran with.
"""

from __future__ import annotations

import dataclasses
import enum
import re
from typing import TYPE_CHECKING

from flax_errors_ext.model.catalogue.records import ExampleKind, Verdict
from flax_errors_ext.model.history.releases import (
    EntryRun,
    Outcome,
    Release,
    ReleaseRun,
    bad_examples,
    judge_run,
    version_key,
)
from flax_errors_ext.model.history.timeline import comparable, retired

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Mapping, Sequence

    from flax_errors_ext.model.catalogue.records import ErrorEntry, ExampleResult
    from flax_errors_ext.model.history.releases import ExampleRun, History, Substitution
    from flax_errors_ext.model.history.timeline import Retired

QUOTED = 90
"""The characters of an error's text that the history line quotes."""
TOOLTIP = 300
"""The characters of a text that a cell's tooltip shows."""

_URL_TAIL = re.compile(r"\s*\(https?://\S+\)\s*$")


class CellState(enum.StrEnum):
    """What an entry's record says about one release, as a cell's colour shows it."""

    SAME = "same"
    CHANGED = "changed"
    NOT_RAISED = "not-raised"
    NOT_PRESENT = "not-present"
    COULD_NOT_RUN = "could-not-run"
    PRESENT = "present"
    """In the module, with no bad example to run (an error that cannot be raised)."""
    STALE = "stale"
    """No record of the entry's bad examples as they are now (one of other code, or
    none): what an older example did there is not shown."""
    NOT_RUN = "not-run"
    """The build's own release, where the build did not run the entry."""

    @property
    def meaning(self) -> str:
        """What the cell tells, for its tooltip and the legend."""
        return _MEANINGS[self]

    @property
    def known(self) -> bool:
        """Whether the cell shows what a release did (not stale, not missing)."""
        return self not in (CellState.STALE, CellState.NOT_RUN)

    @property
    def raised(self) -> bool:
        """Whether the release raised the error."""
        return self in (CellState.SAME, CellState.CHANGED)


_MEANINGS = {
    CellState.SAME: "raised with the latest text",
    CellState.CHANGED: "raised with other text",
    CellState.NOT_RAISED: "the example ran and did not raise it",
    CellState.NOT_PRESENT: "not in the module",
    CellState.COULD_NOT_RUN: "the example could not run",
    CellState.PRESENT: "in the module; no example raises it",
    CellState.STALE: "no record of the example as it is now; not shown",
    CellState.NOT_RUN: "not run in this build",
}
LEGEND = (
    CellState.SAME,
    CellState.CHANGED,
    CellState.NOT_RAISED,
    CellState.NOT_PRESENT,
    CellState.COULD_NOT_RUN,
    CellState.PRESENT,
    CellState.STALE,
    CellState.NOT_RUN,
)
"""The states in the order a legend lists them."""


@dataclasses.dataclass(frozen=True)
class Cell:
    """One release of one error's history."""

    release: str
    state: CellState
    wording: tuple[str, ...] = ()
    """Per bad example, the text it raised the error with ("" where it did not)."""
    notes: tuple[str, ...] = ()
    """Per bad example (or raising example of another entry), what it did, in words."""
    current: bool = False
    """Whether the cell is this build's own run."""
    rewritten: tuple[Substitution, ...] = ()
    """The substitutions its examples ran with on this release (none shown if stale)."""

    @property
    def raised_text(self) -> str:
        """The first text the release raised the error with ("" if none)."""
        return next((text for text in self.wording if text), "")

    def title(self, module: str) -> str:
        """The cell's tooltip: the release, what the state means, what each example did."""
        meaning = self.state.meaning.replace("the module", module)
        head = f"flax {self.release}{' (this build)' if self.current else ''}: {meaning}"
        shown = self.notes if self.state.known else ()
        return "\n".join([head, *shown])


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
        return _releases(self.stale, [c.release for c in self.cells])

    @property
    def rewritten(self) -> str:
        """Where its examples ran rewritten, and how, in a sentence ("" if nowhere).

        "Run as rewritten for flax 0.4.2-0.6.11: jax.random.key( → jax.random.PRNGKey(".
        """
        return _rewritten_line(self.cells)


@dataclasses.dataclass(frozen=True)
class RetiredError:
    """A class the module had in a recorded release and has no longer."""

    name: str
    first: str
    """The first release that had it."""
    last: str
    """The last release that had it."""
    gone_since: str
    """The first release after ``last``."""
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
            how = f", {_run_as(cell.rewritten, 'that release')}" if cell and cell.rewritten else ""
            parts.append(
                f"Last raised in {release} (by the example of {entry}{how}): "
                f"«{_quote(_message(text), QUOTED)}»."
            )
        else:
            parts.append("No recorded example raised it.")
        if self.replaced_by:
            names = ", ".join(self.replaced_by)
            parts.append(f"The same code raises {names} today.")
        return " ".join(parts)


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
    counts: dict[str, int] = {}
    for label in short.values():
        counts[label] = counts.get(label, 0) + 1
    return {r: label if counts[label] == 1 else r for r, label in short.items()}


def build_row(
    entry: ErrorEntry, results: Sequence[ExampleResult], roots: Iterable[str] = ()
) -> EntryRun | None:
    """The build's own record of ``entry`` on the installed release; None if it did not run.

    Each bad example is judged as :mod:`nox -s history <flax_errors_ext.model.history.releases>`
    judges a past release's run, from the same statement records.
    """
    folders = tuple(roots)
    accepted = {entry.qualname}
    runs: list[ExampleRun] = []
    bad = [r for r in results if r.example.kind is ExampleKind.BAD]
    if len(bad) != len(bad_examples(entry)):
        return None
    for result in bad:
        if result.verdict is Verdict.NOT_RUN:
            return None
        statements = [s for s in result.example.statements if not s.skip]
        if statements and statements[-1].documented_class:
            accepted.add(str(statements[-1].documented_class))
        records = result.runs or None
        runs.append(judge_run(result.example, records, accepted, result.detail, folders))
    return EntryRun(True, tuple(runs))


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
        current: The build's own release (:func:`build_release`): its rows replace
            any record of the same release; an entry without a row there was not
            run by the build.
        unreachable: The entries that document that their error cannot be raised
            today: their line says if a release raised it all the same.
        source: The file ``history`` was read from, for notes and warnings.
    """
    releases = [
        r for r in history.releases if current is None or r.release.flax != current.release.flax
    ]
    if current is not None:
        releases.append(current)
    releases.sort(key=lambda r: version_key(r.release.flax))
    now = current.release.flax if current is not None else ""
    module = history.module
    entries = tuple(
        _entry_history(name, codes[name], releases, now, module, name in unreachable)
        for name in sorted(codes)
    )
    combined = dataclasses.replace(history, releases=tuple(releases))
    gone = tuple(_retired(combined, r, now) for r in retired(combined) if r.name not in codes)
    versions = tuple(r.release.flax for r in releases)
    return ModuleHistory(module, versions, now, entries, gone, source)


def _entry_history(
    name: str,
    codes: tuple[str, ...],
    releases: Sequence[ReleaseRun],
    now: str,
    module: str,
    unreachable: bool,
) -> EntryHistory:
    cells = [_cell(name, codes, r, r.release.flax == now) for r in releases]
    cells = _with_reference(cells)
    stale = tuple(c.release for c in cells if c.state is CellState.STALE)
    if codes:
        line = history_line(cells)
    else:
        line = _presence_line(f"{module}.{name}", cells, releases, module, unreachable)
    return EntryHistory(name, tuple(cells), line, stale)


def _cell(name: str, codes: tuple[str, ...], record: ReleaseRun, current: bool) -> Cell:
    """The cell of one release, with a raised one marked SAME until compared."""
    release = record.release.flax
    row = record.entries.get(name)
    if row is None:
        state = CellState.NOT_RUN if current else CellState.STALE
        return Cell(release, state, current=current)
    if row.codes != codes:
        return Cell(release, CellState.STALE, current=current)
    if not row.examples:
        state = CellState.PRESENT if row.present else CellState.NOT_PRESENT
        return Cell(release, state, current=current)
    many = len(row.examples) > 1
    notes = tuple(
        (f"bad example {n}: " if many else "") + _what_it_did(run)
        for n, run in enumerate(row.examples, 1)
    )
    rewritten = _union(run.rewritten for run in row.examples)
    wording = tuple(run.exc_text if run.outcome is Outcome.RAISED else "" for run in row.examples)
    if not row.present:
        state = CellState.NOT_PRESENT
    elif any(wording):
        state = CellState.SAME
    elif any(run.outcome is not Outcome.COULD_NOT_RUN for run in row.examples):
        state = CellState.NOT_RAISED
    else:
        state = CellState.COULD_NOT_RUN
    return Cell(release, state, wording, notes, current, rewritten)


def _with_reference(cells: list[Cell]) -> list[Cell]:
    """Raised cells compared with the latest one that raised: same text, or changed."""
    reference = next((c for c in reversed(cells) if c.state.raised), None)
    if reference is None:
        return cells
    latest = _key(reference)
    return [
        dataclasses.replace(c, state=CellState.CHANGED)
        if c.state.raised and _key(c) != latest
        else c
        for c in cells
    ]


def _key(cell: Cell) -> tuple[str, ...] | None:
    """What two raised cells must share to read the same (None: not raised)."""
    return tuple(_wording(text) for text in cell.wording) if cell.state.raised else None


def _wording(text: str) -> str:
    """An error's text as compared across releases.

    Without what changes between runs (addresses, temporary names), nor the link to
    the docs at its end, which moved with Flax's site and says nothing of the error.
    """
    return comparable(_URL_TAIL.sub("", text))


def history_line(cells: Sequence[Cell]) -> str:
    """An entry's history in a line, from the cells that show what a release did.

    "Raised with this text since 0.11.2; before that: «…» (0.7.5-0.10.7)"; "Raised with
    this text since 0.9.0; first raised in 0.4.2" (where the text was the same then);
    "No longer raised since 0.9.0; before that: «…» (0.6.11-0.8.5)"; "Not raised by its
    example in any release shown". Versions are the releases shown: "since 0.11.2"
    means that 0.11.2 is the first of them with this text. Each earlier text quoted is
    the one that differs from the latest (a later bad example's, where the first reads
    the same); the first release that raised it is named unless a quoted range starts
    there.
    """
    shown = [c for c in cells if c.state.known]
    if not shown:
        return ""
    spans = _spans(shown)
    raised = [span for span in spans if span[0].state.raised]
    if not raised:
        return "Not raised by its example in any release shown"
    latest = raised[-1]
    if spans[-1] is latest:
        if len(spans) == 1:
            parts = [f"Raised with this text in every release shown ({_range(latest)})"]
        else:
            parts = [f"Raised with this text since {latest[0].release}"]
        earlier = [span for span in raised[:-1] if _key(span[0]) != _key(latest[0])]
        reference: Cell | None = latest[0]
        stated = {latest[0].release}
    else:
        after = spans[spans.index(latest) + 1][0].release
        parts = [f"No longer raised since {after}"]
        earlier, reference, stated = raised, None, set()
    quoted: list[tuple[str, list[Cell]]] = []
    for span in earlier:
        text = _quoted(span[0], reference)
        if quoted and quoted[-1][0] == text:
            quoted[-1][1].extend(span)
        else:
            quoted.append((text, list(span)))
    if quoted:
        parts.append(
            "before that: " + ", ".join(f"«{t}» ({_range(s)})" for t, s in reversed(quoted))
        )
    first = raised[0][0].release
    if first not in stated | {span[0].release for _, span in quoted}:
        parts.append(f"first raised in {first}")
    return "; ".join(parts)


def _spans(cells: Sequence[Cell]) -> list[list[Cell]]:
    """Consecutive cells that read the same: raised with one wording, or not raised."""
    spans: list[list[Cell]] = []
    for cell in cells:
        if spans and _key(spans[-1][0]) == _key(cell):
            spans[-1].append(cell)
        else:
            spans.append([cell])
    return spans


def _range(span: Sequence[Cell]) -> str:
    first, last = span[0].release, span[-1].release
    return first if first == last else f"{first}-{last}"


def _quoted(cell: Cell, reference: Cell | None) -> str:
    """The text of ``cell`` that differs from ``reference``'s, as the line quotes it."""
    texts = list(enumerate(cell.wording))
    if reference is not None:
        theirs = dict(enumerate(reference.wording))
        differing = [(n, t) for n, t in texts if t and _wording(t) != _wording(theirs.get(n, ""))]
        texts = differing or texts
    number, text = next((n, t) for n, t in texts if t)
    prefix = f"bad example {number + 1}: " if number else ""
    return prefix + _quote(_URL_TAIL.sub("", _message(text)), QUOTED)


def _presence_line(
    qualname: str,
    cells: Sequence[Cell],
    releases: Sequence[ReleaseRun],
    module: str,
    unreachable: bool,
) -> str:
    """The line of an entry without bad examples: when the module had it.

    An entry that cannot be raised today says so if a release raised it all the same
    (from any entry's example).
    """
    shown = [c for c in cells if c.state.known]
    present = [c.release for c in shown if c.state is not CellState.NOT_PRESENT]
    if not shown:
        return ""
    if not present:
        parts = [f"Not in {module} in any release shown"]
    elif present == [c.release for c in shown][len(shown) - len(present) :]:
        since = present[0]
        parts = [
            f"In {module} in every release shown"
            if since == shown[0].release
            else f"In {module} since {since}"
        ]
    else:
        parts = [f"In {module} in {', '.join(present)}"]
    found = _raised_by_others(qualname, releases) if unreachable else []
    if found:
        versions = [release for release, _, _ in found]
        entries = sorted({entry for _, entry, _ in found})
        text = _quote(_message(found[-1][2]), QUOTED)
        span = versions[0] if len(versions) == 1 else f"{versions[0]}-{versions[-1]}"
        parts.append(
            f"unreachable today, but {span} raised it (the example of "
            f"{', '.join(entries)}): «{text}»"
        )
    return "; ".join(parts)


def _raised_by_others(qualname: str, releases: Sequence[ReleaseRun]) -> list[tuple[str, str, str]]:
    """``(release, entry, text)`` of every example of any entry that raised ``qualname``."""
    found = []
    for record in releases:
        hit = next(
            (
                (record.release.flax, name, run.exc_text)
                for name, row in sorted(record.entries.items())
                for run in row.examples
                if run.exc_type == qualname
            ),
            None,
        )
        if hit is not None:
            found.append(hit)
    return found


def _retired(history: History, gone: Retired, now: str) -> RetiredError:
    """A retired class's cells: in the module or not, and raised by which example."""
    name = gone.name
    qualname = f"{history.module}.{name}"
    newest = history.releases[-1]
    raised: dict[str, tuple[str, str, str]] = {}
    replaced: set[str] = set()
    cells = []
    for record in history.releases:
        release = record.release.flax
        hits = [
            (entry, index, run)
            for entry, row in sorted(record.entries.items())
            for index, run in enumerate(row.examples)
            if run.exc_type == qualname
        ]
        for entry, index, run in hits:
            raised.pop(_wording(run.exc_text), None)
            raised[_wording(run.exc_text)] = (release, entry, run.exc_text)
            replaced.update(_raised_now(newest, entry, index, run.code, history.module))
        present = name in record.classes
        notes = tuple(
            f"the example of {entry}: «{_quote(run.exc_text, TOOLTIP)}»{_rewritten_note(run)}"
            for entry, _, run in hits
        )
        if hits:
            state = CellState.SAME
        elif present:
            state = CellState.PRESENT
        else:
            state = CellState.NOT_PRESENT
        wording = (hits[0][2].exc_text,) if hits else ()
        made = _union(run.rewritten for _, _, run in hits)
        cells.append(Cell(release, state, wording, notes, release == now, made))
    ordered = tuple(sorted(raised.values(), key=lambda hit: version_key(hit[0])))
    return RetiredError(
        name,
        gone.first,
        gone.last,
        gone.gone_since,
        tuple(_with_reference(cells)),
        ordered,
        tuple(sorted(replaced - {name})),
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


def _what_it_did(run: ExampleRun) -> str:
    if run.outcome is Outcome.RAISED:
        did = f"«{_quote(_message(run.exc_text), TOOLTIP)}»"
    elif run.outcome is Outcome.RAISED_OTHER:
        did = f"raised {_quote(run.exc_text, TOOLTIP)}"
    elif run.outcome is Outcome.NO_RAISE:
        did = "raised nothing"
    else:
        did = f"could not run: {_quote(run.reason, TOOLTIP)}"
    return did + _rewritten_note(run)


def _rewritten_note(run: ExampleRun) -> str:
    """`` (run as rewritten for this release: a → b)``, or "" where it ran as written."""
    return f" ({_run_as(run.rewritten)})" if run.rewritten else ""


def _run_as(made: Sequence[Substitution], where: str = "this release") -> str:
    return f"run as rewritten for {where}: " + "; ".join(map(str, made))


def _union(groups: Iterable[Sequence[Substitution]]) -> tuple[Substitution, ...]:
    """The substitutions of every group, each once, in the order first made."""
    return tuple(dict.fromkeys(s for group in groups for s in group))


def _rewritten_line(cells: Sequence[Cell]) -> str:
    """The releases shown whose examples ran rewritten, by the substitutions made."""
    every = [c.release for c in cells]
    groups: dict[tuple[Substitution, ...], list[str]] = {}
    for cell in cells:
        if cell.rewritten and cell.state.known:
            groups.setdefault(cell.rewritten, []).append(cell.release)
    return "; ".join(
        f"Run as rewritten for flax {_releases(releases, every)}: {'; '.join(map(str, made))}"
        for made, releases in groups.items()
    )


def _message(text: str) -> str:
    """An exception's text without its leading ``module.Class:``."""
    head, colon, rest = text.partition(": ")
    return rest if colon and " " not in head.strip() else text


def _quote(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _releases(chosen: Sequence[str], every: Sequence[str]) -> str:
    """``chosen`` in short: a range where they are consecutive among ``every``."""
    if not chosen:
        return ""
    if len(chosen) == 1:
        return chosen[0]
    positions = [every.index(r) for r in chosen]
    if positions == list(range(positions[0], positions[0] + len(positions))):
        return f"{chosen[0]}-{chosen[-1]}"
    return ", ".join(chosen)
