"""The catalogue's kernel client against myst-nb's executor, per notebook, side by side.

Entries run through the run's :class:`~flax_errors_ext.execution.runs.kernels.Kernels`,
not through ``myst_nb.core.execute.create_client``. This measures why, on the same
light entries' notebooks in the same session (the ``flax-errors`` kernelspec, the
warm kernel server that forks each kernel with jax and flax imported, the shared
compilation cache), in interleaved rounds, as many at once as a build runs:

* ``ours``: the session's kernels, kept from notebook to notebook, each
  notebook's examples in a process its kernel forks for it;
* ``myst-nb``: myst-nb's own client (``nb_execution_mode = "force"``), which
  nbclient drives: a kernel per notebook, whose readiness wait ends with a fixed
  0.2 s wait for stray IOPub messages, shut down in order;
* cache hits: myst-nb's client in ``cache`` mode opens the cache (a database
  engine) per notebook; ours looks each notebook up in one cache the build keeps.

Run it as ``python benchmarks/bench_executor.py`` (``--notebooks N --rounds R``);
``bench_build.py`` runs it and prints its line.
"""

from __future__ import annotations

import argparse
import copy
import json
import logging
import statistics
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

import nbformat
from jupyter_cache import get_cache
from myst_nb.core.config import NbParserConfig
from myst_nb.core.execute import create_client

from flax_errors_ext.execution.runs.kernel_environment import package_versions
from flax_errors_ext.execution.runs.kernelspec import KERNELSPEC
from flax_errors_ext.execution.runs.notebook import KERNEL_MODULE
from flax_errors_ext.execution.runs.run import default_jobs
from flax_errors_ext.execution.session import Session, open_cache_database
from flax_errors_ext.model.config import CatalogueConfig

if TYPE_CHECKING:
    from collections.abc import Callable

    from nbformat import NotebookNode

    from flax_errors_ext.execution.runs.kernels import Kernels


class _MystNbLogger(logging.LoggerAdapter[logging.Logger]):
    """A logger as myst-nb's clients call it (``subtype=`` and all): said nowhere."""

    def process(self, msg: Any, kwargs: Any) -> tuple[Any, Any]:
        return msg, {"extra": kwargs.get("extra")}


_LOGGER = _MystNbLogger(logging.getLogger("bench_executor"), {})


def _notebook(number: int) -> NotebookNode:
    """A light entry's notebook: two examples (an import, an array; a value)."""
    fingerprint = json.dumps({"versions": package_versions()})
    bad = [(0, "import jax.numpy as jnp\n"), (1, f"x = jnp.ones(3) + {number}\n")]
    sources = [
        f"from {KERNEL_MODULE} import begin, finish, run_example\n"
        f"begin({fingerprint!r}, [], None)\n"
        f"run_example('light{number}', 3, {bad!r})\n",
        f"run_example('light{number}', 3, [(2, 'float(x.sum())\\n')])\nfinish()\n",
    ]
    cells = [nbformat.v4.new_code_cell(source) for source in sources]  # type: ignore[no-untyped-call]
    notebook: NotebookNode = nbformat.v4.new_notebook(cells=cells)  # type: ignore[no-untyped-call]
    notebook.metadata["kernelspec"] = dict(KERNELSPEC)
    return notebook


def _ours(kernels: Kernels) -> Callable[[NotebookNode, Path], None]:
    def run(notebook: NotebookNode, path: Path) -> None:
        ran = copy.deepcopy(notebook)
        kernels.run(ran, path.parent, timeout=60, output=path.with_suffix(".log"))

    return run


def _theirs(nb_config: NbParserConfig) -> Callable[[NotebookNode, Path], None]:
    def run(notebook: NotebookNode, path: Path) -> None:
        with create_client(copy.deepcopy(notebook), str(path), nb_config, _LOGGER) as client:
            if client.exec_metadata is None or not client.exec_metadata["succeeded"]:
                raise RuntimeError(f"myst-nb's client did not run {path}")

    return run


def _seconds(run: Callable[[NotebookNode, Path], None], jobs: list[tuple[Any, Path]]) -> float:
    """Wall seconds per notebook of running every job, as many at once as a build does."""
    started = time.perf_counter()
    with ThreadPoolExecutor(default_jobs()) as pool:
        list(pool.map(lambda job: run(*job), jobs))
    return (time.perf_counter() - started) / len(jobs)


def _hits(nb_config: NbParserConfig, jobs: list[tuple[Any, Path]]) -> tuple[float, float]:
    """Seconds per cache hit, one after another: myst-nb's client, then ours.

    The cache is filled one notebook at a time: myst-nb's client, run from several
    threads, can drop another thread's record (jupyter-cache's writes are not whole;
    the build holds a lock around each).
    """
    open_cache_database(Path(str(nb_config.execution_cache_path)))
    run = _theirs(nb_config)
    for job in jobs:
        run(*job)
    started = time.perf_counter()
    for job in jobs:
        run(*job)
    theirs = (time.perf_counter() - started) / len(jobs)
    started = time.perf_counter()
    cache = get_cache(str(nb_config.execution_cache_path))  # one kept cache, as the build's
    for notebook, _ in jobs:
        cache.get_cache_bundle(cache.match_cache_notebook(notebook).pk)
    return theirs, (time.perf_counter() - started) / len(jobs)


def main(notebooks: int, rounds: int) -> str:
    """Measure; the figures as one line."""
    with tempfile.TemporaryDirectory(prefix="flax-errors-executor-") as tmp:
        folder = Path(tmp)
        config = CatalogueConfig()
        with Session(folder / "work", config, NbParserConfig()) as session:
            session.prepare()
            server = session.start_server()
            if server is not None:
                server.probe_device()  # the server forks kernels from here on
            jobs = []
            for number in range(notebooks):
                notebook = _notebook(number)
                path = folder / "notebooks" / f"n{number}.ipynb"
                path.parent.mkdir(parents=True, exist_ok=True)
                text: str = nbformat.writes(notebook)  # type: ignore[no-untyped-call]
                path.write_text(text, encoding="utf-8")
                jobs.append((notebook, path))
            force = NbParserConfig(execution_mode="force", execution_timeout=60)
            _ours(session.kernels)(*jobs[0])  # untimed: the compilation cache, the imports
            _theirs(force)(*jobs[0])
            ours: list[float] = []
            theirs: list[float] = []
            for _ in range(rounds):
                ours.append(_seconds(_ours(session.kernels), jobs))
                theirs.append(_seconds(_theirs(force), jobs))
            cache = NbParserConfig(
                execution_mode="cache", execution_cache_path=str(folder / "cache")
            )
            their_hit, our_hit = _hits(cache, jobs)
    ran_ours, ran_theirs = statistics.median(ours), statistics.median(theirs)
    return (
        f"executor, {notebooks} light notebooks x {rounds} rounds, {default_jobs()} at once: "
        f"ours {ran_ours * 1000:.0f} ms, myst-nb's {ran_theirs * 1000:.0f} ms per notebook "
        f"(x{ran_theirs / ran_ours:.2f}); a cache hit: ours {our_hit * 1000:.1f} ms, "
        f"myst-nb's {their_hit * 1000:.1f} ms (x{their_hit / our_hit:.2f})"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notebooks", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    arguments = parser.parse_args()
    print(main(arguments.notebooks, arguments.rounds))
