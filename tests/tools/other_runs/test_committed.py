"""A run of the catalogue into a committed document: kept, refused, written whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flax_errors_ext.ext.other_runs.model.comparison import DeviceRunError
from flax_errors_ext.model.runs.fingerprint import Device
from tools.other_runs.committed import (
    RunNotKept,
    check_document,
    check_runs,
    forced_devices,
    main,
    run_file_name,
)

HISTORY = Path(__file__).resolve().parents[3] / "flax_errors_ext" / "history"
RECORDS = {
    r["qualname"].rpartition(".")[2]: r
    for r in json.loads((HISTORY / "cpu-8-devices.json").read_text("utf-8"))["entries"]
}
"""Real entry records, by class name, to make runs of chosen catalogues from."""


def document(platform: str, kind: str, count: int, *names: str) -> str:
    device = {"platform": platform, "device_kind": kind, "count": count}
    records = [RECORDS[name] for name in names or ("LazyInitError",)]
    return json.dumps({"schema": 1, "device": device, "versions": {}, "entries": records})


FAKE_CHECK = """\
#!/bin/sh
echo "$@" > "$(dirname "$0")/arguments"
printf '{"xla_flags": "%s", "entries": []}' "$XLA_FLAGS"
exit "${FAKE_STATUS:-0}"
"""


@pytest.fixture
def flax_errors(tmp_path: Path) -> str:
    script = tmp_path / "bin" / "flax-errors"
    script.parent.mkdir()
    script.write_text(FAKE_CHECK, "utf-8")
    script.chmod(0o755)
    return str(script)


def test_a_run_with_failed_examples_is_kept(
    flax_errors: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_STATUS", "1")
    text = check_document([flax_errors], tmp_path / "cache", tmp_path / "run.json", {})
    assert json.loads(text)["entries"] == []
    assert (tmp_path / "run.json").read_text("utf-8") == text
    arguments = (tmp_path / "bin" / "arguments").read_text("utf-8").split()
    assert arguments == ["check", "--json", "--no-cache", "--cache-dir", str(tmp_path / "cache")]


def test_a_failed_run_is_not_kept(
    flax_errors: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_STATUS", "2")
    with pytest.raises(RunNotKept, match="failed with exit code 2"):
        check_document([flax_errors], tmp_path / "cache", tmp_path / "run.json")


def test_a_document_naming_the_checkout_is_refused(flax_errors: str, tmp_path: Path) -> None:
    env = {"XLA_FLAGS": f"--dump={tmp_path}/x"}
    with pytest.raises(RunNotKept, match="names this checkout's folder; not kept"):
        check_document([flax_errors], tmp_path / "c", tmp_path / "run.json", env, tmp_path)


def test_forced_devices_keep_the_flags_given() -> None:
    assert forced_devices("", 8) == "--xla_force_host_platform_device_count=8"
    assert forced_devices("--a=1", 2) == "--a=1 --xla_force_host_platform_device_count=2"


def test_the_command_replaces_the_document_once_written(
    flax_errors: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XLA_FLAGS", "--a=1")
    out = tmp_path / "runs" / "cpu-8-devices.json"
    out.parent.mkdir()
    out.write_text("old", "utf-8")
    args = ["--out", str(out), "--cache", "c", "--cpu-devices", "8", "--flax-errors", flax_errors]
    monkeypatch.chdir(out.parent)  # the checkout: no document may name it
    assert main(args) == 0
    flags = json.loads(out.read_text("utf-8"))["xla_flags"]
    assert flags == "--a=1 --xla_force_host_platform_device_count=8"
    assert [p.name for p in out.parent.iterdir()] == ["cpu-8-devices.json"]
    monkeypatch.chdir(tmp_path)  # now the document's temporary names it
    monkeypatch.setenv("XLA_FLAGS", str(tmp_path))
    assert main(args) == 1
    assert json.loads(out.read_text("utf-8"))["xla_flags"] == flags


def test_runs_made_apart_are_kept_by_their_devices(tmp_path: Path) -> None:
    # As CI downloads the jobs' runs: each in a folder of its own, named by the job.
    cpu = (HISTORY / "cpu-8-devices.json").read_text("utf-8")
    gpu = json.loads(cpu)
    gpu["device"] = {"platform": "gpu", "device_kind": "NVIDIA H200", "count": 1}
    for job, text in (("cpu-8", cpu), ("gpu", json.dumps(gpu))):
        (tmp_path / "runs" / job).mkdir(parents=True)
        (tmp_path / "runs" / job / "run.json").write_text(text, "utf-8")
    into = tmp_path / "history"
    into.mkdir()
    assert main(["--merge", str(tmp_path / "runs"), "--into", str(into)]) == 0
    assert sorted(p.name for p in into.iterdir()) == ["cpu-8-devices.json", "nvidia-h200.json"]
    assert (into / "cpu-8-devices.json").read_text("utf-8") == cpu


def test_conflicting_runs_are_named_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cpu = (HISTORY / "cpu-8-devices.json").read_text("utf-8")
    (tmp_path / "runs").mkdir()
    for name in ("a.json", "b.json"):
        (tmp_path / "runs" / name).write_text(cpu, "utf-8")
    into = tmp_path / "history"
    into.mkdir()
    assert main(["--merge", str(tmp_path / "runs"), "--into", str(into)]) == 1
    assert list(into.iterdir()) == []
    error = capsys.readouterr().err
    assert f"{tmp_path / 'runs' / 'b.json'}: a second run on CPU \u00d78, as " in error
    assert main(["--merge", str(tmp_path / "none"), "--into", str(into)]) == 1
    assert "none: no run (*.json) in it" in capsys.readouterr().err


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
