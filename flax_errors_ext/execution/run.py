"""Run every entry of a catalogue module, several kernels at a time.

Each entry gets its own notebook and kernel (see :mod:`~flax_errors_ext.execution.notebook`),
so entries cannot see each other's state; running their kernels side by side changes
nothing about what each one computes, and spares most of the start-up wait.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import TYPE_CHECKING

from flax_errors_ext.execution.dependencies import SourceStates
from flax_errors_ext.execution.execute import (
    Execution,
    execute_notebook,
    forget,
)
from flax_errors_ext.execution.fingerprint import source_hash
from flax_errors_ext.execution.notebook import build_notebook
from flax_errors_ext.execution.processes import stop_kernels
from flax_errors_ext.model.entry_record import entry_record
from flax_errors_ext.model.judge import judge

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from myst_nb.core.config import NbParserConfig

    from flax_errors_ext.model.dependencies import LoadedFile
    from flax_errors_ext.model.discover import ErrorModule
    from flax_errors_ext.model.entry_record import EntryRecord
    from flax_errors_ext.model.fingerprint import Fingerprint
    from flax_errors_ext.model.records import ErrorEntry, ExampleResult


def _besides(loaded: tuple[LoadedFile, ...], module: ErrorModule) -> list[LoadedFile]:
    """The files a run loaded, but the catalogued module's own.

    That one is keyed by its docstring-free code hash already, so that editing
    documentation alone does not run anything again.
    """
    own, name = str(module.path), module.path.name

    def is_own(path: str) -> bool:
        # Resolving links costs a dozen system calls: only for a file of that name.
        return path == own or (os.path.basename(path) == name and os.path.realpath(path) == own)

    return [f for f in loaded if not is_own(f.path)]


def default_jobs() -> int:
    """How many kernels to run at once when not configured: three for every two CPUs.

    More kernels than CPUs, because a kernel spends a fair part of its short life
    waiting on Jupyter's start-up and shutdown handshakes rather than computing
    (``nox -s bench`` shows the difference).
    """
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    cpus = max(1, cpus or 1)
    return cpus + (cpus + 1) // 2


@dataclasses.dataclass(frozen=True)
class RunSettings:
    """What running an entry needs besides the entry: the same for every entry of a run."""

    fingerprint: Fingerprint
    timeout: int
    notebook_dir: Path
    nb_config: NbParserConfig
    sources_store: Path
    """Where the content hashes of loaded Python sources are kept (see
    :class:`~flax_errors_ext.execution.dependencies.SourceStates`)."""

    def sources(self) -> SourceStates:
        """A fresh look at the files runs loaded, for one run (a page, a command)."""
        return SourceStates(self.sources_store)


@dataclasses.dataclass(frozen=True)
class EntryOutcome:
    """An entry, how its notebook ran, and the verdict on each of its examples."""

    entry: ErrorEntry
    execution: Execution
    results: tuple[ExampleResult, ...]

    def record(self, fingerprint: Fingerprint) -> EntryRecord:
        """The entry's ``errors.json`` record."""
        return entry_record(
            self.entry,
            self.results,
            executed=self.execution.executed,
            device=self.execution.device,
            versions=self.execution.versions or fingerprint.version_map,
        )


def check_module(
    module: ErrorModule, settings: RunSettings, sources: SourceStates, *, jobs: int
) -> list[EntryOutcome]:
    """Run (or fetch from the cache) every entry of ``module`` and judge each example.

    Entries without examples come back with an empty execution.
    """
    with entry_pool(jobs) as pool:
        outcomes = [f.result() for f in submit_module(module, settings, sources, pool)]
    sources.save()
    return outcomes


@contextlib.contextmanager
def entry_pool(jobs: int) -> Iterator[ThreadPoolExecutor]:
    """The threads that wait on the entries' kernels, ``jobs`` at a time.

    Interrupted (Ctrl-C, or any error in the waiting thread), it does not wait for
    the running examples: queued entries are dropped, running kernels stopped.
    """
    pool = ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="flax-errors-entry")
    try:
        yield pool
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        stop_kernels()
        raise
    pool.shutdown()


def submit_module(
    module: ErrorModule, settings: RunSettings, sources: SourceStates, pool: Executor
) -> list[Future[EntryOutcome]]:
    """:func:`check_module` on a pool shared with other work: one future per entry.

    A cached run is used only while no file it loaded has changed (see
    :mod:`flax_errors_ext.model.dependencies`); otherwise the entry runs again.
    """
    # The module's code, docstrings aside, shapes what its examples raise.
    keyed = settings.fingerprint.with_source(module.name, source_hash(module.path))

    def check(entry: ErrorEntry) -> EntryOutcome:
        if not entry.examples:
            return EntryOutcome(entry, Execution(runs=()), ())
        notebook = build_notebook(entry, keyed, [module.import_path], settings.timeout)
        path = settings.notebook_dir / f"{entry.qualname}.ipynb"
        execution = execute_notebook(
            notebook,
            path,
            settings.nb_config,
            len(entry.examples),
            trusted=lambda loaded: sources.first_change(_besides(loaded, module)) is None,
        )
        if execution.executed:
            sources.remember(execution.loaded)
        results = tuple(
            judge(example, runs, execution.failure, execution.failure_detail)
            for example, runs in zip(entry.examples, execution.runs, strict=True)
        )
        if any(result.verdict.may_be_transient for result in results):
            forget(notebook, settings.nb_config)
        return EntryOutcome(entry, execution, results)

    return [pool.submit(check, entry) for entry in module.entries]
