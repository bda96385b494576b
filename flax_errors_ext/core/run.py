"""Run every entry of a catalogue module, several kernels at a time.

Each entry gets its own notebook and kernel (see :mod:`~flax_errors_ext.core.notebook`),
so entries cannot see each other's state; running their kernels side by side changes
nothing about what each one computes, and spares most of the start-up wait.
"""

from __future__ import annotations

import dataclasses
import os
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from flax_errors_ext.core.execute import Execution, execute_notebook, forget
from flax_errors_ext.core.fingerprint import code_hash
from flax_errors_ext.core.judge import judge
from flax_errors_ext.core.notebook import build_notebook
from flax_errors_ext.core.report import entry_record

if TYPE_CHECKING:
    from pathlib import Path

    from myst_nb.core.config import NbParserConfig

    from flax_errors_ext.core.discover import CatalogueModule
    from flax_errors_ext.core.records import ErrorEntry, ExampleResult


def default_jobs() -> int:
    """How many kernels to run at once when not configured: three for every two CPUs.

    More kernels than CPUs, because a kernel spends a fair part of its short life
    waiting on Jupyter's start-up and shutdown handshakes rather than computing
    (measured on two CPUs: 3 at once builds the site about 8% faster than 2).
    """
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    cpus = max(1, cpus or 1)
    return cpus + (cpus + 1) // 2


@dataclasses.dataclass(frozen=True)
class EntryOutcome:
    """An entry, how its notebook ran, and the verdict on each of its examples."""

    entry: ErrorEntry
    execution: Execution
    results: tuple[ExampleResult, ...]

    def record(self, fingerprint: dict[str, Any]) -> dict[str, Any]:
        """The entry's ``errors.json`` record."""
        return entry_record(
            self.entry,
            list(self.results),
            executed=self.execution.executed,
            device=self.execution.device,
            versions=self.execution.versions or fingerprint["versions"],
        )


def check_module(
    module: CatalogueModule,
    fingerprint: dict[str, Any],
    *,
    timeout: int,
    notebook_dir: Path,
    nb_config: NbParserConfig,
    jobs: int,
) -> list[EntryOutcome]:
    """Run (or fetch from the cache) every entry of ``module`` and judge each example.

    The Sphinx build comes here and the command line to :func:`submit_module`, so
    they always agree. Entries without examples come back with an empty execution.
    """
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = submit_module(
            module,
            fingerprint,
            timeout=timeout,
            notebook_dir=notebook_dir,
            nb_config=nb_config,
            pool=pool,
        )
        return [future.result() for future in futures]


def submit_module(
    module: CatalogueModule,
    fingerprint: dict[str, Any],
    *,
    timeout: int,
    notebook_dir: Path,
    nb_config: NbParserConfig,
    pool: Executor,
) -> list[Future[EntryOutcome]]:
    """:func:`check_module` on a pool shared with other work: one future per entry."""
    # The module's code, docstrings aside, shapes what its examples raise.
    keyed = dict(
        fingerprint, sources={**fingerprint["sources"], module.name: code_hash(module.path)}
    )

    def check(entry: ErrorEntry) -> EntryOutcome:
        if not entry.examples:
            return EntryOutcome(entry, Execution(runs=()), ())
        notebook = build_notebook(entry, keyed, [module.import_path], timeout)
        path = notebook_dir / f"{entry.qualname}.ipynb"
        execution = execute_notebook(notebook, path, nb_config, len(entry.examples))
        results = tuple(
            judge(example, runs, execution.failure, execution.failure_detail)
            for example, runs in zip(entry.examples, execution.runs, strict=True)
        )
        if any(result.verdict.may_be_transient for result in results):
            forget(notebook, nb_config)
        return EntryOutcome(entry, execution, results)

    return [pool.submit(check, entry) for entry in module.entries]
