"""Runs on other devices beside this build's: same, different, not compared."""

from __future__ import annotations

import json
from typing import Any

from flax_errors_ext.ext.other_runs.model.comparison import (
    Agreement,
    compare,
    merge_document,
    normalised,
    parse_run,
    verified_text,
)
from flax_errors_ext.ext.other_runs.model.groups import differing
from flax_errors_ext.model.catalogue.records import Verdict
from flax_errors_ext.model.runs.entry_record import EntryRecord

CPU = {"platform": "cpu", "device_kind": "cpu", "count": 1}
GPU = {"platform": "gpu", "device_kind": "NVIDIA H200", "count": 1}
VERSIONS = {"flax": "0.12.8", "jax": "0.10.2", "jaxlib": "0.10.2"}
RAISED = "m.ShapeError: bad shape (3, 2) for <Dense at 0x7f3a2b1c0d90>"


def _example(kind: str, actual: str, status: str = "passed", expected: str = "") -> dict[str, Any]:
    return {
        "kind": kind,
        "source": "m.py:10",
        "status": status,
        "expected": expected or actual,
        "actual": actual,
        "seconds": 0.1,
        "detail": "",
        "diff": "",
    }


def _entry(
    name: str = "ShapeError",
    *examples: dict[str, Any],
    status: str = "passed",
    device: dict[str, Any] = CPU,
) -> dict[str, Any]:
    return {
        "name": name,
        "qualname": f"m.{name}",
        "url": f"api_reference/m.html#m.{name}",
        "source": "m.py:1",
        "summary": "A shape is wrong.",
        "status": status,
        "executed": True,
        "device": device,
        "versions": VERSIONS,
        "problems": [],
        "examples": list(examples) or [_example("bad", RAISED + "\n"), _example("good", "(3,)\n")],
    }


def _document(*entries: dict[str, Any], device: dict[str, Any] = GPU, **versions: str) -> str:
    return json.dumps(
        {
            "schema": 1,
            "device": device,
            "versions": {**VERSIONS, **versions},
            "entries": list(entries),
        }
    )


def _here(*examples: dict[str, Any], **extra: Any) -> EntryRecord:
    return EntryRecord.from_json(_entry("ShapeError", *examples, **extra))


def test_the_same_text_there_is_verified_on_both_devices() -> None:
    run = parse_run(_document(_entry(device=GPU)), "gpu.json")
    (outcome,) = compare(_here(), [run], VERSIONS)
    assert outcome.agreement is Agreement.SAME
    assert verified_text(_here(), [outcome]) == (
        "Verified on CPU and on GPU (NVIDIA H200) · flax 0.12.8 · jax 0.10.2 · jaxlib 0.10.2"
    )


def test_several_devices_that_agree_are_listed_and_counted() -> None:
    gpu = parse_run(_document(_entry()), "gpu.json")
    cpus = parse_run(_document(_entry(), device={**CPU, "count": 8}), "cpu-8.json")
    outcomes = compare(_here(), [cpus, gpu], VERSIONS)
    assert verified_text(_here(), outcomes).startswith(
        "Verified on CPU, on CPU \u00d78 and on GPU (NVIDIA H200) · flax 0.12.8"
    )


def test_an_address_or_a_temporary_name_is_no_difference() -> None:
    there = RAISED.replace("0x7f3a2b1c0d90", "0x55d1e2f3a4b0") + " in /tmp/tmpab12cd34/x\n"
    here = RAISED + " in /tmp/tmpzz98yy76/x\n"
    run = parse_run(_document(_entry("ShapeError", _example("bad", there))), "gpu.json")
    (outcome,) = compare(_here(_example("bad", here)), [run], VERSIONS)
    assert outcome.agreement is Agreement.SAME


def test_the_folder_that_holds_a_temporary_name_is_no_difference() -> None:
    assert normalised('at "/tmp/tmpab12cd34/x.json".') == normalised(
        'at ".nox/devices/tmp/tmpzz98yy76/x.json".'
    )
    assert normalised("at /tmp/data/x.json") != normalised("at /srv/data/x.json")


def test_another_interpreters_install_folder_is_no_difference() -> None:
    assert normalised("at /opt/venv/lib/python3.12/site-packages/flax/core/scope.py:12") == (
        normalised("at /home/me/.venv/lib/python3.11/site-packages/flax/core/scope.py:12")
    )


def test_other_text_there_is_shown_with_both_texts() -> None:
    documented = "m.ShapeError: bad shape (3, 2) ...\n"
    other = "m.ShapeError: bad shape (3, 2) on device cuda:0\n"
    there = _example("bad", other, expected=documented)
    run = parse_run(_document(_entry("ShapeError", there)), "gpu.json")
    (outcome,) = compare(
        _here(_example("bad", RAISED + "\n", expected=documented)), [run], VERSIONS
    )
    assert outcome.agreement is Agreement.DIFFERS
    (difference,) = outcome.differences
    assert difference.example == "bad example 1"
    assert difference.text_here == RAISED + "\n"
    assert difference.text_there == other
    assert differing([outcome])[0].title() == (
        "Differs on GPU (NVIDIA H200): bad example 1: passed in both, with other text"
    )
    # Not verified there: the line names only this build's device.
    assert verified_text(_here(), [outcome]).startswith("Verified on CPU · ")


def test_a_failed_example_there_is_a_difference_that_names_the_verdicts() -> None:
    failed = _example("bad", "", status="no-raise", expected=RAISED + "\n")
    run = parse_run(_document(_entry("ShapeError", failed, status="failed")), "gpu.json")
    (outcome,) = compare(_here(_example("bad", RAISED + "\n")), [run], VERSIONS)
    assert outcome.agreement is Agreement.DIFFERS
    assert outcome.differences[0].there is Verdict.NO_RAISE
    assert str(outcome.differences[0]) == "bad example 1: no-raise there, passed here"


def test_a_run_of_other_versions_says_which() -> None:
    run = parse_run(_document(_entry(), flax="0.12.10", jax="0.11.2"), "gpu.json")
    (outcome,) = compare(_here(), [run], VERSIONS)
    assert outcome.where == "GPU (NVIDIA H200) with flax 0.12.10, jax 0.11.2"
    assert verified_text(_here(), [outcome]) == (
        "Verified on CPU · flax 0.12.8 · jax 0.10.2 · jaxlib 0.10.2"
        " · and on GPU (NVIDIA H200) with flax 0.12.10, jax 0.11.2"
    )


def test_another_stack_on_the_same_device_is_worded_by_its_versions() -> None:
    older = {**VERSIONS, "flax": "0.12.8", "jax": "0.10.2"}
    here = EntryRecord.from_json(
        {**_entry(), "versions": {"flax": "0.12.12", "jax": "0.12.0.1", "jaxlib": "0.12.0.1"}}
    )
    run = parse_run(_document(_entry(), device=CPU, **older), "python-3.11.json")
    (outcome,) = compare(here, [run], here.version_map)
    assert outcome.where == "flax 0.12.8, jax 0.10.2, jaxlib 0.10.2"
    assert outcome.agreement is Agreement.SAME
    assert outcome.phrase == "with flax 0.12.8, jax 0.10.2, jaxlib 0.10.2"
    assert verified_text(here, [outcome]) == (
        "Verified on CPU · flax 0.12.12 · jax 0.12.0.1 · jaxlib 0.12.0.1"
        " · and with flax 0.12.8, jax 0.10.2, jaxlib 0.10.2"
    )
    # Nothing in it reads as another device.
    assert "on CPU" not in verified_text(here, [outcome]).partition("·")[2]


def test_a_stack_where_the_error_is_reachable_differs_from_one_where_it_is_not() -> None:
    """Each side ran only its own versions' examples, and those agree; the entries do not."""
    here = _here(
        _example("bad", "", status="other-versions", expected=RAISED + "\n"),
        _example("unreachable", "gone\n"),
        _example("good", "(3,)\n"),
        status="unreachable",
    )
    there = _entry(
        "ShapeError",
        _example("bad", RAISED + "\n"),
        _example("unreachable", "", status="other-versions", expected="gone\n"),
        _example("good", "(3,)\n"),
    )
    run = parse_run(_document(there, device=CPU, flax="0.12.12"), "python-3.13.json")
    (outcome,) = compare(here, [run], VERSIONS)
    assert outcome.agreement is Agreement.DIFFERS
    assert differing([outcome])[0].title() == (
        "Differs with flax 0.12.12: the entry: passed there, unreachable here"
    )
    (difference,) = outcome.differences
    assert "bad example 1: passed" in difference.text_there
    assert "bad example 1: other-versions" in difference.text_here
    assert "and with" not in verified_text(here, [outcome])


def test_the_builds_own_stack_is_not_set_beside_itself() -> None:
    run = parse_run(_document(_entry(), device=CPU), "python-3.11.json")
    assert compare(_here(), [run], VERSIONS) == []


def test_entries_the_run_has_no_record_of() -> None:
    run = parse_run(_document(_entry("OtherError")), "gpu.json")
    (outcome,) = compare(_here(), [run], VERSIONS)
    assert outcome.agreement is Agreement.NOT_COMPARED
    assert outcome.note() == "Not compared on GPU (NVIDIA H200): it has no record of this entry."
    # A run of other modules says nothing of this one.
    other_module = json.loads(_document(_entry()))
    other_module["entries"][0]["qualname"] = "jax.errors.ShapeError"
    assert compare(_here(), [parse_run(json.dumps(other_module), "gpu.json")], VERSIONS) == []


def test_an_example_documented_otherwise_there_is_not_compared() -> None:
    older = _example("bad", "m.ShapeError: old\n")
    run = parse_run(_document(_entry("ShapeError", older)), "gpu.json")
    (outcome,) = compare(_here(_example("bad", RAISED + "\n")), [run], VERSIONS)
    assert outcome.agreement is Agreement.NOT_COMPARED


def test_the_document_gets_each_entrys_outcome_per_run() -> None:
    here = json.loads(_document(_entry(), _entry("OtherError"), device=CPU))
    run = parse_run(_document(_entry()), "gpu.json")
    merged = merge_document(here, [run])
    assert merged["device_runs"] == [
        {"source": "gpu.json", "device": GPU, "versions": VERSIONS, "entries": 1}
    ]
    shape, other = merged["entries"]
    assert [d["agreement"] for d in shape["devices"]] == ["same"]
    assert [d["agreement"] for d in other["devices"]] == ["not-compared"]
    assert merge_document(here, []) is here
