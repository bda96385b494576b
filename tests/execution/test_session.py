"""The run session: its runner (one process held on an accelerator), cache and fingerprint."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from flax_errors_ext.execution.cache import probe
from flax_errors_ext.execution.runs.runner import Runner
from flax_errors_ext.execution.session import ExecutionOptions, Session
from flax_errors_ext.model.config import CatalogueConfig
from flax_errors_ext.model.runs.fingerprint import Device

if TYPE_CHECKING:
    from pathlib import Path


def _session(tmp_path: Path, **nb: object) -> Session:
    return Session(tmp_path, CatalogueConfig(), ExecutionOptions(**nb))  # type: ignore[arg-type]


def _probing_as(monkeypatch: pytest.MonkeyPatch, device: Device) -> list[int]:
    asked: list[int] = []

    def probe_answer(self: object) -> Device:
        asked.append(1)
        return device

    monkeypatch.setattr(probe, "_probed", {})
    monkeypatch.setattr(Runner, "probe", probe_answer)
    return asked


@pytest.mark.parametrize(
    ("device", "reused"),
    [(Device("tpu", "TPU v5 lite", 1), True), (Device("cpu", "cpu", 1), False)],
)
def test_on_an_accelerator_one_process_serves_every_entry(
    device: Device, reused: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _probing_as(monkeypatch, device)
    run = _session(tmp_path, mode="cache")
    run.fingerprint()
    # Known from device.json, in a later run: the same.
    monkeypatch.setattr(probe, "_probed", {})
    again = _session(tmp_path, mode="cache")
    again.fingerprint()

    assert run.runner.reuse is again.runner.reuse is reused


def test_the_probe_is_asked_once_and_its_answer_kept_beside_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked = _probing_as(monkeypatch, Device("cpu", "cpu", 1))
    _session(tmp_path, mode="cache").fingerprint()
    monkeypatch.setattr(probe, "_probed", {})  # a new process: only the file is left
    again = _session(tmp_path, mode="cache").fingerprint()

    assert asked == [1]
    assert again.device == Device("cpu", "cpu", 1)
    assert json.loads((tmp_path / "device.json").read_text())["device"]["platform"] == "cpu"


def test_a_run_that_executes_nothing_probes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked = _probing_as(monkeypatch, Device("cpu", "cpu", 1))

    assert _session(tmp_path, mode="off").fingerprint().device is None
    assert asked == []


def test_only_the_cache_mode_reads_and_keeps_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _probing_as(monkeypatch, Device("cpu", "cpu", 1))
    cache = tmp_path / "cache"

    cached = _session(tmp_path, mode="cache", cache_path=str(cache))
    forced = _session(tmp_path, mode="force", cache_path=str(cache))

    store = cached.settings().store
    assert store is not None
    assert store.folder.parent == cache
    assert forced.settings().store is None


def test_processes_run_in_the_work_folder_unless_in_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _probing_as(monkeypatch, Device("cpu", "cpu", 1))

    assert _session(tmp_path, mode="cache").runner.cwd == tmp_path / "runs"
    assert _session(tmp_path, mode="cache", in_temp=True).runner.cwd is None


def test_the_compilation_cache_is_set_for_the_processes_unless_the_user_set_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("JAX_COMPILATION_CACHE_DIR", raising=False)
    ours = _session(tmp_path, mode="cache").env
    monkeypatch.setenv("JAX_COMPILATION_CACHE_DIR", "/elsewhere")
    theirs = _session(tmp_path, mode="cache").env

    assert ours["JAX_COMPILATION_CACHE_DIR"] == str(tmp_path / "jax_cache")
    assert theirs == {}
