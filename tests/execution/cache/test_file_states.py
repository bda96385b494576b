"""The files runs loaded, as this machine has them now: noted hashes, one look per run."""

from __future__ import annotations

from typing import TYPE_CHECKING

from flax_errors_ext.execution.cache.file_states import SourceStates
from flax_errors_ext.model.runs.fingerprint import LoadedFile

if TYPE_CHECKING:
    from pathlib import Path


def _loaded(path: Path) -> LoadedFile:
    stat = path.stat()
    return LoadedFile(str(path), stat.st_size, stat.st_mtime_ns)


def test_noted_hashes_outlive_the_run(tmp_path: Path) -> None:
    source = tmp_path / "helper.py"
    source.write_text("WORDING = 'a'\n")
    loaded = _loaded(source)
    states = SourceStates(tmp_path / "sources.json")
    states.remember((loaded,))
    states.save()

    source.write_text("WORDING = 'a'\n")  # touched: a new time, the same text
    assert SourceStates(tmp_path / "sources.json").first_change([loaded]) is None
    source.write_text("WORDING = 'b'\n")
    assert SourceStates(tmp_path / "sources.json").first_change([loaded]) == str(source)


def test_a_run_looks_at_each_file_once(tmp_path: Path) -> None:
    source = tmp_path / "helper.py"
    source.write_text("x = 1\n")
    loaded = _loaded(source)
    states = SourceStates(tmp_path / "sources.json")
    assert states.first_change([loaded]) is None
    source.write_text("x = 22\n")
    # Within one run the first look stands: every entry is judged against one state.
    assert states.first_change([loaded]) is None
