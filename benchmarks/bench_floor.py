"""The isolation floor: every entry's examples through the build's own runner, no Sphinx.

The catalogue runs each error in a fresh process, so that no entry sees another's
state. This measures what that costs by itself, with exactly what a build runs
them with: a :class:`~flax_errors_ext.execution.session.Session`'s
:class:`~flax_errors_ext.execution.runs.runner.Runner` (a process per entry from a
forkserver that imported jax and flax once, the shared compilation cache, the
device probe) and each entry's job as the build makes it, as many at once as a
build runs. No Sphinx, no execution cache, no judging.

Against ``pytest --doctest-modules`` in one process, the difference is JAX's
per-process work: each process starts a backend and lowers every operation its
examples use afresh, where one process lowers each once. ``cold / (floor +
off-cold)`` is then what running the examples inside Sphinx adds.

Run by ``bench_build.py`` as ``python benchmarks/bench_floor.py CATALOGUE_DIR``.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from flax_errors_ext.cli.selection import DEFAULT_MODULES
from flax_errors_ext.execution.catalogue.modules import load_module
from flax_errors_ext.execution.runs.run import default_jobs, entry_pool, run_versions
from flax_errors_ext.execution.session import ExecutionOptions, Session
from flax_errors_ext.model.config import CatalogueConfig
from flax_errors_ext.model.runs.jobs import entry_job

if TYPE_CHECKING:
    from flax_errors_ext.model.runs.jobs import EntryJob


def main() -> None:
    """Run every entry of the catalogue, a process each, as a forced build does."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("catalogue_dir", type=Path)
    parser.add_argument("--jobs", type=int, default=0)
    parser.add_argument(
        "--module",
        action="append",
        help="an error module to run instead of the site's (repeat for several)",
    )
    args = parser.parse_args()
    modules = [
        load_module(name, [args.catalogue_dir]).without_upstream()
        for name in args.module or DEFAULT_MODULES
    ]
    config = CatalogueConfig()
    with (
        tempfile.TemporaryDirectory(prefix="flax-errors-floor-") as work,
        Session(Path(work), config, ExecutionOptions(mode="force", timeout=None)) as session,
    ):
        settings = session.settings()
        jobs: list[EntryJob] = []
        for module in modules:
            for entry in module.entries:
                # As the build: the examples for other versions are set aside.
                versions = run_versions(settings.fingerprint, entry)
                held = tuple(e for e in entry.examples if e.holds(versions))
                if any(not s.skip for e in held for s in e.statements):
                    jobs.append(
                        entry_job(
                            dataclasses.replace(entry, examples=held),
                            None if module.messages else module.name,
                            (module.import_path,) if module.import_path else (),
                            config.output_limit,
                        )
                    )
        with entry_pool(args.jobs or default_jobs(), settings.runner) as pool:
            done = list(pool.map(settings.runner.run, jobs))
    failed = [
        f"{job.qualname}: {d.detail}" for job, d in zip(jobs, done, strict=True) if d.failure
    ]
    if failed:
        raise SystemExit(f"{len(failed)} of {len(jobs)} entries did not run; first: {failed[0]}")
    ran = sum(len(records) for d in done for records in d.examples.values())
    print(f"{len(jobs)} entries, {ran} statements", file=sys.stderr)


if __name__ == "__main__":
    main()
