"""Which files a cached run must still find unchanged to be trusted."""

from __future__ import annotations

from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, cast

from flax_errors_ext.execution.runs.run import _besides
from flax_errors_ext.model.runs.loaded_files import LoadedFile

if TYPE_CHECKING:
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
