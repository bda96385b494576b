"""Run every catalogue entry's bad examples on the Flax installed here; write the record.

Runs inside one release's venv (``nox -s history`` makes one per release), which
holds that release's flax, jax and jaxlib and nothing of this project: the
repository goes on ``sys.path`` and only modules of it that import the standard
library alone are used (the catalogue's parser, the history model and
:func:`~flax_errors_ext.execution.runs.in_kernel.run_statements`); the script checks that
importing them loaded no jax, flax or numpy. ``flax_errors_ext/__init__.py`` imports
only the runtime hook, which imports jax when it is installed, not before.

Each bad example runs through doctest's runner, as the site runs it, in a process
forked for it alone, in a fresh namespace and an empty working directory, with a
timeout: one that hangs or crashes is recorded as such and the next one runs.
Flax and jax are imported once, before the forks; no JAX backend is started in
the parent (the device is asked for in a child of its own).

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

    from flax_errors_ext.model.catalogue.records import ErrorEntry, Example
    from flax_errors_ext.model.history.releases import EntryRun
    from tools.history.rewrites import Rule

REPO = Path(__file__).resolve().parents[2]
REWRITES = REPO / "flax_errors_ext" / "history" / "rewrites.toml"
OUTPUT_LIMIT = 4000
"""The characters of an exception's text that are kept (head and tail around a marker)."""
NOT_LOADED_BY_US = ("jax", "jaxlib", "flax", "numpy")


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
    module = import_module(args.catalogue.name)
    from flax_errors_ext.model.history.releases import Release, ReleaseRun
    from flax_errors_ext.model.runs.fingerprint import Device
    from tools.forked import run_forked

    versions = {name: _version(name) for name in ("flax", "jax", "jaxlib")}
    release = Release(
        versions["flax"],
        versions["jax"],
        versions["jaxlib"],
        sys.version.split()[0],
        Device.from_json(next(run_forked([(_device, ())], timeout=args.timeout)).value),
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
                entry, module, args.timeout, rules, {**versions, "python": release.python}
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
    """
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    before = {name for name in NOT_LOADED_BY_US if name in sys.modules}
    for name in (
        "flax_errors_ext.model.catalogue.parse",
        "flax_errors_ext.model.history.releases",
        "tools.history.rewrites",
        "flax_errors_ext.model.runs.fingerprint",
        "flax_errors_ext.model.runs.tracebacks",
        "flax_errors_ext.execution.runs.in_kernel",
        "tools.forked",
    ):
        importlib.import_module(name)
    loaded = sorted(name for name in NOT_LOADED_BY_US if name in sys.modules)
    if set(loaded) - before:
        raise SystemExit(f"importing flax_errors_ext loaded {loaded}; the runner must not")


def import_module(name: str) -> ModuleType:
    """Import the release's error module, with JAX's tracebacks as the site sees them."""
    import jax
    from jax._src import traceback_util

    # As in_kernel.begin does (plain Python's "auto"). jax 0.4.13 lacks the mode (and
    # takes it without a word, then fails an assertion in every traceback), but adds
    # no note to exception messages either: its default stays.
    if "quiet_remove_frames" in Path(traceback_util.__file__).read_text("utf-8"):
        jax.config.update("jax_traceback_filtering", "quiet_remove_frames")  # type: ignore[no-untyped-call]
    else:
        print(f"jax {jax.__version__}: its own traceback filtering", file=sys.stderr)
    return importlib.import_module(name)


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
    timeout: float,
    rules: Sequence[Rule] = (),
    versions: Mapping[str, str] | None = None,
) -> EntryRun:
    """Whether the module has the entry's class, and what each bad example did.

    Each example runs with ``rules`` made in its code; its record lists those that
    changed it. One whose ``:holds for:`` line does not admit the release's
    ``versions`` is not run, and its record says so.
    """
    from flax_errors_ext.ext.history.model.example_runs import bad_examples, judge_run
    from flax_errors_ext.model.catalogue.conditions import describe, versions_named
    from flax_errors_ext.model.catalogue.records import StatementRun
    from flax_errors_ext.model.history.releases import EntryRun
    from flax_errors_ext.model.runs.tracebacks import import_roots
    from tools.forked import run_forked
    from tools.history.rewrites import rewrite

    cls = getattr(module, entry.name, None)
    present = isinstance(cls, type) and issubclass(cls, BaseException)
    accepted = {entry.qualname}
    if isinstance(cls, type):
        accepted.add(f"{cls.__module__}.{cls.__qualname__}")
    runs = []
    for example in bad_examples(entry):
        if versions is not None and not example.holds(versions):
            why = (
                f"it holds for {describe(example.holds_for)}, and this release has "
                f"{versions_named(example.holds_for, versions)}"
            )
            runs.append(judge_run(example, None, accepted, why))
            continue
        runnable, made = rewrite(example, rules)
        (ran,) = run_forked([(_run_example, (entry.qualname, runnable))], timeout=timeout)
        statements = None if ran.failure else [StatementRun.from_json(r) for r in ran.value]
        runs.append(judge_run(example, statements, accepted, ran.failure, import_roots(), made))
    return EntryRun(present, tuple(runs))


def _run_example(qualname: str, example: Example) -> list[dict[str, Any]]:
    """In the child: the example's statements through doctest's runner."""
    from flax_errors_ext.execution.runs.in_process import run_here

    namespace: dict[str, Any] = {"__name__": "__main__"}
    return run_here(qualname, example.statements, namespace, output_limit=OUTPUT_LIMIT)


def _device() -> dict[str, Any]:
    from flax_errors_ext.execution.runs.in_kernel import device_record

    return device_record()


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
