"""The execution cache as the entries' threads share it, and what its runs loaded."""

from __future__ import annotations

import base64
import json
import pickle
import threading
import time
import zlib
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import nbformat
import pytest
from jupyter_cache import get_cache
from jupyter_cache.cache.main import JupyterCacheBase
from myst_nb.core.config import NbParserConfig

from flax_errors_ext.execution.runs.execute import (
    _cache_held,
    execute_notebook,
    forget,
    remember,
    unpack_loaded,
)
from flax_errors_ext.execution.runs.kernels import Kernels
from flax_errors_ext.model.runs.loaded_files import LoadedFile

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

THREADS = 6


def _executed(number: int) -> nbformat.NotebookNode:
    """A notebook as a kernel leaves it: one code cell, run, with its output."""
    cell = nbformat.v4.new_code_cell(f"print({number})", execution_count=1)  # type: ignore[no-untyped-call]
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=f"{number}\n")]  # type: ignore[no-untyped-call]
    notebook: nbformat.NotebookNode = nbformat.v4.new_notebook(cells=[cell])  # type: ignore[no-untyped-call]
    notebook.metadata["execution"] = {"timeout": 5}
    return notebook


def test_the_threads_use_the_cache_one_at_a_time_and_lose_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # jupyter-cache makes a record before writing its notebook, and a write's
    # truncation lists the records to keep and to drop in two queries: another
    # thread inside the cache meanwhile loses its record (a KeyError out of a build).
    inside, most = 0, 0
    count = threading.Lock()

    def slowed(method: Callable[..., Any]) -> Callable[..., Any]:
        def counted(*args: Any, **kwargs: Any) -> Any:
            nonlocal inside, most
            with count:
                inside += 1
                most = max(most, inside)
            try:
                time.sleep(0.02)  # widens what would be a race into a certainty
                return method(*args, **kwargs)
            finally:
                with count:
                    inside -= 1

        return counted

    methods = ("cache_notebook_bundle", "match_cache_notebook", "get_cache_bundle", "remove_cache")
    for name in methods:
        monkeypatch.setattr(JupyterCacheBase, name, slowed(getattr(JupyterCacheBase, name)))
    nb_config = NbParserConfig(execution_mode="cache", execution_cache_path=str(tmp_path / "c"))

    def cycle(number: int) -> tuple[bool, bool]:
        path = tmp_path / f"entry{number}.ipynb"
        remember(_executed(number), path, nb_config, seconds=0.1)
        # Served from the cache: with a record lost it would start a kernel, which
        # this notebook's metadata cannot name.
        served = execute_notebook(_executed(number), path, nb_config, 0, Kernels())
        forget(_executed(number), nb_config)
        return served.executed, served.failure is None

    with ThreadPoolExecutor(THREADS) as pool:
        outcomes = list(pool.map(cycle, range(THREADS)))

    assert outcomes == [(False, True)] * THREADS
    assert most == 1
    # Each forgotten: nothing left behind, record or notebook.
    cache = get_cache(str(tmp_path / "c"))
    assert cache.list_cache_records() == []
    assert not any((tmp_path / "c" / "executed").iterdir())


def _packed(files: list[Any]) -> str:
    return base64.b64encode(zlib.compress(json.dumps(files).encode())).decode("ascii")


def test_files_that_runs_share_are_read_into_one_object() -> None:
    common = [[f"/site-packages/lib{n}.py", n, 10**18 + n] for n in range(500)]
    first = unpack_loaded(_packed([*common, ["/project/a.py", 1, 2]]))
    second = unpack_loaded(_packed([["/project/b.py", 3, 4], *common]))
    assert first[-1] == LoadedFile("/project/a.py", 1, 2)
    assert all(x is y for x, y in zip(first[:500], second[1:], strict=True))
    # Sphinx keeps every page's files in its pickled environment: shared, they are
    # written once, not once per page.
    apart = pickle.dumps([first, second])
    assert len(apart) < len(pickle.dumps(first)) * 1.1


def test_the_same_packed_files_are_unpacked_once() -> None:
    # Entries of a build often loaded the very same files: a cache hit then
    # skips the decompression and the thousand records.
    packed = _packed([[f"/site-packages/lib{n}.py", n, n] for n in range(50)])
    again = "".join(list(packed))  # equal, another object
    assert unpack_loaded(packed) is unpack_loaded(again)


def test_a_damaged_record_of_loaded_files_reads_as_none() -> None:
    assert unpack_loaded("not base64 zlib") == ()
    assert unpack_loaded(_packed([["/a.py", "size?", 0]])) == ()
    assert unpack_loaded(_packed([{"path": "/a.py"}])) == ()
    assert unpack_loaded(None) == ()


def test_the_cache_database_keeps_the_durability_jupyter_cache_gives_it(
    tmp_path: Path,
) -> None:
    # The database is shared with myst-nb's own notebooks: the build leaves SQLite's
    # settings on its connections as jupyter-cache makes them.
    nb_config = NbParserConfig(execution_mode="cache", execution_cache_path=str(tmp_path / "c"))
    remember(_executed(1), tmp_path / "entry1.ipynb", nb_config, seconds=0.1)
    served = execute_notebook(_executed(1), tmp_path / "entry1.ipynb", nb_config, 0, Kernels())
    assert not served.executed

    with _cache_held(nb_config) as cache, get_cache(str(tmp_path / "c")).db.connect() as own:
        assert cache is not None
        with cache.db.connect() as connection:
            setting = connection.exec_driver_sql("PRAGMA synchronous").scalar()
        assert setting == own.exec_driver_sql("PRAGMA synchronous").scalar()
        assert setting == 2  # FULL, SQLite's default for a database in rollback mode


def test_a_hit_writes_no_notebook_and_a_notebook_that_runs_is_written_first(
    tmp_path: Path,
) -> None:
    nb_config = NbParserConfig(execution_mode="cache", execution_cache_path=str(tmp_path / "c"))
    remember(_executed(1), tmp_path / "kept.ipynb", nb_config, seconds=0.1)
    hit = tmp_path / "notebooks" / "entry1.ipynb"

    served = execute_notebook(_executed(1), hit, nb_config, 0, Kernels())

    assert not served.executed
    assert not hit.exists()

    # A miss: the notebook is on disk, as it will run, before the kernel is asked.
    missed = tmp_path / "notebooks" / "entry2.ipynb"
    notebook = _executed(2)
    seen: list[str] = []

    def prepare() -> None:
        seen.append(missed.read_text() if missed.is_file() else "")
        raise RuntimeError("no kernel in this test")

    with pytest.raises(RuntimeError, match="no kernel"):
        execute_notebook(notebook, missed, nb_config, 0, Kernels(prepare))
    assert seen == [nbformat.writes(notebook)]  # type: ignore[no-untyped-call]
