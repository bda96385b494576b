"""Which past releases ``nox -s history`` runs, in what order, and what each run is told.

The planning half of recording the history, with no file or process in it:
reading ``releases.toml``, choosing the (release, entry) pairs that still need a
run (:func:`pending`), newest release first, the arguments each release's runner
gets, and merging a release's run into the history (:func:`merged`). The driver,
:mod:`~tools.history.recording`, makes the venvs, runs the
runner and writes the file this module renders.
"""

from __future__ import annotations

import dataclasses
import json
import tomllib
from typing import TYPE_CHECKING, Any

from flax_errors_ext.ext.history.model.cells import entry_codes
from flax_errors_ext.model.history.releases import version_key
from tools.history.rewrites import entry_rewrites, rules_for
from tools.history.summaries import document

if TYPE_CHECKING:
    from collections.abc import Collection, Mapping, Sequence

    from flax_errors_ext.model.catalogue.records import ErrorEntry
    from flax_errors_ext.model.history.releases import (
        History,
        Release,
        ReleaseRun,
        Substitution,
    )
    from tools.history.rewrites import Rule

PINNED = ("flax", "jax", "jaxlib")
"""The versions releases.toml pins, so exempt from the release's ``as_of`` date."""
DEFAULT_PYTHON = "3.11"
"""The interpreter of a release that names none: the project's oldest Python."""
_KEYS = {*PINNED, "as_of", "python"}


@dataclasses.dataclass(frozen=True)
class Pin:
    """A release's pinned versions: as releases.toml lists them, or as a record ran them."""

    flax: str
    jax: str
    jaxlib: str

    @classmethod
    def of(cls, release: Release) -> Pin:
        """The versions a recorded release ran, to compare with the planned ones."""
        return cls(release.flax, release.jax, release.jaxlib)


@dataclasses.dataclass(frozen=True)
class PlannedRelease:
    """A ``[[release]]`` of releases.toml: the versions to install, their date, the Python."""

    flax: str
    jax: str
    jaxlib: str
    as_of: str
    """Everything but the pinned versions resolves as uploaded before this day."""
    python: str | None = None
    """The interpreter it needs; None: :data:`DEFAULT_PYTHON`."""

    @property
    def pin(self) -> Pin:
        """The pinned versions, as the history compares them."""
        return Pin(self.flax, self.jax, self.jaxlib)

    @property
    def interpreter(self) -> str:
        """The Python its venv is made with."""
        return self.python or DEFAULT_PYTHON

    def to_json(self) -> dict[str, str]:
        """The table as releases.toml holds it (what a venv made for it is marked with)."""
        table = {"flax": self.flax, "jax": self.jax, "jaxlib": self.jaxlib, "as_of": self.as_of}
        return table if self.python is None else {**table, "python": self.python}

    @classmethod
    def from_json(cls, table: Mapping[str, Any]) -> PlannedRelease:
        """Read a ``[[release]]`` table.

        Raises:
            ValueError: if it lacks a key or has one releases.toml does not know.
        """
        unknown = sorted(set(table) - _KEYS)
        if unknown:
            raise ValueError(f"release {table.get('flax', '?')}: unknown keys {unknown}")
        try:
            fields = {name: str(table[name]) for name in (*PINNED, "as_of")}
        except KeyError as missing:
            raise ValueError(f"release {table.get('flax', '?')}: no {missing}") from None
        python = table.get("python")
        return cls(**fields, python=None if python is None else str(python))


def read_releases(text: str, only: Collection[str] = ()) -> tuple[PlannedRelease, ...]:
    """The releases of releases.toml's ``text``, oldest first; those of ``only``'s Flax versions.

    An empty ``only`` keeps them all.
    """
    releases = (PlannedRelease.from_json(table) for table in tomllib.loads(text)["release"])
    return tuple(r for r in releases if not only or r.flax in only)


@dataclasses.dataclass(frozen=True)
class HistoryPlan:
    """What a run of ``nox -s history`` still has to do."""

    releases: tuple[PlannedRelease, ...]
    """The releases considered, oldest first."""
    codes: Mapping[str, tuple[str, ...]]
    """Each entry's bad examples' code hashes, by class name."""
    todo: Mapping[str, tuple[str, ...]]
    """The entries each release runs, by Flax version; releases with none left out."""

    @property
    def chosen(self) -> tuple[PlannedRelease, ...]:
        """The releases to run, newest first.

        The releases readers care most about are recorded first, and the slowest
        (where every example gets far) set the pace the time left is told by.
        """
        return tuple(r for r in reversed(self.releases) if r.flax in self.todo)

    def summary(self) -> str:
        """One line: how much there is to run."""
        return (
            f"{len(self.releases)} releases x {len(self.codes)} entries: "
            f"{sum(map(len, self.todo.values()))} to run, on {len(self.todo)} releases"
        )

    def runner_arguments(self, index: int, history: History) -> list[str]:
        """The options of the runner of ``chosen[index]``, ``history`` being what is recorded now.

        Its progress label, its estimate of the time the later releases take (at
        their recorded pace, else at this release's own: the number of their
        entries), and ``--only`` where it runs fewer than every entry.
        """
        chosen = self.chosen
        release = chosen[index]
        later = {r.flax: self.todo[r.flax] for r in chosen[index + 1 :]}
        seconds = seconds_left(history, later)
        estimate = (
            f"--later-seconds={seconds:.0f}"
            if seconds is not None
            else f"--entries-after={sum(map(len, later.values()))}"
        )
        label = f"release {index + 1} of {len(chosen)} (flax {release.flax}, jax {release.jax})"
        names = self.todo[release.flax]
        only = ["--only", *names] if len(names) < len(self.codes) else []
        return [f"--label={label}", estimate, *only]


def plan_history(
    history: History,
    releases: Sequence[PlannedRelease],
    entries: Sequence[ErrorEntry],
    rules: Sequence[Rule],
) -> HistoryPlan:
    """What remains to run of ``releases`` x ``entries``, given what ``history`` records.

    An entry runs again where its code or the rewrites of ``rules`` it would run
    with on that release changed (:func:`pending`).
    """
    codes = entry_codes(entries)
    rewrites = {r.flax: entry_rewrites(entries, rules_for(rules, r.flax)) for r in releases}
    todo = pending(history, [r.pin for r in releases], codes, rewrites)
    return HistoryPlan(tuple(releases), codes, todo)


def history_text(history: History, codes: Mapping[str, tuple[str, ...]]) -> str:
    """flax.json's text: the data and its summaries, one canonical form."""
    return json.dumps(document(history, codes), indent=1, ensure_ascii=False) + "\n"


def recorded(history: History, flax: str) -> ReleaseRun | None:
    """The record of Flax ``flax``, if there is one."""
    return next((r for r in history.releases if r.release.flax == flax), None)


def merged(history: History, run: ReleaseRun) -> History:
    """The history with ``run`` recorded.

    A run of a release already recorded with the same jax and jaxlib adds to it
    (entries not in ``run`` are kept); with other versions it replaces it.
    """
    old = recorded(history, run.release.flax)
    if old is not None and Pin.of(old.release) == Pin.of(run.release):
        pace = run.pace if run.entries else old.pace
        run = dataclasses.replace(run, entries={**old.entries, **run.entries}, pace=pace)
    others = [r for r in history.releases if r.release.flax != run.release.flax]
    ordered = sorted([*others, run], key=lambda r: version_key(r.release.flax))
    return dataclasses.replace(history, releases=tuple(ordered))


def pending(
    history: History,
    plan: Sequence[Pin],
    codes: Mapping[str, tuple[str, ...]],
    rewrites: Mapping[str, Mapping[str, tuple[tuple[Substitution, ...], ...]]] | None = None,
) -> dict[str, tuple[str, ...]]:
    """The entries each planned release must run: ``{flax version: names}``.

    An entry runs where it has no record of each of ``codes`` (its bad examples'
    hashes now), or whose examples ran with other substitutions than ``rewrites``
    makes there now (by flax version, then by entry, one tuple per bad example;
    none where left out); every entry runs where the release is recorded with
    another jax or jaxlib. Releases with nothing to run are left out.
    """
    todo: dict[str, tuple[str, ...]] = {}
    for pin in plan:
        found = recorded(history, pin.flax)
        if found is None or Pin.of(found.release) != pin:
            names = tuple(sorted(codes))
        else:
            entries = found.entries
            made = (rewrites or {}).get(pin.flax, {})
            names = tuple(
                name
                for name in sorted(codes)
                if name not in entries
                or (runs := entries[name].runs_of(codes[name])) is None
                or tuple(run.rewritten for run in runs) != made.get(name, ((),) * len(codes[name]))
            )
        if names:
            todo[pin.flax] = names
    return todo


def seconds_left(history: History, todo: Mapping[str, Sequence[str]]) -> float | None:
    """About how long running ``todo`` (:func:`pending`) takes; None if no pace is known.

    A release goes at its recorded pace; one not recorded yet, at the slowest
    recorded.
    """
    paces = [r.pace for r in history.releases if r.pace]
    if not paces:
        return None
    total = 0.0
    for flax, names in todo.items():
        found = recorded(history, flax)
        total += len(names) * (found.pace if found and found.pace else max(paces))
    return total
