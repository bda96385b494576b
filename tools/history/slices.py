"""The history recorded in slices, on machines of their own, then merged into one file.

``nox -s history -- --slice K/N`` runs the K-th of N parts of releases.toml and
writes a :class:`HistorySlice` instead of flax.json; ``-- --merge DIR`` reads
every slice of one run and :func:`merge_slices` makes the history of them, or says
what is wrong, naming the slice file: a release in two slices or in none, a slice
recorded on another catalogue (its :func:`catalogue_digest`), a run of other
versions than releases.toml pins. Pure: records in, records out.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from typing import TYPE_CHECKING, Any

from flax_errors_ext.model.history.releases import SCHEMA, History, ReleaseRun, version_key
from tools.history.plan import Pin

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from tools.history.plan import PlannedRelease
    from tools.history.rewrites import Rule

KIND = "flax-errors history slice"
"""What a slice file says it is, so that no other JSON is merged by mistake."""


class SliceError(ValueError):
    """Slices that cannot be merged; the message lists each problem with its file."""


@dataclasses.dataclass(frozen=True)
class SlicePart:
    """``K/N``: the K-th of N parts of the releases, by round robin, oldest first."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    @classmethod
    def parse(cls, text: str) -> SlicePart:
        """Read ``K/N``.

        Raises:
            ValueError: unless ``1 <= K <= N``.
        """
        match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
        if not match or not 1 <= int(match[1]) <= int(match[2]):
            raise ValueError(f"slice {text!r}: expected K/N with 1 <= K <= N, as 2/5")
        return cls(int(match[1]), int(match[2]))

    def choose(self, releases: Sequence[PlannedRelease]) -> tuple[PlannedRelease, ...]:
        """The releases of this part: every N-th, from the K-th oldest.

        Round robin spreads the newer releases, whose examples get furthest and so
        take longest, over the parts; the parts of one N cover every release once,
        whatever the order of ``releases``.
        """
        ordered = sorted(releases, key=lambda r: version_key(r.flax))
        return tuple(r for i, r in enumerate(ordered) if i % self.count == self.index - 1)


def catalogue_digest(codes: Mapping[str, Sequence[str]], rules: Sequence[Rule]) -> str:
    """What a slice ran: the entries' bad examples' code hashes and the rewrite rules."""
    data = {
        "codes": {name: list(codes[name]) for name in sorted(codes)},
        "rules": [[r.old, r.new, r.flax_from, r.flax_below] for r in rules],
    }
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


@dataclasses.dataclass(frozen=True)
class HistorySlice:
    """The records of the releases one slice was given, and what it ran them against."""

    part: str
    """``K/N``, or the Flax versions named on the command line."""
    catalogue: str
    """:func:`catalogue_digest` of the checkout it ran."""
    releases: tuple[str, ...]
    """The Flax versions it was given, whether or not they had anything left to run."""
    runs: tuple[ReleaseRun, ...]
    module: str = "flax.errors"

    def to_json(self) -> dict[str, Any]:
        """The slice file's data, in one canonical order."""
        return {
            "kind": KIND,
            "schema": SCHEMA,
            "part": self.part,
            "module": self.module,
            "catalogue": self.catalogue,
            "releases": sorted(self.releases, key=version_key),
            "runs": [r.to_json() for r in sorted(self.runs, key=_flax_key)],
        }

    @classmethod
    def from_json(cls, data: Any) -> HistorySlice:
        """Read a slice file's data.

        Raises:
            ValueError: if it is not a slice file of this layout.
        """
        if not isinstance(data, dict) or data.get("kind") != KIND:
            raise ValueError(f'not a history slice (no "kind": {KIND!r})')
        if data.get("schema") != SCHEMA:
            raise ValueError(f"history schema {data.get('schema')!r}, expected {SCHEMA}")
        return cls(
            str(data["part"]),
            str(data["catalogue"]),
            tuple(str(v) for v in data["releases"]),
            tuple(ReleaseRun.from_json(r) for r in data["runs"]),
            str(data.get("module", "flax.errors")),
        )


def slice_of(history: History, part: str, catalogue: str, releases: Sequence[str]) -> HistorySlice:
    """The slice holding ``history``'s records of the Flax versions ``releases``."""
    runs = tuple(r for r in history.releases if r.release.flax in releases)
    return HistorySlice(part, catalogue, tuple(releases), runs, history.module)


def merge_slices(
    slices: Mapping[str, HistorySlice], planned: Sequence[PlannedRelease], catalogue: str
) -> History:
    """The history of every slice of one run, each checked against releases.toml.

    Args:
        slices: By the file each was read from (what the messages name).
        planned: The releases of releases.toml.
        catalogue: :func:`catalogue_digest` of this checkout.

    Raises:
        SliceError: listing every problem, each with its file: a slice of another
            catalogue or module, a release in two slices or in none, one that is
            not in releases.toml, ran other versions, or has no run in its slice.
    """
    pins = {r.flax: r.pin for r in planned}
    problems: list[str] = []
    owner: dict[str, str] = {}
    runs: list[ReleaseRun] = []
    modules = {s.module for s in slices.values()}
    if len(modules) > 1:
        problems.append(f"the slices record different modules: {sorted(modules)}")
    counts = {s.part.partition("/")[2] for s in slices.values() if "/" in s.part}
    if len(counts) > 1:
        parts = ", ".join(f"{source} is {slices[source].part}" for source in sorted(slices))
        problems.append(f"the slices are parts of different runs: {parts}")
    for source in sorted(slices):
        piece = slices[source]
        if piece.catalogue != catalogue:
            problems.append(
                f"{source}: slice {piece.part} ran catalogue {piece.catalogue[:12]}, this "
                f"checkout's is {catalogue[:12]} (examples or rewrites.toml changed since)"
            )
        recorded = {r.release.flax: r for r in piece.runs}
        for flax in sorted(set(piece.releases) | set(recorded), key=version_key):
            if flax in owner:
                problems.append(f"flax {flax} is in two slices: {owner[flax]} and {source}")
                continue
            owner[flax] = source
            run = recorded.get(flax)
            if flax not in pins:
                problems.append(f"{source}: flax {flax} is not a release of releases.toml")
            elif run is None:
                problems.append(
                    f"{source}: flax {flax} was given to slice {piece.part} but has no run"
                )
            elif Pin.of(run.release) != pins[flax]:
                ran, pinned = Pin.of(run.release), pins[flax]
                problems.append(
                    f"{source}: flax {flax} ran with jax {ran.jax}, jaxlib {ran.jaxlib}; "
                    f"releases.toml pins {pinned.jax}, {pinned.jaxlib}"
                )
            else:
                runs.append(run)
    for flax in sorted(set(pins) - set(owner), key=version_key):
        problems.append(f"flax {flax} is in no slice{_expected_part(flax, slices, planned)}")
    if problems:
        raise SliceError("\n".join(problems))
    module = next(iter(modules), "flax.errors")
    return History(tuple(sorted(runs, key=_flax_key)), module)


def unfinished(todo: Mapping[str, Sequence[str]], owners: Mapping[str, str]) -> list[str]:
    """A message for each release the merged slices left entries of to run, with its file.

    ``todo`` is :func:`~tools.history.plan.pending` of the merged history; ``owners``, the
    file of each Flax version's slice.
    """
    return [
        f"{owners.get(flax, '?')}: flax {flax} has no run of the current examples of "
        f"{', '.join(names)} (the slice's runner stopped before them)"
        for flax, names in sorted(todo.items(), key=lambda item: version_key(item[0]))
    ]


def owners(slices: Mapping[str, HistorySlice]) -> dict[str, str]:
    """The file of the slice of each Flax version."""
    return {flax: source for source, piece in slices.items() for flax in piece.releases}


def _expected_part(
    flax: str, slices: Mapping[str, HistorySlice], planned: Sequence[PlannedRelease]
) -> str:
    """Which missing ``K/N`` slice should have held ``flax``, where the slices are of one N."""
    try:
        parts = {SlicePart.parse(s.part) for s in slices.values()}
    except ValueError:
        return ""
    counts = {p.count for p in parts}
    if len(counts) != 1:
        return ""
    (count,) = counts
    for index in range(1, count + 1):
        if any(r.flax == flax for r in SlicePart(index, count).choose(planned)):
            return f": slice {index}/{count}, which holds it, is missing"
    return ""


def _flax_key(run: ReleaseRun) -> tuple[int, ...]:
    return version_key(run.release.flax)
