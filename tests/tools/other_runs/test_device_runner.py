"""The runner for a machine with JAX and Flax alone runs what ``flax-errors check`` runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from flax_errors_ext.cli.project import DEFAULT_MODULES
from tools.other_runs.device_runner import MODULES

REPO = Path(__file__).resolve().parents[3]


def test_it_runs_the_catalogue_that_check_runs() -> None:
    # Runs of two catalogues cannot be kept together (nox -s devices -- --merge).
    assert MODULES == DEFAULT_MODULES


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
    assert document["device"]["count"] >= 1  # the device its child saw, recorded
