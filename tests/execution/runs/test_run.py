"""Which files a cached run must still find unchanged to be trusted, and how often; a
failure in a shared process confirmed alone."""

from __future__ import annotations

from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, cast

import pytest

from flax_errors_ext.execution.cache.file_states import SourceStates
from flax_errors_ext.execution.catalogue.modules import load_module
from flax_errors_ext.execution.runs.run import RunSettings, _besides, _ModuleChecker, check_modules
from flax_errors_ext.execution.runs.runner import Runner
from flax_errors_ext.model.catalogue.records import Verdict
from flax_errors_ext.model.runs.fingerprint import Fingerprint, LoadedFile

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


BESIDE = '''"""Errors whose examples see what runs beside them in a shared process."""


class Alone(Exception):
    """Raised with how many entries its process runs at once: one, alone.

    Bad example:

      >>> import threading, time, beside_errors
      >>> time.sleep(1)
      >>> entries = [t for t in threading.enumerate() if t.name.startswith("flax-errors-entry")]
      >>> raise beside_errors.Alone(len(entries))
      Traceback (most recent call last):
        ...
      beside_errors.Alone: 1
    """


class Steady(Exception):
    """Raised by the first of two examples of two seconds each.

    Bad example:

      >>> import time, beside_errors
      >>> time.sleep(2)
      >>> raise beside_errors.Steady("done")
      Traceback (most recent call last):
        ...
      beside_errors.Steady: done

    Good example:

      >>> import time
      >>> time.sleep(2)
      >>> print("done")
      done
    """


class Stuck(Exception):
    """Never raised: its example runs past the timeout.

    Bad example:

      >>> import time, beside_errors
      >>> time.sleep(30)
      >>> raise beside_errors.Stuck()
      Traceback (most recent call last):
        ...
      beside_errors.Stuck
    """
'''


@pytest.mark.examples
def test_a_failure_beside_other_entries_in_a_shared_process_is_confirmed_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Alone counts two entries at once, beside Steady; Steady is killed with Stuck's
    # process at its 3 s timeout. Each passes when run again alone; Stuck times out again.
    (tmp_path / "beside_errors.py").write_text(BESIDE)
    monkeypatch.syspath_prepend(str(tmp_path))
    module = load_module("beside_errors")
    runner = Runner(timeout=3, log_dir=tmp_path / "logs", reuse=True)
    settings = RunSettings(
        fingerprint=Fingerprint.of({}, None, {}),
        mode="force",
        sources_store=tmp_path / "sources.json",
        runner=runner,
    )
    try:
        (outcomes,) = check_modules([module], settings, settings.sources(), jobs=3)
    finally:
        runner.close()

    verdicts = {o.entry.name: [r.verdict for r in o.results] for o in outcomes}
    assert verdicts["Alone"] == [Verdict.PASSED]
    assert verdicts["Steady"] == [Verdict.PASSED, Verdict.PASSED]
    assert verdicts["Stuck"] == [Verdict.TIMED_OUT]
