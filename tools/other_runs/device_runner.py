"""Run every catalogue entry on this machine's JAX devices and write an errors.json.

``flax-errors check --json`` into a file, for a checkout on a machine that has JAX and
Flax but not myst-nb or Sphinx (a GPU box, say): the same project (``conf.py``
here), the same run (:func:`~flax_errors_ext.cli.runs.commands.run_entries`, without
a cache: examples for other versions set aside, one process reused where the device
is an accelerator) and the same document, with the device and the versions of that
machine, so that a later build can set it beside its own.

Usage, from a checkout of this repository::

    PYTHONPATH=. python tools/other_runs/device_runner.py \
        OUT.json [--jobs N] [--timeout S] [NAME...]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from flax_errors_ext.cli.runs.commands import run_entries
from flax_errors_ext.cli.selection import UsageError, load, select
from flax_errors_ext.model.runs.report import failures, summary_line

if TYPE_CHECKING:
    from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Run the catalogue, write the document, print its failures and summary."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--jobs", type=int, help="entries at once (default: one per CPU)")
    parser.add_argument("--timeout", type=int, help="seconds per example (default: conf.py's)")
    parser.add_argument("names", nargs="*", help="class names to run (default: all)")
    args = parser.parse_intermixed_args(argv)  # OUT.json --jobs N NAME..., as its usage reads
    found = argparse.Namespace(
        conf=None, catalogue_dir=None, modules=None, strict=None, **vars(args)
    )
    try:
        chosen = select(load(found), args.names)
    except UsageError as error:
        parser.error(str(error))
    with tempfile.TemporaryDirectory(prefix="flax-errors-devices-") as cache:
        checked = run_entries(chosen, argparse.Namespace(cache_dir=cache, no_cache=True))
    document = checked.document()
    args.out.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    config = chosen.project.config
    for outcome in checked.outcomes:
        record = outcome.record(checked.fingerprint)
        for failure in failures(record, strict=config.strict, upstream=config.upstream):
            print(failure, "\n")
    print(f"{summary_line(document)} on {document['device']} with {document['versions']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
