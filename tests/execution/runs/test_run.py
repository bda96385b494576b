"""Which files a cached run must still find unchanged to be trusted, and how often."""

from __future__ import annotations

from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, cast

from flax_errors_ext.execution.runs.file_states import SourceStates
from flax_errors_ext.execution.runs.run import _besides, _ModuleChecker
from flax_errors_ext.model.runs.fingerprint import LoadedFile

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path


def test_the_catalogued_module_is_left_out_by_any_path_to_it(tmp_path: Path) -> None:
    # Its docstring-free code hash keys the cache already: editing its docs alone
    # must not run anything again.
    (tmp_path / "pkg").mkdir()
    (tmp_path / "other").mkdir()
    own = tmp_path / "pkg" / "errors.py"
    own.write_text("class E(Exception): ...\n")
    (tmp_path / "linked").symlink_to(tmp_path / "pkg")
    namesake = tmp_path / "other" / "errors.py"
    namesake.write_text("x = 1\n")
    loaded = tuple(
        LoadedFile(str(path), 1, 2)
        for path in (own, tmp_path / "linked" / "errors.py", namesake, tmp_path / "pkg" / "ops.py")
    )
    module = cast("Any", SimpleNamespace(path=own))

    assert [f.path for f in _besides(loaded, module)] == [str(namesake), str(loaded[3].path)]


class _CountingStates(SourceStates):
    def __init__(self, store: Path) -> None:
        super().__init__(store)
        self.looks = 0

    def first_change(self, files: Iterable[LoadedFile]) -> str | None:
        self.looks += 1
        return super().first_change(files)


def _checker(tmp_path: Path, states: SourceStates) -> _ModuleChecker:
    module = cast("Any", SimpleNamespace(path=tmp_path / "errors.py"))
    return _ModuleChecker(module, cast("Any", None), states, cast("Any", None))


def test_an_unchanged_list_of_loaded_files_is_looked_at_once_per_run(tmp_path: Path) -> None:
    source = tmp_path / "ops.py"
    source.write_text("x = 1\n")
    found = source.stat()
    loaded = (LoadedFile(str(source), found.st_size, found.st_mtime_ns),)
    states = _CountingStates(tmp_path / "sources.json")
    checker = _checker(tmp_path, states)

    assert checker.trusts(loaded)
    assert checker.trusts(loaded)
    assert states.looks == 1
    # An equal list that is not the same object (another cached run's) is looked at.
    other = (loaded[0],)
    assert other is not loaded
    assert checker.trusts(other)
    assert states.looks == 2


def test_a_changed_list_of_loaded_files_is_never_trusted(tmp_path: Path) -> None:
    source = tmp_path / "ops.py"
    source.write_text("x = 1\n")
    loaded = (LoadedFile(str(source), 1, 2),)  # not the file's size and time now
    states = _CountingStates(tmp_path / "sources.json")
    checker = _checker(tmp_path, states)

    assert not checker.trusts(loaded)
    assert not checker.trusts(loaded)
    assert states.looks == 2  # "changed" is not kept: a run may yet note its hash
