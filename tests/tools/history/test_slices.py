"""The history in slices: K/N parts cover every release once; merging checks and names files."""

from __future__ import annotations

import itertools
import random

import pytest

from flax_errors_ext.model.history.releases import (
    EntryRun,
    ExampleRun,
    History,
    Outcome,
    Release,
    ReleaseRun,
)
from flax_errors_ext.model.runs.fingerprint import Device
from tools.history.plan import PlannedRelease
from tools.history.rewrites import Rule
from tools.history.slices import (
    HistorySlice,
    SliceError,
    SlicePart,
    catalogue_digest,
    merge_slices,
    owners,
    slice_of,
    unfinished,
)

FLAX = ("0.4.2", "0.5.3", "0.6.11", "0.7.5", "0.8.5", "0.9.0", "0.10.7", "0.11.2", "0.12.8")
PLANNED = tuple(PlannedRelease(f, f"1.{n}", f"1.{n}", "2024-01-01") for n, f in enumerate(FLAX))
DIGEST = catalogue_digest({"A": ("a1",)}, ())


def run_of(planned: PlannedRelease, jax: str = "") -> ReleaseRun:
    release = Release(
        planned.flax, jax or planned.jax, planned.jaxlib, "3.11.7", Device("cpu", "cpu", 1)
    )
    entries = {"A": EntryRun(True, (ExampleRun("a1", Outcome.RAISED, "E", "E: t"),))}
    return ReleaseRun(release, ("A",), entries, 1.0)


def sliced(count: int, catalogue: str = DIGEST) -> dict[str, HistorySlice]:
    """The slices of a run in ``count`` parts, by file."""
    history = History(tuple(run_of(p) for p in PLANNED))
    slices = {}
    for index in range(1, count + 1):
        part = SlicePart(index, count)
        versions = [r.flax for r in part.choose(PLANNED)]
        slices[f"{index}-of-{count}.json"] = slice_of(history, str(part), catalogue, versions)
    return slices


@pytest.mark.parametrize("count", [1, 2, 3, 5, 9, 12])
def test_the_parts_of_one_n_cover_every_release_exactly_once(count: int) -> None:
    parts = [SlicePart(k, count).choose(PLANNED) for k in range(1, count + 1)]
    chosen = [r.flax for part in parts for r in part]
    assert sorted(chosen) == sorted(FLAX)
    assert len(chosen) == len(set(chosen))
    # As even as they can be: no part has two more than another.
    sizes = [len(part) for part in parts]
    assert max(sizes) - min(sizes) <= 1


def test_a_part_is_the_same_whatever_the_order_of_releases_toml() -> None:
    shuffled = list(PLANNED)
    random.Random(7).shuffle(shuffled)
    for k in range(1, 4):
        assert SlicePart(k, 3).choose(shuffled) == SlicePart(k, 3).choose(PLANNED)
    # Round robin from the oldest: the newest releases fall in different parts.
    assert [r.flax for r in SlicePart(1, 3).choose(PLANNED)] == ["0.4.2", "0.7.5", "0.10.7"]


@pytest.mark.parametrize("text", ["0/3", "4/3", "3", "a/b", "2/0", ""])
def test_a_part_outside_one_to_n_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="expected K/N with 1 <= K <= N"):
        SlicePart.parse(text)
    assert SlicePart.parse(" 2/5 ") == SlicePart(2, 5)
    assert str(SlicePart(2, 5)) == "2/5"


def test_a_slice_reads_back_as_it_was_written() -> None:
    piece = sliced(3)["2-of-3.json"]
    assert HistorySlice.from_json(piece.to_json()) == piece
    with pytest.raises(ValueError, match="not a history slice"):
        HistorySlice.from_json(History().to_json())


def test_the_digest_changes_with_an_example_or_a_rule() -> None:
    rule = Rule("jax.random.key(", "jax.random.PRNGKey(", "why", "", "0.7")
    assert catalogue_digest({"A": ("a2",)}, ()) != DIGEST
    assert catalogue_digest({"A": ("a1",)}, (rule,)) != DIGEST
    assert catalogue_digest({"A": ("a1",)}, ()) == DIGEST


def test_merging_is_the_same_in_any_order() -> None:
    slices = sliced(4)
    whole = merge_slices(slices, PLANNED, DIGEST)
    assert [r.release.flax for r in whole.releases] == list(FLAX)
    for order in itertools.permutations(slices):
        assert merge_slices({name: slices[name] for name in order}, PLANNED, DIGEST) == whole
    assert merge_slices(sliced(1), PLANNED, DIGEST) == whole


def test_a_missing_slice_is_named() -> None:
    slices = sliced(4)
    del slices["3-of-4.json"]
    with pytest.raises(SliceError) as error:
        merge_slices(slices, PLANNED, DIGEST)
    missing = [r.flax for r in SlicePart(3, 4).choose(PLANNED)]
    assert str(error.value).splitlines() == [
        f"flax {flax} is in no slice: slice 3/4, which holds it, is missing" for flax in missing
    ]


def test_a_release_in_two_slices_names_both_files() -> None:
    slices = sliced(2)
    slices["again.json"] = slices["1-of-2.json"]
    with pytest.raises(SliceError) as error:
        merge_slices(slices, PLANNED, DIGEST)
    lines = str(error.value).splitlines()
    assert "flax 0.4.2 is in two slices: 1-of-2.json and again.json" in lines
    assert len([line for line in lines if "two slices" in line]) == len(
        SlicePart(1, 2).choose(PLANNED)
    )


def test_a_slice_of_another_catalogue_or_other_versions_is_named() -> None:
    slices = sliced(2)
    other = catalogue_digest({"A": ("changed",)}, ())
    slices["2-of-2.json"] = sliced(2, other)["2-of-2.json"]
    first = slices["1-of-2.json"]
    runs = tuple(
        run_of(PLANNED[0], jax="9.9") if r.release.flax == "0.4.2" else r for r in first.runs
    )
    slices["1-of-2.json"] = HistorySlice(first.part, first.catalogue, first.releases, runs)
    with pytest.raises(SliceError) as error:
        merge_slices(slices, PLANNED, DIGEST)
    message = str(error.value)
    assert (
        f"2-of-2.json: slice 2/2 ran catalogue {other[:12]}, this checkout's is {DIGEST[:12]}"
        in message
    )
    assert (
        "1-of-2.json: flax 0.4.2 ran with jax 9.9, jaxlib 1.0; releases.toml pins 1.0, 1.0"
        in message
    )


def test_a_release_given_without_a_run_or_not_planned_is_named() -> None:
    piece = slice_of(History(), "names", DIGEST, ["0.4.2", "9.9"])
    with pytest.raises(SliceError) as error:
        merge_slices({"names.json": piece}, PLANNED, DIGEST)
    lines = str(error.value).splitlines()
    assert "names.json: flax 0.4.2 was given to slice names but has no run" in lines
    assert "names.json: flax 9.9 is not a release of releases.toml" in lines
    # Not parts of one N: no slice is said to be missing, only the releases.
    assert "flax 0.5.3 is in no slice" in lines


def test_slices_of_different_runs_are_refused() -> None:
    slices = {**sliced(2), **sliced(3)}
    with pytest.raises(SliceError, match=r"parts of different runs: 1-of-2.json is 1/2, "):
        merge_slices(slices, PLANNED, DIGEST)


def test_entries_left_to_run_are_named_with_their_slice() -> None:
    slices = sliced(2)
    messages = unfinished({"0.5.3": ("A", "B")}, owners(slices))
    assert messages == [
        "2-of-2.json: flax 0.5.3 has no run of the current examples of A, B "
        "(the slice's runner stopped before them)"
    ]
