"""Device runs made apart: named by their device, checked together, conflicts named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flax_errors_ext.ext.other_runs.model.documents import DeviceRunError
from flax_errors_ext.ext.other_runs.model.run_files import check_runs, run_file_name
from flax_errors_ext.model.runs.fingerprint import Device

HISTORY = Path(__file__).resolve().parents[4] / "flax_errors_ext" / "history"


RECORDS = {
    r["qualname"].rpartition(".")[2]: r
    for r in json.loads((HISTORY / "cpu-8-devices.json").read_text("utf-8"))["entries"]
}
"""Real entry records, by class name, to make runs of chosen catalogues from."""


def document(platform: str, kind: str, count: int, *names: str) -> str:
    device = {"platform": platform, "device_kind": kind, "count": count}
    records = [RECORDS[name] for name in names or ("LazyInitError",)]
    return json.dumps({"schema": 1, "device": device, "versions": {}, "entries": records})


@pytest.mark.parametrize(
    ("device", "name"),
    [
        (Device("gpu", "NVIDIA H200", 1), "nvidia-h200.json"),
        (Device("cpu", "cpu", 8), "cpu-8-devices.json"),
        (Device("gpu", "NVIDIA A100-SXM4-80GB", 4), "nvidia-a100-sxm4-80gb-4-devices.json"),
        (Device("tpu", "TPU v5 lite", 1), "tpu-v5-lite.json"),
        (Device("cpu", "", 1), "cpu.json"),
    ],
)
def test_a_run_is_named_by_its_device(device: Device, name: str) -> None:
    assert run_file_name(device) == name


@pytest.mark.parametrize("name", ["cpu-8-devices.json", "tpu-v5-lite.json"])
def test_the_committed_runs_are_named_so(name: str) -> None:
    # The runs kept so far were named by hand; a merged run replaces the same file.
    (kept,) = check_runs({name: (HISTORY / name).read_text("utf-8")}).values()
    assert kept == name


def test_runs_of_one_catalogue_on_different_devices_are_kept() -> None:
    texts = {
        "a/run.json": document("cpu", "cpu", 8),
        "b/run.json": document("gpu", "NVIDIA H200", 1),
    }
    assert check_runs(texts) == {
        "a/run.json": "cpu-8-devices.json",
        "b/run.json": "nvidia-h200.json",
    }


def test_conflicts_are_named_by_file() -> None:
    texts = {
        "a.json": document("cpu", "cpu", 8, "LazyInitError", "CursorFindError"),
        "b.json": document("cpu", "cpu", 8, "LazyInitError", "CursorFindError"),
        "c.json": document("gpu", "NVIDIA H200", 1, "LazyInitError", "InvalidRngError"),
        "d.json": "{}",
    }
    with pytest.raises(DeviceRunError) as error:
        check_runs(texts)
    assert str(error.value).splitlines() == [
        "b.json: a second run on CPU \u00d78, as a.json",
        "c.json: not the catalogue of a.json (lacks ['flax.errors.CursorFindError'], "
        "adds ['flax.errors.InvalidRngError']): the runs are of different commits",
        "d.json: not an errors.json document (a JSON object with 'schema', 'device', "
        "'versions' and 'entries'; flax-errors check --json writes one)",
    ]
