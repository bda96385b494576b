"""What ``nox -s history`` runs: releases.toml, the pairs left to run, each runner's options."""

from __future__ import annotations

import dataclasses
import json
from typing import TYPE_CHECKING

import pytest

from flax_errors_ext.ext.history.model.cells import entry_codes
from flax_errors_ext.model.catalogue.parse import parse_docstring
from flax_errors_ext.model.history.releases import (
    EntryRun,
    ExampleRun,
    History,
    Outcome,
    Release,
    ReleaseRun,
)
from flax_errors_ext.model.runs.fingerprint import Device
from tests.model.history.release_runs import absent, example, present, release
from tools.history.plan import (
    DEFAULT_PYTHON,
    Pin,
    PlannedRelease,
    history_text,
    merged,
    pending,
    plan_history,
    read_releases,
    seconds_left,
)
from tools.history.rewrites import parse_rules

if TYPE_CHECKING:
    from flax_errors_ext.model.catalogue.records import ErrorEntry

RELEASES = """\
[[release]]
flax = "0.6.11"
jax = "0.4.13"
jaxlib = "0.4.13"
as_of = "2023-06-24"

[[release]]
flax = "0.8.5"
jax = "0.4.30"
jaxlib = "0.4.30"
as_of = "2024-06-27"

[[release]]
flax = "0.12.8"
jax = "0.10.2"
jaxlib = "0.10.2"
as_of = "2026-01-01"
python = "3.13"
"""

RULES = """\
[[rule]]
old = "jax.random.key("
new = "jax.random.PRNGKey("
flax_below = "0.7"
why = "old flax rejects new-style keys"
"""


def entry(name: str, code: str) -> ErrorEntry:
    text = f"Summary.\n\nBad example:\n\n  >>> {code}\n  Traceback (most recent call last):\n"
    text += f"    ...\n  flax.errors.{name}: text\n"
    return parse_docstring(text, f"flax.errors.{name}", f"{name}.txt", 1)


ENTRIES = [entry("A", "use(jax.random.key(0))"), entry("B", "other(1)"), entry("C", "third(2)")]


def recorded(flax: str, jax: str, pace: float, *names: str) -> ReleaseRun:
    codes = entry_codes(ENTRIES)
    entries = {
        name: EntryRun(True, (ExampleRun(codes[name][0], Outcome.RAISED, "E", "E: t"),))
        for name in names
    }
    release = Release(flax, jax, jax, "3.11.7", Device("cpu", "cpu", 1))
    return ReleaseRun(release, ("A", "B", "C"), entries, pace)


# --- releases.toml ---


def test_releases_are_read_in_order_and_chosen_by_flax_version() -> None:
    releases = read_releases(RELEASES)
    assert [r.flax for r in releases] == ["0.6.11", "0.8.5", "0.12.8"]
    assert releases[1].pin == Pin("0.8.5", "0.4.30", "0.4.30")
    assert [r.flax for r in read_releases(RELEASES, ["0.12.8", "0.6.11"])] == ["0.6.11", "0.12.8"]
    assert read_releases(RELEASES, ["9.9"]) == ()


def test_a_release_runs_on_its_python_or_the_oldest() -> None:
    oldest, _, newest = read_releases(RELEASES)
    assert (oldest.interpreter, newest.interpreter) == (DEFAULT_PYTHON, "3.13")


def test_the_table_round_trips_as_the_venv_marker() -> None:
    table = {"flax": "0.4.2", "jax": "0.4.13", "jaxlib": "0.4.13", "as_of": "2023-06-24"}
    assert PlannedRelease.from_json(table).to_json() == table
    with_python = {**table, "python": "3.13"}
    assert PlannedRelease.from_json(with_python).to_json() == with_python


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"flax": "1", "jax": "1", "jaxlib": "1", "as-of": "x"}, "unknown keys \\['as-of'\\]"),
        ({"flax": "1", "jax": "1", "as_of": "x"}, "no 'jaxlib'"),
    ],
)
def test_a_table_releases_toml_does_not_know_is_refused(
    table: dict[str, str], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        PlannedRelease.from_json(table)


# --- merging a release's run, what is left to run ---


def test_merging_adds_releases_in_version_order() -> None:
    data = History()
    for flax in ("0.10.7", "0.9.0", "0.12.8"):
        data = merged(data, release(flax))
    assert [r.release.flax for r in data.releases] == ["0.9.0", "0.10.7", "0.12.8"]


def test_merging_a_partial_run_keeps_the_other_entries() -> None:
    first = merged(
        History(), release("0.8.5", A=present(example("flax.errors.A: old")), B=absent())
    )
    again = release("0.8.5", A=present(example("flax.errors.A: new", code="c2")))
    (found,) = merged(first, again).releases
    assert set(found.entries) == {"A", "B"}
    assert found.entries["A"].examples[0].exc_text == "flax.errors.A: new"


def test_merging_another_jax_replaces_the_release() -> None:
    first = merged(History(), release("0.8.5", A=present(), B=absent()))
    (found,) = merged(first, release("0.8.5", jax="0.4.31", A=present())).releases
    assert set(found.entries) == {"A"}
    assert found.release.jax == "0.4.31"


def test_pending_runs_only_what_changed() -> None:
    codes = {"A": ("c1",), "B": ("c1", "c2"), "C": ()}
    plan = [Pin("0.8.5", "0.4.30", "0.4.30"), Pin("0.12.8", "0.10.2", "0.10.2")]
    everything = ("A", "B", "C")
    assert pending(History(), plan, codes) == {"0.8.5": everything, "0.12.8": everything}
    done = release(
        "0.8.5",
        A=present(example(code="c1")),
        B=present(example(code="c1"), example(code="c2")),
        C=absent(),
    )
    data = merged(History(), done)
    assert pending(data, plan, codes) == {"0.12.8": everything}
    assert pending(data, plan[:1], codes) == {}
    assert pending(data, plan[:1], {**codes, "B": ("c1", "c3")}) == {"0.8.5": ("B",)}
    # An entry that keeps one of the examples that ran (a docstring keeps one) has its record.
    assert pending(data, plan[:1], {**codes, "B": ("c2",)}) == {}
    assert pending(data, plan[:1], {**codes, "D": ("c4",)}) == {"0.8.5": ("D",)}
    assert pending(data, [Pin("0.8.5", "0.4.31", "0.4.31")], codes) == {"0.8.5": everything}


def test_time_left_goes_by_recorded_paces() -> None:
    assert seconds_left(History(), {"0.8.5": ("A",)}) is None
    data = History()
    for flax, pace in (("0.8.5", 2.0), ("0.12.8", 1.0)):
        data = merged(data, dataclasses.replace(release(flax), pace=pace))
    todo = {"0.8.5": ("A", "B"), "0.12.8": ("A",), "0.9.0": ("A", "B", "C")}
    assert seconds_left(data, todo) == 2 * 2.0 + 1 * 1.0 + 3 * 2.0  # unrecorded: the slowest
    assert History.from_json(json.loads(json.dumps(data.to_json()))) == data


def test_a_rerun_sets_the_pace_unless_it_ran_nothing() -> None:
    first = merged(History(), dataclasses.replace(release("0.8.5", A=present()), pace=2.0))
    empty = merged(first, dataclasses.replace(release("0.8.5"), pace=0.0))
    assert empty.releases[0].pace == 2.0
    rerun = merged(first, dataclasses.replace(release("0.8.5", A=present()), pace=1.5))
    assert rerun.releases[0].pace == 1.5


def test_nothing_recorded_runs_everything_newest_first() -> None:
    plan = plan_history(History(), read_releases(RELEASES), ENTRIES, ())
    assert [r.flax for r in plan.chosen] == ["0.12.8", "0.8.5", "0.6.11"]
    assert plan.summary() == "3 releases x 3 entries: 9 to run, on 3 releases"
    # No pace recorded: the later releases are told by this one's own pace.
    assert plan.runner_arguments(0, History()) == [
        "--label=release 1 of 3 (flax 0.12.8, jax 0.10.2)",
        "--entries-after=6",
    ]
    assert plan.runner_arguments(2, History())[1] == "--entries-after=0"


def test_only_the_missing_entries_run_at_the_recorded_pace() -> None:
    history = History((recorded("0.8.5", "0.4.30", 2.0, "A", "B"),))
    plan = plan_history(history, read_releases(RELEASES)[:2], ENTRIES, ())
    assert plan.todo == {"0.6.11": ("A", "B", "C"), "0.8.5": ("C",)}
    assert plan.runner_arguments(0, history) == [
        "--label=release 1 of 2 (flax 0.8.5, jax 0.4.30)",
        "--later-seconds=6",  # 0.6.11's three entries, at the slowest pace recorded
        "--only",
        "C",
    ]


def test_a_changed_rewrite_runs_the_entry_again() -> None:
    history = History((recorded("0.6.11", "0.4.13", 1.0, "A", "B", "C"),))
    releases = read_releases(RELEASES)[:1]
    assert plan_history(history, releases, ENTRIES, ()).todo == {}
    # A's example now runs with jax.random.PRNGKey on flax < 0.7: its record is stale.
    assert plan_history(history, releases, ENTRIES, parse_rules(RULES)).todo == {"0.6.11": ("A",)}


def test_the_written_text_is_the_document_indented() -> None:
    history = History((recorded("0.8.5", "0.4.30", 2.0, "A"),))
    text = history_text(history, entry_codes(ENTRIES))
    assert text.endswith("}\n")
    assert text.startswith('{\n "schema": 1,')
    document = json.loads(text)
    assert History.from_json(document) == history
    assert set(document) >= {"summaries", "retired"}
