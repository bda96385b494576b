"""The isolation floor: every entry's examples in a process of its own, without Jupyter.

The catalogue runs each error in a fresh process, so that no entry sees another's
state. This measures what that isolation costs by itself: one process imports what
the warm kernel server imports and the catalogued modules (as each kernel imports
its entries' module), then forks a child per entry that runs the entry's
examples through doctest (as the kernel does) with the same shared compilation
cache, as many at once as the build runs kernels. No Jupyter, no Sphinx.

Against ``pytest --doctest-modules`` in one process, the difference is JAX's
per-process work: each child starts a backend and lowers every operation its
examples use afresh, where one process lowers each once. ``cold / floor`` is then
what Jupyter and Sphinx add on top.

Run by ``bench_build.py`` as ``python benchmarks/bench_floor.py CATALOGUE_DIR``.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from flax_errors_ext.cli.project import DEFAULT_MODULES
from flax_errors_ext.execution.catalogue.modules import load_module
from flax_errors_ext.execution.fork_server.preload import preload
from flax_errors_ext.execution.runs.in_process import run_here
from flax_errors_ext.execution.runs.kernelspec import compilation_cache_env
from flax_errors_ext.execution.runs.run import default_jobs
from tools.forked import run_forked

if TYPE_CHECKING:
    from flax_errors_ext.model.catalogue.records import Statement


def run_entry(name: str, statements: list[Statement]) -> int:
    """Run one entry's statements in this (fresh) process; how many ran."""
    return len(run_here(name, statements))


def main() -> None:
    """Run every entry of the catalogue, one forked process each."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("catalogue_dir", type=Path)
    parser.add_argument("--jobs", type=int, default=0)
    parser.add_argument(
        "--module",
        action="append",
        help="an error module to run instead of the site's (repeat for several)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="flax-errors-floor-") as cache:
        # The forked workers are this process's children: its environment is theirs.
        os.environ.update(compilation_cache_env(Path(cache)))
        preload()
        gc.freeze()  # as the kernel server does before it forks
        entries = []
        for module_name in args.module or DEFAULT_MODULES:
            module = load_module(module_name, [args.catalogue_dir]).without_upstream()
            for entry in module.entries:
                statements = [s for example in entry.examples for s in example.statements]
                if any(not s.skip for s in statements):
                    entries.append((entry.qualname, statements))
        calls = [(run_entry, entry) for entry in entries]
        outcomes = list(run_forked(calls, jobs=args.jobs or default_jobs()))
    failed = [o.failure for o in outcomes if o.failure]
    if failed:
        raise SystemExit(f"{len(failed)} of {len(calls)} entries did not run; first: {failed[0]}")
    ran = sum(o.value for o in outcomes)
    print(f"{len(entries)} entries, {ran} statements", file=sys.stderr)


if __name__ == "__main__":
    main()
