"""Run every catalogue entry on this machine's JAX devices and write an errors.json.

For a machine that has JAX and Flax but none of the Jupyter and Sphinx machinery
(a GPU box, say): every entry runs in a fresh forked process of its own, through
doctest's runner as the kernel runs it
(:func:`~flax_errors_ext.execution.runs.in_kernel.run_statements`), and is judged and
recorded by the same model code as the site's build. The document it writes has
the schema of ``errors.json``, with the device and the versions of that machine,
so that a later build can set it beside its own.

Usage, from a checkout of this repository::

    PYTHONPATH=. python tools/other_runs/device_runner.py \
        OUT.json [--jobs N] [NAME...]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from flax_errors_ext.execution.catalogue.modules import load_module
from flax_errors_ext.execution.runs.in_kernel import device_record
from flax_errors_ext.execution.runs.in_process import run_here
from flax_errors_ext.execution.runs.kernel_environment import package_versions
from flax_errors_ext.model.catalogue.records import (
    ErrorEntry,
    ExampleResult,
    StatementRun,
    Verdict,
)
from flax_errors_ext.model.runs.entry_record import EntryRecord, entry_record
from flax_errors_ext.model.runs.fingerprint import Device
from flax_errors_ext.model.runs.judge import judge
from flax_errors_ext.model.runs.report import errors_document, failures, summary_line
from tools.forked import run_forked

MODULES = (
    "flax_errors_ext.errors",
    "flax.errors",
    "jax.errors",
    "flax.messages",
    "jax.messages",
)
"""What ``flax-errors check`` catalogues without a ``conf.py``, so that both make one
catalogue's runs (``nox -s devices -- --merge`` refuses runs of two)."""


def run_entry(entry: ErrorEntry) -> tuple[list[dict[str, Any]], dict[str, Any] | str]:
    """In a fresh child: run one entry's statements; its records and the device."""
    records = run_here(entry.qualname, [s for e in entry.examples for s in e.statements])
    try:
        device: dict[str, Any] | str = device_record()
    except Exception as error:  # the verdicts stand without it
        device = repr(error)
    return records, device


def judged(
    entry: ErrorEntry, records: list[dict[str, Any]] | None, why: str
) -> list[ExampleResult]:
    """Each example's verdict, from the records of all of the entry's statements."""
    results = []
    remaining = [StatementRun.from_json(record) for record in records or []]
    for example in entry.examples:
        count = len(example.statements_run)
        runs, remaining = tuple(remaining[:count]), remaining[count:]
        if records is None:
            results.append(judge(example, None, Verdict.CRASHED, why))
        else:
            results.append(judge(example, runs))
    return results


def main() -> int:
    """Run the catalogue, write the document, print its summary and failures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--jobs", type=int, default=4)
    parser.add_argument("--timeout", type=int, default=300)
    parser.add_argument("names", nargs="*", help="short class names to run (default: all)")
    args = parser.parse_intermixed_args()  # OUT.json --jobs N NAME..., as its usage reads
    # Set before any module imports jax: each process only looks at the device, and
    # none may claim most of its memory.
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    entries = [
        e
        for name in MODULES
        for e in load_module(name).entries
        if e.examples and (not args.names or e.name in args.names)
    ]
    records: list[EntryRecord] = []
    calls = [(run_entry, (entry,)) for entry in entries]
    ran = run_forked(calls, jobs=args.jobs, timeout=args.timeout)
    for entry, outcome in zip(entries, ran, strict=True):
        runs, device = outcome.value or (None, {})
        results = judged(entry, runs, f"the process failed: {outcome.failure}")
        records.append(
            entry_record(
                entry,
                results,
                executed=True,
                device=Device.from_json(device),
                versions=package_versions(),
            )
        )
        print(f"{records[-1].status:<12} {entry.qualname}", file=sys.stderr, flush=True)
    document = errors_document(records, executed=[r.qualname for r in records])
    document["python"] = sys.version.split()[0]
    args.out.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    for record in records:
        for failure in failures(record):
            print(failure, "\n")
    print(f"{summary_line(document)} on {document['device']} with {document['versions']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
