"""The runner for a machine with JAX and Flax alone: what ``flax-errors check --json`` writes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tools.other_runs.device_runner import main

REPO = Path(__file__).resolve().parents[3]


def test_a_name_the_catalogue_lacks_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(REPO)
    with pytest.raises(SystemExit) as stopped:
        main([str(tmp_path / "device.json"), "NameInUseErorr"])
    assert stopped.value.code == 2
    assert "did you mean flax.errors.NameInUseError" in capsys.readouterr().err
    assert not (tmp_path / "device.json").exists()


@pytest.mark.kernels
def test_it_runs_the_entries_named_as_its_usage_reads_and_writes_their_verdicts(
    tmp_path: Path,
) -> None:
    out = tmp_path / "device.json"
    script = REPO / "tools" / "other_runs" / "device_runner.py"
    command = [sys.executable, str(script), str(out), "--jobs", "2", "NameInUseError"]
    result = subprocess.run(
        command,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    document = json.loads(out.read_text())
    assert [(e["qualname"], e["status"]) for e in document["entries"]] == [
        ("flax.errors.NameInUseError", "passed")
    ]
    assert document["executed"] == ["flax.errors.NameInUseError"]
    assert document["device"]["count"] >= 1  # the device its entry's process saw, recorded
    assert result.stdout.startswith("1 error: 1 passed on ")
