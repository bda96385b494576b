"""The history in slices, from the command line: each slice file written, then merged or refused.

Two releases whose venvs hold a stand-in runner (no venv is made, nothing is
installed): each slice runs one of them, as CI's matrix jobs do.
"""

from __future__ import annotations

import json
import shutil
from typing import TYPE_CHECKING

import pytest

from tests.tools.history.history_files import (
    ENTRY,
    NAMES,
    history_files,
    raised_run,
    stand_in_venv,
)
from tools.history import __main__ as command
from tools.history.recording import HistoryFiles, read_history

if TYPE_CHECKING:
    from pathlib import Path

RELEASES = {
    "0.8.5": {"flax": "0.8.5", "jax": "0.4.30", "jaxlib": "0.4.30", "as_of": "2024-06-27"},
    "0.9.0": {"flax": "0.9.0", "jax": "0.4.31", "jaxlib": "0.4.31", "as_of": "2024-08-28"},
}
FAKE_RUNNER = """\
#!/bin/sh
for arg; do case $arg in --out=*) out=${arg#--out=};; esac; done
cat "$(dirname "$0")/run.json" > "$out"
"""


@pytest.fixture
def files(tmp_path: Path) -> HistoryFiles:
    """Two entries and two releases, each release's venv made, its runner a stand-in."""
    files = history_files(tmp_path, list(RELEASES.values()))
    for table in RELEASES.values():
        venv = stand_in_venv(files, table, FAKE_RUNNER)
        run = raised_run(files, table, NAMES, 1.0)
        (venv / "bin" / "run.json").write_text(json.dumps(run.to_json()), "utf-8")
    return files


def run(files: HistoryFiles, *arguments: str) -> int:
    """The command line of ``nox -s history``, on the fixture's files."""
    where = [f"--history={files.folder}", f"--catalogue={files.catalogue}"]
    return command.main([*where, *arguments])


def test_slices_are_written_apart_and_merged_into_the_history(files: HistoryFiles) -> None:
    slices = files.work / "slices"
    for part in ("1/2", "2/2"):
        assert run(files, f"--work={files.work}", f"--slice={part}") == 0
    assert not files.out.exists()  # a slice never writes flax.json
    written = {p.name: json.loads(p.read_text("utf-8")) for p in slices.iterdir()}
    assert {name: data["releases"] for name, data in written.items()} == {
        "1-of-2.json": ["0.8.5"],
        "2-of-2.json": ["0.9.0"],
    }
    # As CI downloads them: each artifact in a folder of its own.
    downloaded = files.work / "downloaded"
    for name, data in written.items():
        (downloaded / name.removesuffix(".json")).mkdir(parents=True)
        (downloaded / name.removesuffix(".json") / name).write_text(json.dumps(data), "utf-8")
    assert run(files, f"--merge={downloaded}") == 0
    history = read_history(files.out)
    assert [r.release.flax for r in history.releases] == ["0.8.5", "0.9.0"]


def test_a_slice_with_nothing_left_to_run_still_holds_its_releases(files: HistoryFiles) -> None:
    assert run(files, f"--work={files.work}") == 0  # flax.json, as before slices
    recorded = files.out.read_text("utf-8")
    assert run(files, f"--work={files.work}", "--slice=2/2", f"--out={files.work}/s/2.json") == 0
    assert run(files, f"--work={files.work}", "0.8.5", f"--out={files.work}/s/named.json") == 0
    named = json.loads((files.work / "s" / "named.json").read_text("utf-8"))
    assert (named["part"], named["releases"]) == ("0.8.5", ["0.8.5"])
    assert len(named["runs"]) == 1
    assert run(files, f"--merge={files.work / 's'}") == 0
    assert files.out.read_text("utf-8") == recorded


def test_a_missing_slice_leaves_the_history_as_it_is(
    files: HistoryFiles, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(files, f"--work={files.work}", "--slice=2/2") == 0
    assert run(files, f"--merge={files.work / 'slices'}") == 1
    assert not files.out.exists()
    error = capsys.readouterr().err
    assert "flax 0.8.5 is in no slice: slice 1/2, which holds it, is missing" in error


def test_a_slice_of_other_examples_is_refused_by_its_file(
    files: HistoryFiles, capsys: pytest.CaptureFixture[str]
) -> None:
    for part in ("1/2", "2/2"):
        assert run(files, f"--work={files.work}", f"--slice={part}") == 0
    (files.catalogue / "A.txt").write_text(ENTRY.format(name="A").replace("make", "build"))
    assert run(files, f"--merge={files.work / 'slices'}") == 1
    error = capsys.readouterr().err
    assert f"{files.work / 'slices' / '1-of-2.json'}: slice 1/2 ran catalogue" in error


def test_a_file_that_is_not_a_slice_is_named(
    files: HistoryFiles, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "flax.json").write_text('{"schema": 1, "releases": []}', "utf-8")
    assert run(files, f"--merge={tmp_path / 'in'}") == 1
    assert (
        f"{tmp_path / 'in' / 'flax.json'}: not read: not a history slice"
        in capsys.readouterr().err
    )


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--slice=3/2"], "expected K/N with 1 <= K <= N"),
        (["--slice=3/3"], "slice 3/3 is empty"),
        (["--slice=1/2", "0.8.5"], "give releases or --slice, not both"),
        (["--merge=x", "--slice=1/2"], "--merge takes no releases, --slice or --out"),
    ],
)
def test_contradictory_arguments_are_refused(
    files: HistoryFiles, arguments: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        run(files, f"--work={files.work}", *arguments)
    assert message in capsys.readouterr().err


def test_the_shipped_history_in_slices_merges_back_to_the_byte(tmp_path: Path) -> None:
    # Nothing is left to run in it (test_recording.py), so each slice runs nothing and
    # holds the releases flax.json has: the merge of all five is flax.json again.
    shipped = HistoryFiles(tmp_path / "work")
    copy = HistoryFiles(tmp_path / "work", tmp_path / "history", shipped.catalogue)
    shutil.copytree(shipped.folder, copy.folder)
    for k in range(1, 6):
        out = tmp_path / "slices" / f"{k}.json"
        assert run(copy, f"--work={copy.work}", f"--slice={k}/5", f"--out={out}") == 0
    copy.out.unlink()
    assert run(copy, f"--merge={tmp_path / 'slices'}") == 0
    assert copy.out.read_bytes() == shipped.out.read_bytes()
