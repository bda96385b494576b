"""Run every catalogue entry's bad examples on the Flax installed here; write the record.

Runs inside one release's venv (``nox -s history`` makes one per release), which
holds that release's flax, jax and jaxlib and nothing of this project but
``packaging``: the repository goes on ``sys.path`` and only modules of it that
import the standard library alone are used (:data:`OURS`: the catalogue's parser,
the judge, the history model and the site's runner); the script checks that
importing them loaded no jax, flax or numpy.
``flax_errors_ext/__init__.py`` imports only the runtime hook, which imports jax
when it is installed, not before.

An entry's bad examples run as the site runs an entry's examples: through the
:class:`~flax_errors_ext.execution.runs.runner.Runner`, in a fresh process of their
own with a timeout, and judged by :func:`~flax_errors_ext.model.runs.judge.judge`;
an entry that hangs or crashes is recorded as such and the next one runs.

Before it runs, an example gets the substitutions of ``--rewrites``
(``rewrites.toml`` by default) whose version bounds take in the installed Flax,
and its record lists those it ran with.

Usage::

    python tools/history/release_runner.py \
        --catalogue DIR --out FILE [--only NAME...]

``DIR`` is a catalogue folder named after the module (``.../catalogue/flax.errors``).
``FILE`` receives the release's record (the ``releases`` item of ``flax.json``).
Ctrl-C writes the entries done so far and exits with 130.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import importlib
import importlib.metadata
import json
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from types import ModuleType

    from flax_errors_ext.execution.runs.runner import RawRun, Runner
    from flax_errors_ext.model.catalogue.records import ErrorEntry, Example, ExampleResult
    from flax_errors_ext.model.history.releases import EntryRun
    from tools.history.rewrites import Rule

REPO = Path(__file__).resolve().parents[2]
REWRITES = REPO / "flax_errors_ext" / "history" / "rewrites.toml"
OUTPUT_LIMIT = 4000
"""The characters of an exception's text that are kept (head and tail around a marker)."""
NOT_LOADED_BY_US = ("jax", "jaxlib", "flax", "numpy")
OURS = (
    "flax_errors_ext.model.catalogue.parse",
    "flax_errors_ext.model.catalogue.conditions",
    "flax_errors_ext.model.history.releases",
    "flax_errors_ext.model.runs.judge",
    "flax_errors_ext.model.runs.tracebacks",
    "flax_errors_ext.ext.history.model.cells",
    "flax_errors_ext.model.runs.jobs",
    "flax_errors_ext.execution.runs.runner",
    "flax_errors_ext.execution.runs.in_process",
    "tools.history.rewrites",
)
"""Every module of this repository the runner and its processes use: each imports the
standard library and ``packaging`` alone, whatever jax and flax the release has."""


def main() -> int:
    """Run the chosen entries and write the release's record."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--catalogue", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--only", nargs="*", default=None, help="class names (default: all)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per example")
    parser.add_argument(
        "--rewrites", type=Path, default=REWRITES, help="the substitutions for old APIs"
    )
    parser.add_argument("--label", default="", help="what progress lines start with")
    parser.add_argument(
        "--later-seconds",
        type=float,
        default=None,
        help="how long the later releases of this run are expected to take",
    )
    parser.add_argument(
        "--entries-after",
        type=int,
        default=0,
        help="without --later-seconds: the entries later releases will run, at this pace",
    )
    args = parser.parse_args()
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    entries = read_catalogue(args.catalogue, args.only)
    module = importlib.import_module(args.catalogue.name)
    from flax_errors_ext.execution.runs.runner import Runner
    from flax_errors_ext.model.history.releases import Release, ReleaseRun
    from flax_errors_ext.model.runs.fingerprint import Device

    versions = {name: _version(name) for name in ("flax", "jax", "jaxlib")}
    with contextlib.closing(Runner(timeout=args.timeout, env=traceback_filtering())) as runner:
        device = runner.probe()
        release = Release(
            versions["flax"],
            versions["jax"],
            versions["jaxlib"],
            sys.version.split()[0],
            device if isinstance(device, Device) else None,
        )
        classes = exception_classes(module)
        rules = read_rules(args.rewrites, release.flax)
        for rule in rules:
            print(f"{args.label or 'flax ' + release.flax}: rewriting {rule}", file=sys.stderr)
        done: dict[str, EntryRun] = {}
        progress = Progress(args.label, len(entries), args.later_seconds, args.entries_after)
        try:
            for entry in entries:
                done[entry.name] = run_entry(
                    entry, module, runner, rules, {**versions, "python": release.python}
                )
                progress.step(entry.name, done[entry.name])
        except KeyboardInterrupt:
            write(args.out, ReleaseRun(release, tuple(classes), done, progress.pace).to_json())
            print(f"interrupted: {len(done)} entries written to {args.out}", file=sys.stderr)
            return 130
    write(args.out, ReleaseRun(release, tuple(classes), done, progress.pace).to_json())
    return 0


def read_catalogue(folder: Path, only: list[str] | None) -> list[ErrorEntry]:
    """The folder's entries (one per ``<Class>.txt``), or those named in ``only``."""
    load_ours()
    from flax_errors_ext.model.catalogue.parse import parse_docstring

    entries = []
    for path in sorted(folder.glob("*.txt")):
        if only is not None and path.stem not in only:
            continue
        entry = parse_docstring(
            path.read_text("utf-8"), f"{folder.name}.{path.stem}", str(path), 1
        )
        for problem in entry.problems:
            print(f"warning: {problem}", file=sys.stderr)
        entries.append(entry)
    return entries


def read_rules(path: Path, flax: str) -> tuple[Rule, ...]:
    """The rules of the table at ``path`` made on Flax ``flax``."""
    from tools.history.rewrites import parse_rules, rules_for

    return rules_for(parse_rules(path.read_text("utf-8")), flax)


def load_ours() -> None:
    """Import the modules of this repository the runner uses, and check what they loaded.

    Before the release's jax and flax are imported: none of ours may import them (or
    numpy), since they are written for the newest jax and this may be an old one.
    The entries' processes import the runner's side of a run
    (:mod:`~flax_errors_ext.execution.runs.in_process`) too.
    """
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    before = {name for name in NOT_LOADED_BY_US if name in sys.modules}
    for name in OURS:
        importlib.import_module(name)
    loaded = sorted(name for name in NOT_LOADED_BY_US if name in sys.modules)
    if set(loaded) - before:
        raise SystemExit(f"importing flax_errors_ext loaded {loaded}; the runner must not")


def traceback_filtering() -> dict[str, str]:
    """What the entries' processes set so that JAX's tracebacks read as on the site.

    The runner's processes give JAX plain Python's "auto" (``quiet_remove_frames``)
    where JAX_TRACEBACK_FILTERING leaves it "auto". jax 0.4.13 lacks that mode (it
    takes it without a word, then fails an assertion in every traceback) but adds no
    note to exception messages either: there JAX keeps its own "auto", which in a
    plain process is ``remove_frames``, and naming that value tells the processes so.
    """
    import jax
    from jax._src import traceback_util

    if "quiet_remove_frames" in Path(traceback_util.__file__).read_text("utf-8"):
        return {}
    print(f"jax {jax.__version__}: its own traceback filtering", file=sys.stderr)
    return {"JAX_TRACEBACK_FILTERING": "remove_frames"}


def exception_classes(module: ModuleType) -> list[str]:
    """The public exception classes the module defines."""
    return sorted(
        name
        for name, value in vars(module).items()
        if not name.startswith("_")
        and isinstance(value, type)
        and issubclass(value, BaseException)
        and value.__module__ == module.__name__
    )


def run_entry(
    entry: ErrorEntry,
    module: ModuleType,
    runner: Runner,
    rules: Sequence[Rule] = (),
    versions: Mapping[str, str] | None = None,
) -> EntryRun:
    """Whether the module has the entry's class, and what each bad example did.

    The bad examples run in one process of ``runner``'s, each with ``rules`` made in
    its code; its record lists those that changed it. One whose ``:holds for:`` line
    does not admit the release's ``versions`` is not run, and its record says so.
    """
    from flax_errors_ext.ext.history.model.cells import bad_examples, example_run
    from flax_errors_ext.model.catalogue.conditions import describe, versions_named
    from flax_errors_ext.model.catalogue.records import Verdict
    from flax_errors_ext.model.history.releases import EntryRun
    from flax_errors_ext.model.runs.jobs import entry_job
    from flax_errors_ext.model.runs.judge import judge
    from flax_errors_ext.model.runs.tracebacks import import_roots
    from tools.history.rewrites import rewrite

    cls = getattr(module, entry.name, None)
    present = isinstance(cls, type) and issubclass(cls, BaseException)
    examples = bad_examples(entry)
    holds = [versions is None or example.holds(versions) for example in examples]
    held = [example for example, runs_here in zip(examples, holds, strict=True) if runs_here]
    rewritten = [rewrite(example, rules) for example in held]
    judged: list[ExampleResult] = []
    if held:
        runnable = dataclasses.replace(entry, examples=tuple(code for code, _ in rewritten))
        done = runner.run(entry_job(runnable, module.__name__, output_limit=OUTPUT_LIMIT))
        # The catalogue's examples are judged: their documented texts are the same, and
        # their record hashes their code.
        judged = _judged(held, done)
    results = zip(judged, (made for _, made in rewritten), strict=True)
    roots = import_roots()
    records = []
    for example, runs_here in zip(examples, holds, strict=True):
        if versions is not None and not runs_here:
            why = (
                f"it holds for {describe(example.holds_for)}, and this release has "
                f"{versions_named(example.holds_for, versions)}"
            )
            records.append(example_run(judge(example, None, Verdict.OTHER_VERSIONS, why)))
        else:
            # The record hashes the catalogue's code, and lists what was changed in it.
            result, made = next(results)
            records.append(dataclasses.replace(example_run(result, roots), rewritten=made))
    return EntryRun(present, tuple(records))


def _judged(examples: Sequence[Example], done: RawRun) -> list[ExampleResult]:
    """Each example's verdict from what its process sent, or from how the process ended."""
    from flax_errors_ext.model.runs.judge import judge

    ran = done.execution(len(examples))
    return [
        judge(example, runs, ran.failure, ran.failure_detail)
        for example, runs in zip(examples, ran.runs, strict=True)
    ]


class Progress:
    """One line per entry: where the run is and about how long is left."""

    def __init__(self, label: str, total: int, later: float | None, after: int) -> None:
        self.label = label
        self.total = total
        self.later = later
        """The seconds later releases will take; None: ``after`` entries at this pace."""
        self.after = after
        self.done = 0
        self.started = time.monotonic()

    @property
    def pace(self) -> float:
        """The seconds an entry has taken here so far."""
        return (time.monotonic() - self.started) / self.done if self.done else 0.0

    def step(self, name: str, entry: EntryRun) -> None:
        """Report one more entry done."""
        self.done += 1
        left = self.pace * (self.total - self.done)
        left += self.later if self.later is not None else self.pace * self.after
        outcomes = ", ".join(e.outcome.value for e in entry.examples) or "no bad example"
        absent = "" if entry.present else " (not in this release)"
        print(
            f"{self.label} · {self.done}/{self.total} entries · about {_duration(left)} left"
            f" · {name}{absent}: {outcomes}",
            file=sys.stderr,
            flush=True,
        )


def _duration(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest:02d} s" if minutes else f"{rest} s"


def _version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def write(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` as JSON, atomically."""
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", "utf-8")
    os.replace(temporary, path)


if __name__ == "__main__":
    sys.exit(main())
