"""Run an entry's notebook through myst-nb's execution client and jupyter-cache.

This module owns the notebook file on disk and the reading of the kernel's records
out of the executed notebook. Execution itself is myst-nb's
(:func:`myst_nb.core.execute.create_client`): in ``cache`` mode it looks the notebook
up in jupyter-cache, and only on a miss starts a kernel, runs it with nbclient and
caches the result. A run that times out or loses its kernel is never cached.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import json
import logging
import time
import zlib
from typing import TYPE_CHECKING, Any

import nbformat
from myst_nb.core.execute import create_client
from nbformat import NotebookNode

from flax_errors_ext.execution.runs.in_kernel import RESULT_MIME
from flax_errors_ext.model.catalogue.records import StatementRun, Verdict
from flax_errors_ext.model.runs.fingerprint import Device
from flax_errors_ext.model.runs.loaded_files import LoadedFile

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from myst_nb.core.config import NbParserConfig

_LOGGER = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class Execution:
    """What running (or looking up) one entry's notebook produced."""

    runs: tuple[tuple[StatementRun, ...] | None, ...]
    """Per example, the statements' records; None where the example never finished."""
    failure: Verdict | None = None
    """TIMED_OUT or CRASHED when the notebook did not run to the end."""
    failure_detail: str = ""
    executed: bool = False
    """True if a kernel ran now; False if the outputs came from the cache."""
    seconds: float = 0.0
    device: Device | None = None
    """Where the examples ran; None if unknown (not run, or the kernel could not tell)."""
    versions: dict[str, str] = dataclasses.field(default_factory=dict)
    loaded: tuple[LoadedFile, ...] = ()
    """Every file the kernel had loaded code from when the examples were done."""


class _MystNbLogger(logging.LoggerAdapter[logging.Logger]):
    """Takes myst-nb's messages (and its ``subtype`` keyword) to our debug log.

    The verdicts say what went wrong, located at the docstring; myst-nb's own
    warnings would only repeat it, pointing at a generated notebook.
    """

    def process(self, msg: Any, kwargs: Any) -> tuple[Any, Any]:
        kwargs.pop("subtype", None)
        kwargs.pop("line", None)
        return msg, kwargs

    def warning(self, msg: Any, *args: Any, **kwargs: Any) -> None:
        self.debug(msg, *args, **kwargs)


def execute_notebook(
    notebook: NotebookNode,
    path: Path,
    nb_config: NbParserConfig,
    examples: int,
    trusted: Callable[[tuple[LoadedFile, ...]], bool] = lambda _: True,
) -> Execution:
    """Write ``notebook`` to ``path`` and get it executed or served from the cache.

    A cached run is served only if ``trusted`` accepts the files it loaded;
    otherwise its outputs are dropped and the notebook runs again.
    """
    if nb_config.execution_mode == "off":
        return Execution(runs=(None,) * examples, failure=Verdict.NOT_RUN)
    path.parent.mkdir(parents=True, exist_ok=True)
    text: str = nbformat.writes(notebook)  # type: ignore[no-untyped-call]
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
    execution = _execute(notebook, path, nb_config, examples)
    if execution.executed or trusted(execution.loaded):
        return execution
    forget(notebook, nb_config)
    return _execute(notebook, path, nb_config, examples)


def _execute(
    notebook: NotebookNode, path: Path, nb_config: NbParserConfig, examples: int
) -> Execution:
    executed = _cache_record(notebook, nb_config) is None
    started = time.perf_counter()
    try:
        with create_client(notebook, str(path), nb_config, _MystNbLogger(_LOGGER)) as client:
            result = client.notebook
            metadata = client.exec_metadata or {}
    except Exception as error:  # a dead kernel surfaces here (nbclient's DeadKernelError)
        return Execution(
            runs=_read_runs(notebook, examples),
            failure=Verdict.CRASHED,
            failure_detail=f"the kernel died or could not run: {type(error).__name__}: {error}",
            executed=True,
            seconds=time.perf_counter() - started,
        )
    seconds = time.perf_counter() - started
    runs = _read_runs(result, examples)
    last = _finish_record(result)
    execution = Execution(
        runs=runs,
        executed=executed,
        seconds=seconds,
        device=Device.from_json(last.get("device")),
        versions=last.get("versions", {}),
        loaded=_loaded(last),
    )
    if metadata.get("succeeded", True):
        return execution
    error_name = metadata.get("error") or "error"
    timed_out = "Timeout" in error_name
    detail = (
        f"an example ran past the {notebook.metadata['execution']['timeout']} s timeout"
        if timed_out
        else f"the notebook failed to run ({error_name}): {_last_line(metadata.get('traceback'))}"
    )
    return dataclasses.replace(
        execution,
        failure=Verdict.TIMED_OUT if timed_out else Verdict.CRASHED,
        failure_detail=detail,
    )


def _cache_record(notebook: NotebookNode, nb_config: NbParserConfig) -> Any:
    if nb_config.execution_mode != "cache":
        return None
    from jupyter_cache import get_cache

    try:
        return get_cache(nb_config.execution_cache_path).match_cache_notebook(notebook)
    except KeyError:
        return None


def _loaded(finish: dict[str, Any]) -> tuple[LoadedFile, ...]:
    return unpack_loaded(finish.get("loaded", ""))


def unpack_loaded(packed: Any) -> tuple[LoadedFile, ...]:
    """The files :func:`~.in_kernel.loaded_files` packed; () if none."""
    try:
        items = json.loads(zlib.decompress(base64.b64decode(packed)))
        return tuple(LoadedFile.from_json(item) for item in items)
    except (TypeError, ValueError, zlib.error):
        return ()


def forget(notebook: NotebookNode, nb_config: NbParserConfig) -> None:
    """Drop the cached outputs of ``notebook``, if there are any.

    For runs that failed in a way the environment may have caused: the next build
    runs them afresh rather than trusting a stored failure.
    """
    record = _cache_record(notebook, nb_config)
    if record is not None:
        from jupyter_cache import get_cache

        with contextlib.suppress(KeyError):
            get_cache(nb_config.execution_cache_path).remove_cache(record.pk)


def _records(notebook: NotebookNode, role: str) -> dict[int, dict[str, Any]]:
    """The kernel's records from the cells of ``role``, by example index."""
    records: dict[int, dict[str, Any]] = {}
    for cell in notebook.cells:
        metadata = cell.get("metadata", {}).get("flax_errors", {})
        if metadata.get("role") != role:
            continue
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if RESULT_MIME in data:
                records[int(metadata.get("index", 0))] = dict(data[RESULT_MIME])
    return records


def _read_runs(
    notebook: NotebookNode, examples: int
) -> tuple[tuple[StatementRun, ...] | None, ...]:
    records = _records(notebook, "example")
    return tuple(
        tuple(StatementRun.from_json(s) for s in records[i]["statements"])
        if i in records
        else None
        for i in range(examples)
    )


def _finish_record(notebook: NotebookNode) -> dict[str, Any]:
    return _records(notebook, "finish").get(0, {})


def _last_line(text: str | None) -> str:
    lines = [line for line in (text or "").strip().splitlines() if line.strip()]
    return lines[-1] if lines else "no traceback"
