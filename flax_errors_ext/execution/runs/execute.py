"""Run an entry's notebook in a kernel of the run, through jupyter-cache when caching.

This module owns the notebook file on disk, the execution cache's look-ups and
records, and the reading of the kernel's records out of the executed notebook. In
myst-nb's ``cache`` mode a notebook is looked up once in jupyter-cache (the same
database and records as myst-nb's own), and only on a miss runs, in a kernel
of the run's :class:`~flax_errors_ext.execution.runs.kernels.Kernels`, driven by nbclient;
in any other mode that runs it always. A run that times out or loses its kernel
is never cached; one that ran to the end is cached by the run's
:class:`~flax_errors_ext.execution.runs.cache_writer.CacheWriter` where there is one.
"""

from __future__ import annotations

import base64
import contextlib
import copy
import dataclasses
import functools
import json
import tempfile
import threading
import time
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

import nbformat
from nbclient.exceptions import CellExecutionError, CellTimeoutError
from nbformat import NotebookNode

from flax_errors_ext.execution.runs.entry_process import EntryProcessDied
from flax_errors_ext.execution.runs.in_kernel import RESULT_MIME
from flax_errors_ext.execution.runs.kernel import KernelStartError, Preload
from flax_errors_ext.model.catalogue.records import StatementRun, Verdict
from flax_errors_ext.model.runs.fingerprint import Device
from flax_errors_ext.model.runs.loaded_files import LoadedFile

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from jupyter_cache.base import JupyterCacheBase
    from myst_nb.core.config import NbParserConfig

    from flax_errors_ext.execution.runs.cache_writer import CacheWriter
    from flax_errors_ext.execution.runs.kernels import Kernels


@dataclasses.dataclass(frozen=True)
class Execution:
    """What running (or looking up) one entry's notebook produced."""

    runs: tuple[tuple[StatementRun, ...] | None, ...]
    """Per example, the statements' records; None where the example never finished."""
    failure: Verdict | None = None
    """TIMED_OUT or CRASHED when the notebook did not run to the end."""
    failure_detail: str = ""
    failure_log: str = ""
    """The traceback of this package's own error that stopped the run, if one did, so
    that a crash of ours reaches errors.json with its cause."""
    executed: bool = False
    """True if a kernel ran now; False if the outputs came from the cache."""
    seconds: float = 0.0
    device: Device | None = None
    """Where the examples ran; None if unknown (not run, or the kernel could not tell)."""
    versions: dict[str, str] = dataclasses.field(default_factory=dict)
    loaded: tuple[LoadedFile, ...] = ()
    """Every file the kernel had loaded code from when the examples were done."""


def execute_notebook(
    notebook: NotebookNode,
    path: Path,
    nb_config: NbParserConfig,
    examples: int,
    kernels: Kernels,
    trusted: Callable[[tuple[LoadedFile, ...]], bool] = lambda _: True,
    preload: Preload | None = None,
    writer: CacheWriter | None = None,
) -> Execution:
    """Get ``notebook`` served from the cache, or written to ``path`` and executed by ``kernels``.

    A cached run is served only if ``trusted`` accepts the files it loaded;
    otherwise its outputs are dropped and the notebook runs again. ``preload``: the
    entry's module, which its kernel imports before the examples run. ``writer``:
    the process a run's outputs are cached by, if not this one.
    """
    if nb_config.execution_mode == "off":
        return Execution(runs=(None,) * examples, failure=Verdict.NOT_RUN)
    _notebook_schema_ready()
    execution = _execute(notebook, path, nb_config, examples, kernels, preload, writer)
    if execution.executed or trusted(execution.loaded):
        return execution
    forget(notebook, nb_config)  # here and now: the look-up that follows must miss
    return _execute(notebook, path, nb_config, examples, kernels, preload, writer)


_schema_lock = threading.Lock()


def _notebook_schema_ready() -> None:
    """Have nbformat compile its notebook validator once, before any thread checks with it.

    nbformat compiles it at its first use and keeps it, but every entry's thread
    that got there before it was kept compiled its own: compiled first, under a
    lock, it is compiled once per process, whatever the number of threads.
    """
    with _schema_lock:
        nbformat.validator.get_validator(  # type: ignore[no-untyped-call]
            version=nbformat.v4.nbformat, version_minor=nbformat.v4.nbformat_minor
        )


def _execute(
    notebook: NotebookNode,
    path: Path,
    nb_config: NbParserConfig,
    examples: int,
    kernels: Kernels,
    preload: Preload | None,
    writer: CacheWriter | None,
) -> Execution:
    with _cache_held(nb_config) as cache:
        if cache is not None:
            with contextlib.suppress(KeyError):  # KeyError: not in the cache
                # The cached notebook itself, not merged into a copy of ``notebook``:
                # its cells are the ones hashed, metadata and all, and only its
                # records are read.
                cached = cache.get_cache_bundle(cache.match_cache_notebook(notebook).pk)
                return _served(cached.nb, examples)
    _write(notebook, path)
    kernels.prepare()  # what fails here is flax-errors' own, said as such by the entry
    result = copy.deepcopy(notebook)
    started = time.perf_counter()
    try:
        with _working_dir(path, nb_config) as cwd:
            kernels.run(
                result,
                cwd,
                timeout=notebook.metadata["execution"]["timeout"],
                output=path.with_suffix(".kernel.log"),
                preload=preload,
            )
    except KernelStartError as error:
        return _failed(notebook, examples, started, Verdict.CRASHED, f"{error}")
    except CellTimeoutError:
        timeout = notebook.metadata["execution"]["timeout"]
        detail = f"an example ran past the {timeout} s timeout"
        return _failed(result, examples, started, Verdict.TIMED_OUT, detail)
    except CellExecutionError as error:
        if error.ename == EntryProcessDied.__name__:
            detail = f"the kernel died: {error.evalue}"
        else:
            detail = f"the notebook failed to run ({error.ename}): {_last_line(str(error))}"
        return _failed(result, examples, started, Verdict.CRASHED, detail)
    except Exception as error:  # a dead kernel surfaces here (nbclient's DeadKernelError)
        detail = f"the kernel died or could not run: {type(error).__name__}: {error}"
        return _failed(result, examples, started, Verdict.CRASHED, detail)
    seconds = time.perf_counter() - started
    remember(result, path, nb_config, seconds, writer)
    return dataclasses.replace(_served(result, examples), executed=True, seconds=seconds)


def _write(notebook: NotebookNode, path: Path) -> None:
    """Write the notebook about to run where its kernel's log goes, unless it is there.

    Only a notebook that runs is written: a cache hit's executed notebook is in
    the cache, and the hit needs no file of its own.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    text: str = nbformat.writes(notebook)  # type: ignore[no-untyped-call]
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def _served(result: NotebookNode, examples: int) -> Execution:
    """What a notebook that ran to the end (now, or when it was cached) recorded."""
    records, last = _records(result)
    return Execution(
        runs=_runs(records, examples),
        device=Device.from_json(last.get("device")),
        versions=last.get("versions", {}),
        loaded=_loaded(last),
    )


def _failed(
    result: NotebookNode, examples: int, started: float, failure: Verdict, detail: str
) -> Execution:
    return Execution(
        runs=_runs(_records(result)[0], examples),
        failure=failure,
        failure_detail=detail,
        executed=True,
        seconds=time.perf_counter() - started,
    )


@contextlib.contextmanager
def _working_dir(path: Path, nb_config: NbParserConfig) -> Iterator[Path]:
    """Where the kernel runs: beside the notebook, or a fresh folder (``nb_execution_in_temp``)."""
    if nb_config.execution_in_temp:
        with tempfile.TemporaryDirectory() as folder:
            yield Path(folder)
    else:
        yield path.parent.resolve()


DATABASE_FILE = "global.db"
"""jupyter-cache's database, in its cache folder."""

_caches: dict[str, tuple[tuple[int, int] | None, JupyterCacheBase]] = {}
"""Each cache folder's cache, with the identity of the database file it opened."""
_cache_lock = threading.Lock()
"""Held by the one thread using a cache (or choosing one) at a time."""


def cache_folder(nb_config: NbParserConfig) -> Path:
    """The execution cache's folder, as myst-nb's ``nb_execution_cache_path`` names it."""
    return Path(nb_config.execution_cache_path or ".jupyter_cache")


@contextlib.contextmanager
def _cache_held(nb_config: NbParserConfig) -> Iterator[JupyterCacheBase | None]:
    """The execution cache in ``cache`` mode (None otherwise), no other thread's meanwhile.

    The entries run in the threads of one pool, and jupyter-cache's writes are not
    atomic: a record is made before its notebook is written, and the truncation
    that ends every write lists the records to keep and those to drop in two
    queries, so a record another thread makes between them is dropped, its notebook
    not yet written (jupyter-cache's KeyError, out of the build's first step). Each
    look-up, write and removal is therefore whole before the next begins; the
    kernels still run side by side.

    One cache per folder, for every thread: its database engine is made once,
    rather than once per entry, and made again when the database file is another:
    one set aside and rebuilt
    (:func:`~flax_errors_ext.execution.session.open_cache_database`) or a folder
    removed since, whose old connection would still read the file that is gone.
    """
    if nb_config.execution_mode != "cache":
        yield None
        return
    from jupyter_cache import get_cache

    folder = str(cache_folder(nb_config))
    database = Path(folder) / DATABASE_FILE
    with _cache_lock:
        identity, cache = _caches.get(folder, (None, None))
        if cache is None or identity is None or identity != _identity(database):
            cache = get_cache(folder)
            cache.list_cache_records()  # creates the database where there is none
            _caches[folder] = (_identity(database), cache)
        yield cache


def _identity(database: Path) -> tuple[int, int] | None:
    try:
        found = database.stat()
    except OSError:
        return None
    return found.st_dev, found.st_ino


def _loaded(finish: dict[str, Any]) -> tuple[LoadedFile, ...]:
    return unpack_loaded(finish.get("loaded", ""))


_shared_files: dict[tuple[Any, ...], LoadedFile] = {}
"""Every loaded file read in this process, once: most entries of a build loaded the
same files, and the environment Sphinx pickles then holds each once."""


def unpack_loaded(packed: Any) -> tuple[LoadedFile, ...]:
    """The files :func:`~.kernel_environment.loaded_files` packed; () if none."""
    return _unpacked(packed) if isinstance(packed, str) else ()


@functools.lru_cache(maxsize=256)
def _unpacked(packed: str) -> tuple[LoadedFile, ...]:
    """The files packed in ``packed``, kept by its text.

    The entries of a build often loaded the very same files (a catalogue's entries
    share a few distinct lists), so each distinct list is unpacked once rather than
    at every cache hit.
    """
    try:
        items = json.loads(zlib.decompress(base64.b64decode(packed)))
        return tuple(_shared_file(item) for item in items)
    except (TypeError, ValueError, zlib.error):
        return ()


def _shared_file(item: Any) -> LoadedFile:
    key = tuple(item)
    found = _shared_files.get(key)
    if found is None:
        found = _shared_files.setdefault(key, LoadedFile.from_json(item))
    return found


def remember(
    result: NotebookNode,
    path: Path,
    nb_config: NbParserConfig,
    seconds: float,
    writer: CacheWriter | None = None,
) -> None:
    """Keep the outputs of ``result``, a notebook that ran to the end, in ``cache`` mode.

    By ``writer``'s process where there is one this process may use, else here.
    """
    if nb_config.execution_mode != "cache":
        return
    data = {"execution_seconds": seconds}
    if writer is not None and writer.owned():
        writer.write(result, str(path), data)
        return
    with _cache_held(nb_config) as cache:
        if cache is not None:
            from jupyter_cache.base import CacheBundleIn

            bundle = CacheBundleIn(result, str(path), data=data)
            cache.cache_notebook_bundle(bundle, check_validity=False, overwrite=True)


def forget(
    notebook: NotebookNode, nb_config: NbParserConfig, writer: CacheWriter | None = None
) -> None:
    """Drop the cached outputs of ``notebook``, if there are any.

    For runs that failed in a way the environment may have caused: the next build
    runs them afresh rather than trusting a stored failure. With ``writer``, once
    it has written what it was handed before (this run's outputs among them).
    """
    if writer is not None and writer.owned() and nb_config.execution_mode == "cache":
        writer.forget(notebook)
        return
    with _cache_held(nb_config) as cache:
        if cache is not None:
            with contextlib.suppress(KeyError):
                cache.remove_cache(cache.match_cache_notebook(notebook).pk)


def _records(notebook: NotebookNode) -> tuple[dict[int, dict[str, Any]], dict[str, Any]]:
    """The kernel's records: each example's by its index, and the wrap-up's ({} if none)."""
    examples: dict[int, dict[str, Any]] = {}
    finish: dict[str, Any] = {}
    for cell in notebook.cells:
        metadata = cell.get("metadata", {}).get("flax_errors", {})
        for output in cell.get("outputs", []):
            record = output.get("data", {}).get(RESULT_MIME)
            if not isinstance(record, dict):
                continue
            if "statements" in record:
                examples[int(metadata.get("index", 0))] = dict(record)
            else:
                finish = dict(record)
    return examples, finish


def _runs(
    records: dict[int, dict[str, Any]], examples: int
) -> tuple[tuple[StatementRun, ...] | None, ...]:
    return tuple(
        tuple(StatementRun.from_json(s) for s in records[i]["statements"])
        if i in records
        else None
        for i in range(examples)
    )


def _last_line(text: str | None) -> str:
    lines = [line for line in (text or "").strip().splitlines() if line.strip()]
    return lines[-1] if lines else "no traceback"
