"""A small history to record: two catalogue entries, releases, and stand-in runners.

Shared by the recording and slicing tests. A release's venv holds a stand-in script
where its python would be, so no venv is made and nothing is installed.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import TYPE_CHECKING

from flax_errors_ext.ext.history.model.cells import entry_codes
from flax_errors_ext.model.history.releases import (
    EntryRun,
    ExampleRun,
    Outcome,
    Release,
    ReleaseRun,
)
from flax_errors_ext.model.runs.fingerprint import Device
from tools.history.recording import HistoryFiles, read_entries

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from types import ModuleType

REPO = Path(__file__).resolve().parents[3]
RELEASE_RUNNER = REPO / "tools" / "history" / "release_runner.py"


def runner() -> ModuleType:
    """The release runner, loaded from its file as a release's venv runs it."""
    spec = importlib.util.spec_from_file_location("release_runner", RELEASE_RUNNER)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


NAMES = ("A", "B")
"""The catalogue's entries."""
ENTRY = """\
Summary.

Bad example:

  >>> make({name}())
  Traceback (most recent call last):
    ...
  flax.errors.{name}: text
"""


def history_files(tmp_path: Path, releases: Sequence[Mapping[str, str]]) -> HistoryFiles:
    """The entries' catalogue files, ``releases`` as releases.toml, no rewrites."""
    folder, catalogue = tmp_path / "history", tmp_path / "flax.errors"
    folder.mkdir()
    catalogue.mkdir()
    for name in NAMES:
        (catalogue / f"{name}.txt").write_text(ENTRY.format(name=name), "utf-8")
    tables = "".join(
        "[[release]]\n" + "".join(f'{key} = "{value}"\n' for key, value in table.items())
        for table in releases
    )
    (folder / "releases.toml").write_text(tables, "utf-8")
    (folder / "rewrites.toml").write_text("", "utf-8")
    return HistoryFiles(tmp_path / "work", folder, catalogue)


def stand_in_venv(files: HistoryFiles, table: Mapping[str, str], runner: str) -> Path:
    """The release's venv, made as for ``table``, whose python is the script ``runner``."""
    venv = files.work / "releases" / f"flax-{table['flax']}"
    (venv / "bin").mkdir(parents=True)
    (venv / "flax-errors-release.json").write_text(json.dumps(table), "utf-8")
    (venv / "bin" / "python").write_text(runner, "utf-8")
    (venv / "bin" / "python").chmod(0o755)
    return venv


def raised_run(
    files: HistoryFiles, table: Mapping[str, str], names: Sequence[str], pace: float
) -> ReleaseRun:
    """A run of the release in ``table`` in which each of ``names`` raised its error."""
    codes = entry_codes(read_entries(files.catalogue))
    entries = {
        name: EntryRun(True, (ExampleRun(codes[name][0], Outcome.RAISED, "E", "E: t"),))
        for name in names
    }
    release = Release(
        table["flax"], table["jax"], table["jaxlib"], "3.11.7", Device("cpu", "cpu", 1)
    )
    return ReleaseRun(release, NAMES, entries, pace)
