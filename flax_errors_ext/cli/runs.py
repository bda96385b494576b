"""``flax-errors check`` and ``flax-errors update``: run the examples, then judge or fix.

Every entry is submitted to one pool (:func:`~flax_errors_ext.core.run.submit_module`),
several at a time, so that each can be reported the moment it finishes; every entry
still gets a kernel of its own, exactly as in the site's build.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flax_errors_ext.cli.catalogue import load, select
from flax_errors_ext.cli.parser import ExitCode
from flax_errors_ext.core import update
from flax_errors_ext.core.fingerprint import build_fingerprint
from flax_errors_ext.core.kernels import kernel_environment
from flax_errors_ext.core.report import (
    catalogue,
    coverage_line,
    entry_status,
    failures,
)
from flax_errors_ext.core.run import EntryOutcome, default_jobs, submit_module

if TYPE_CHECKING:
    import argparse

    from flax_errors_ext.cli.catalogue import Catalogue

NOTEBOOK_DIR = "notebooks"
"""Where, inside the cache directory, each entry's notebook is written before it runs."""
DEVICE_PROBE = "device.json"


@dataclasses.dataclass(frozen=True)
class Checked:
    """The outcome of every selected entry, in catalogue order, and what keyed the runs."""

    outcomes: list[EntryOutcome]
    fingerprint: dict[str, Any]

    def document(self) -> dict[str, Any]:
        """The errors.json document of these outcomes."""
        records = [outcome.record(self.fingerprint) for outcome in self.outcomes]
        executed = [o.entry.qualname for o in self.outcomes if o.execution.executed]
        return catalogue(records, executed=executed)


def run_entries(chosen: Catalogue, args: argparse.Namespace) -> Checked:
    """Run (or fetch from the cache) every entry of ``chosen``, reporting progress.

    Progress goes to standard error, one line per entry as it finishes.
    """
    from myst_nb.core.config import NbParserConfig

    cache_dir = Path(args.cache_dir).resolve()
    mode = "force" if args.no_cache else "cache"
    nb_config = NbParserConfig(execution_mode=mode, execution_cache_path=str(cache_dir))
    if mode == "cache":
        from jupyter_cache import get_cache

        # Creates the database now, before the worker threads race to.
        get_cache(str(cache_dir)).list_cache_records()

    pairs = [(module, entry) for module in chosen.modules for entry in module.entries]
    done: dict[str, EntryOutcome] = {}
    width = len(str(len(pairs)))
    warm = args.warm_kernels and any(entry.examples for _, entry in pairs)
    with (
        kernel_environment(
            cache_dir, warm=warm, compilation_cache=True, linger=args.keep_kernel_server
        ) as server,
        ThreadPoolExecutor(max_workers=args.jobs or default_jobs()) as pool,
    ):
        # The device probe's answer is kept next to the cache, keyed on the machine's
        # device inventory, so that a rerun with everything cached need not start JAX.
        fingerprint = build_fingerprint(
            probe_cache=cache_dir / DEVICE_PROBE, probe=server.probe_device if server else None
        )
        if "error" in fingerprint["device"]:
            print(f"warning: {fingerprint['device']['error']}", file=sys.stderr)
        futures = [
            future
            for module in chosen.modules
            for future in submit_module(
                module,
                fingerprint,
                timeout=args.timeout,
                notebook_dir=cache_dir / NOTEBOOK_DIR,
                nb_config=nb_config,
                pool=pool,
            )
        ]
        for count, future in enumerate(as_completed(futures), 1):
            outcome = future.result()
            done[outcome.entry.qualname] = outcome
            print(f"[{count:>{width}}/{len(pairs)}] {_progress(outcome)}", file=sys.stderr)
    return Checked([done[entry.qualname] for _, entry in pairs], fingerprint)


def _progress(outcome: EntryOutcome) -> str:
    status = entry_status(list(outcome.results), outcome.entry.problems, outcome.entry)
    if not outcome.entry.examples:
        how = "no examples"
    elif outcome.execution.executed:
        how = f"ran in {outcome.execution.seconds:.1f} s"
    else:
        how = "from the cache"
    return f"{status:<12} {outcome.entry.qualname} ({how})"


def check_command(args: argparse.Namespace) -> int:
    """Run the chosen entries, print every failure with its diff; 1 if any failed."""
    chosen = select(load(args), args.names)
    document = run_entries(chosen, args).document()
    failed = 0
    lines = []
    for record in document["entries"]:
        for failure in failures(record):
            lines.append(f"{failure.location}: [flax-errors.{failure.subtype}] {failure.message}")
            failed += 1
        if record["status"] == "undocumented":
            lines.append(
                f"{record['source']}: [flax-errors.undocumented] {record['qualname']} has no "
                "examples; add 'Bad example:' and 'Good example:' sections"
            )
            failed += 1 if args.strict else 0
    if args.json:
        print(json.dumps(document, indent=2))
    else:
        for line in lines:
            print(line.rstrip("\n") + "\n")
        print(_summary(document))
    return ExitCode.FAILED if failed else ExitCode.OK


def _summary(document: dict[str, Any]) -> str:
    total = document["summary"]["entries"]
    counts = ", ".join(
        f"{count} {status}" for status, count in document["summary"].items() if status != "entries"
    )
    ran = len(document["executed"])
    return (
        f"flax-errors: {total} error{'' if total == 1 else 's'}: {counts or 'none'}; "
        f"{ran} ran now, {total - ran} from the cache or without examples\n"
        f"flax-errors coverage: {coverage_line(document['coverage'])}"
    )


def update_command(args: argparse.Namespace) -> int:
    """Rewrite drifted documented text from the runs, bottom-up and atomically."""
    chosen = select(load(args), args.names)
    # Read before the examples run: a file edited meanwhile must not be overwritten.
    sources = {
        path: update.SourceFile.read(path)
        for path in sorted(
            {s.location.path for e in chosen.entries for x in e.examples for s in x.statements}
        )
    }
    checked = run_entries(chosen, args)
    edits, skips = update.plan(r for o in checked.outcomes for r in o.results)
    skipped = [str(s) for s in skips] + [
        f"{problem}: malformed; fix the format by hand"
        for outcome in checked.outcomes
        for problem in outcome.entry.problems
    ]
    refused: list[str] = []
    new_texts: dict[str, str] = {}
    for path in sorted({edit.location.path for edit in edits}):
        source = sources.get(path) or update.SourceFile.read(path)
        sources[path] = source
        mine = [edit for edit in edits if edit.location.path == path]
        try:
            new_text = update.apply(source.text, mine, python=path.endswith(".py"))
        except update.UpdateError as error:
            refused.append(str(error))
            continue
        if new_text != source.text:
            new_texts[path] = new_text
            print(source.diff(new_text, _label(path)), end="")
    written: set[str] = set()
    if not args.dry_run:
        for path, new_text in new_texts.items():
            try:
                update.write(sources[path], new_text)
            except update.ConcurrentEditError as error:
                refused.append(str(error))
            else:
                written.add(path)
    for line in skipped:
        print(f"cannot update {line}", file=sys.stderr)
    for line in refused:
        print(f"refused: {line}", file=sys.stderr)
    files = set(new_texts) if args.dry_run else written
    statements = sum(1 for e in edits if e.location.path in files)
    verb = "would update" if args.dry_run else "updated"
    print(f"flax-errors: {verb} {statements} statement(s) in {len(files)} file(s)")
    if refused:
        return ExitCode.REFUSED
    if skipped or (args.dry_run and new_texts):
        return ExitCode.FAILED
    return ExitCode.OK


def _label(path: str) -> str:
    """``path`` relative to the current directory when it is below it, for the diff."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return path if os.path.isabs(path) else str(Path(path).resolve())
