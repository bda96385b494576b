"""Another run's errors.json document, read: its device and records, or why it is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flax_errors_ext.ext.other_runs.model.comparison import DeviceRunError, parse_run
from flax_errors_ext.model.runs.fingerprint import Device

HISTORY = Path(__file__).resolve().parents[4] / "flax_errors_ext" / "history"
GPU = {"platform": "gpu", "device_kind": "NVIDIA H200", "count": 1}


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("{", "not JSON"),
        ("[]", "not an errors.json document"),
        (json.dumps({"schema": 2, "device": GPU, "entries": []}), "schema 2"),
        (json.dumps({"schema": 1, "device": {}, "entries": []}), "no device recorded"),
        (
            json.dumps({"schema": 1, "device": GPU, "entries": [{"name": "E"}]}),
            r"entry 1 \(\?\): not an errors.json entry record",
        ),
    ],
)
def test_a_bad_file_is_refused_naming_it_and_what_is_wrong(text: str, problem: str) -> None:
    with pytest.raises(DeviceRunError, match=rf"^runs/gpu\.json: .*{problem}"):
        parse_run(text, "runs/gpu.json")


@pytest.mark.parametrize("name", ["cpu-8-devices.json", "tpu-v5-lite.json"])
def test_the_committed_runs_read_and_name_their_device(name: str) -> None:
    run = parse_run((HISTORY / name).read_text("utf-8"), name)
    assert run.records
    expected = (
        Device("cpu", "cpu", 8) if name.startswith("cpu") else Device("tpu", "TPU v5 lite", 1)
    )
    assert run.device == expected
    assert {r.device for r in run.records} == {expected}


def test_the_eight_device_run_has_no_path_of_the_machine_it_ran_on() -> None:
    text = (HISTORY / "cpu-8-devices.json").read_text("utf-8")
    for folder in ("/work/", "/home/", "/root/", "site-packages"):
        assert folder not in text
