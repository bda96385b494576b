"""Recording the history: venvs reused, each release's run merged and written, failures kept.

The releases' runner is a stand-in script where the release's python would be, so
no venv is made and nothing is installed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from flax_errors_ext.model.history.releases import History, ReleaseRun
from tests.tools.history.history_files import history_files, raised_run, stand_in_venv
from tools.history import __main__ as command
from tools.history.plan import PlannedRelease, recorded
from tools.history.recording import (
    HistoryFiles,
    plan,
    read_history,
    record,
    release_venv,
    write_history,
)

REPO = Path(__file__).resolve().parents[3]
NO_UV = "/bin/false"
"""A uv that fails: these tests make no venv."""
RELEASE = {"flax": "0.8.5", "jax": "0.4.30", "jaxlib": "0.4.30", "as_of": "2024-06-27"}
FAKE_RUNNER = """\
#!/bin/sh
for arg; do case $arg in --out=*) out=${arg#--out=};; esac; done
echo "$@" > "$(dirname "$0")/arguments"
cat "$FAKE_RUN" > "$out"
exit "${FAKE_STATUS:-0}"
"""


def run_of(*names: str, files: HistoryFiles) -> ReleaseRun:
    return raised_run(files, RELEASE, names, 1.5)


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> HistoryFiles:
    """A history of two entries and one release, whose venv is made and runs FAKE_RUNNER."""
    files = history_files(tmp_path, [RELEASE])
    stand_in_venv(files, RELEASE, FAKE_RUNNER)
    partial = tmp_path / "partial.json"
    partial.write_text(json.dumps(run_of("A", "B", files=files).to_json()), "utf-8")
    monkeypatch.setenv("FAKE_RUN", str(partial))
    return files


def test_a_venv_made_for_the_same_table_is_reused(files: HistoryFiles) -> None:
    python = release_venv(PlannedRelease.from_json(RELEASE), files.work / "releases", NO_UV)
    assert python == files.work / "releases" / "flax-0.8.5" / "bin" / "python"
    other = PlannedRelease.from_json({**RELEASE, "as_of": "2024-07-01"})
    with pytest.raises(SystemExit, match="failed: /bin/false venv"):
        release_venv(other, files.work / "releases", NO_UV)


def test_each_release_run_is_merged_into_the_file(files: HistoryFiles) -> None:
    record(files, uv=NO_UV)
    history = read_history(files.out)
    found = recorded(history, "0.8.5")
    assert found is not None
    assert sorted(found.entries) == ["A", "B"]
    arguments = (files.work / "releases" / "flax-0.8.5" / "bin" / "arguments").read_text()
    assert f"--catalogue={files.catalogue}" in arguments
    assert "--label=release 1 of 1 (flax 0.8.5, jax 0.4.30) --entries-after=0" in arguments
    assert "--only" not in arguments
    # Recorded now: a second run has nothing to do and leaves the file as it is.
    written = files.out.read_text("utf-8")
    assert plan(files)[1].todo == {}
    record(files, uv=NO_UV)
    assert files.out.read_text("utf-8") == written


def test_a_failed_runner_keeps_what_it_finished(
    files: HistoryFiles, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    partial = tmp_path / "partial.json"
    partial.write_text(json.dumps(run_of("A", files=files).to_json()), "utf-8")
    monkeypatch.setenv("FAKE_STATUS", "3")
    with pytest.raises(SystemExit, match=r"flax 0\.8\.5: the runner failed with exit code 3"):
        record(files, uv=NO_UV)
    found = recorded(read_history(files.out), "0.8.5")
    assert found is not None
    assert sorted(found.entries) == ["A"]
    history, todo = plan(files)
    assert todo.todo == {"0.8.5": ("B",)}
    assert todo.runner_arguments(0, history)[-2:] == ["--only", "B"]


def test_only_the_releases_named_run(files: HistoryFiles) -> None:
    record(files, ["0.12.8"], uv=NO_UV)
    assert not files.out.exists()


def test_the_file_is_replaced_whole(tmp_path: Path) -> None:
    out = tmp_path / "flax.json"
    write_history(out, History(), {})
    assert json.loads(out.read_text("utf-8"))["releases"] == []
    assert [p.name for p in tmp_path.iterdir()] == ["flax.json"]


def test_the_shipped_history_has_nothing_left_to_run(tmp_path: Path) -> None:
    shipped = REPO / "flax_errors_ext" / "history" / "flax.json"
    assert shipped.is_file(), f"{shipped} is missing: the site's history reads it"
    history, todo = plan(HistoryFiles(tmp_path))
    assert todo.todo == {}, "run nox -s history"
    # Read and written again, the file is the same to the byte: the writer's one form.
    write_history(tmp_path / "flax.json", history, todo.codes)
    assert (tmp_path / "flax.json").read_bytes() == shipped.read_bytes()


def test_the_command_needs_the_standard_library_and_packaging_alone(tmp_path: Path) -> None:
    # What the session's venv holds: nox -s history installs packaging and nothing else.
    imported = subprocess.run(
        [sys.executable, "-c", IMPORTED, "tools.history.__main__"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert "flax_errors_ext" in imported
    assert set(imported) - sys.stdlib_module_names <= {"flax_errors_ext", "tools", "packaging"}
    shipped = REPO / "flax_errors_ext" / "history" / "flax.json"
    before = shipped.read_bytes() if shipped.exists() else None
    assert command.main(["--work", str(tmp_path), "9.9"]) == 0  # no such release: nothing runs
    assert (shipped.read_bytes() if shipped.exists() else None) == before


IMPORTED = """\
import importlib, sys
before = set(sys.modules)
importlib.import_module(sys.argv[1])
print(*sorted({name.split(".")[0] for name in set(sys.modules) - before}))
"""
