"""How fast the catalogue is built and checked, against the single-process limit.

Measured side by side, in interleaved rounds, on a copy of the site (so that the
one-edit case can edit an example file without touching the repository):

* ``baseline``: ``pytest --doctest-modules`` over exactly the same examples, in one
  process: one Python start, one import of jax and flax, the examples' own work;
* ``floor``: the same examples through the build's own runner and nothing else: a
  process per entry from a forkserver that imported jax and flax, no Sphinx
  (bench_floor.py). No build can beat it;
* ``cold``: a full ``sphinx-build`` with empty caches (execution, compilation,
  device probe);
* ``off-cold``: a full build with execution off and empty caches: Sphinx's share,
  so that ``cold / (floor + off-cold)`` is what running the examples inside Sphinx
  adds over the runner alone and building the site without them;
* ``warm``: a rebuild with no change; ``off``: the same no-change rebuild of a
  build with execution off, the floor for ``warm``;
* ``one-edit``: a rebuild after editing one entry's example, with the number of
  entries executed (must be 1);
* ``check``: ``flax-errors check`` over the whole catalogue, with an empty cache;
* ``guard``: the jit dispatch overhead ratio of ``install()`` (bench_guard.py).
* the dependency check of a warm build, 100 entries (bench_dependencies.py);
* ``explain`` on pastes of 10 KB to 1 MB (bench_explain.py).
* the help under a traceback, per uncaught error (bench_help.py).

Also the peak memory of a cold ``-j 2`` build: the largest total resident memory of
the build's whole process tree (Sphinx, its readers, the forkserver, the entries'
processes), sampled.

Then, side by side, the site's catalogue and a generated library of ``--entries``
light errors (bench_scaling.py): each one's cold build against the isolation limit
(1.2 x doctest + off-cold), the overhead per entry, and warm ``-E`` against
execution off.

Run it with ``nox -s bench`` (``-- --rounds N`` for more rounds; ``-- --scaling-only
--entries 200 --rounds 1`` for the two catalogues' table alone, quickly). A complete run
also writes its figures into ``docs/guide/_figures/build.md.inc``, which the
documentation's performance page includes: the figures are never typed by hand.
``-- --note TEXT`` adds a sentence about the run (a busy machine, say) under them.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import bench_guard
import bench_scaling
from figures import FIGURES, TARGETS, Run, context, entry_share, target_ratios, write_figures

from flax_errors_ext.execution.runs.run import default_jobs

REPO = Path(__file__).resolve().parents[1]
CATALOGUE = REPO / "flax_errors_ext" / "catalogue"
EDITED = "flax.errors/ScopeParamShapeError.txt"


class Site:
    """A private copy of the site: sources, conf.py and the Flax example files."""

    name = "this site"

    def __init__(self, root: Path) -> None:
        self.root = root
        shutil.copytree(REPO / "docs", root / "docs", ignore=shutil.ignore_patterns("_build"))
        shutil.copy(REPO / "conf.py", root / "conf.py")
        # The baseline runs the catalogue's own examples; the doctests of JAX's
        # docstrings (upstream examples) are not among them, so they are off here.
        with (root / "conf.py").open("a") as conf:
            conf.write('\nflax_errors_upstream = "off"\n')
        shutil.copytree(CATALOGUE, root / "catalogue")
        self.edits = 0

    def build(self, name: str, *options: str) -> float:
        """Seconds for one sphinx-build into ``_build/<name>``."""
        command = [sys.executable, "-m", "sphinx", "-q", "-b", "html", "-c", str(self.root)]
        command += ["-D", f"flax_errors_catalogue_dirs={self.root / 'catalogue'}", *options]
        command += [str(self.root / "docs"), str(self.outdir(name))]
        return bench_scaling.timed(command, cwd=self.root, env=bench_scaling.isolated_env())

    def outdir(self, name: str) -> Path:
        """The HTML output folder of the build called ``name``."""
        return self.root / "_build" / name / "html"

    def clear(self, name: str) -> None:
        """Remove a build with all its caches."""
        shutil.rmtree(self.root / "_build" / name, ignore_errors=True)

    def executed(self, name: str) -> int:
        """How many entries the last build called ``name`` executed."""
        record = json.loads((self.outdir(name) / "errors.json").read_text())
        return len(record["executed"])

    def entries(self, name: str) -> int:
        """How many entries the catalogue has."""
        return int(self.record(name)["summary"]["entries"])

    def record(self, name: str) -> dict[str, Any]:
        """The errors.json the build called ``name`` wrote."""
        return dict(json.loads((self.outdir(name) / "errors.json").read_text()))

    def doctest(self) -> float:
        """The baseline: the same examples under ``pytest --doctest-modules``."""
        return baseline(self)

    def floor(self) -> float:
        """The same examples through the build's runner, without Sphinx."""
        return floor(self)

    def edit_one_example(self) -> None:
        """Add a new, harmless statement to one entry's first good example."""
        self.edits += 1
        path = self.root / "catalogue" / EDITED
        text = path.read_text()
        marker = "Good example:\n\n"
        start = text.index(marker) + len(marker)
        first_prompt = text.index("  >>> ", start)
        path.write_text(f"{text[:first_prompt]}  >>> _ = {self.edits}\n{text[first_prompt:]}")


def baseline(site: Site) -> float:
    """pytest's doctests over the same examples, in one process."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--doctest-modules"]
    command += ["--doctest-glob=*.txt", "-o", "doctest_optionflags=ELLIPSIS NORMALIZE_WHITESPACE"]
    command += [str(REPO / "flax_errors_ext" / "errors.py"), str(site.root / "catalogue")]
    return bench_scaling.timed(command, cwd=site.root, env=bench_scaling.isolated_env())


def floor(site: Site) -> float:
    """Every entry through the build's runner, a process each, without Sphinx."""
    return bench_scaling.floor_seconds(site.root / "catalogue", site.root)


def check(site: Site) -> float:
    """flax-errors check over the whole catalogue, from an empty cache."""
    cache = site.root / "_build" / "check-cache"
    shutil.rmtree(cache, ignore_errors=True)
    command = [sys.executable, "-m", "flax_errors_ext", "check", "--cache-dir", str(cache)]
    command += ["--catalogue-dir", str(site.root / "catalogue")]
    return bench_scaling.timed(command, cwd=site.root, env=bench_scaling.isolated_env())


def peak_memory(site: Site) -> tuple[float, float, int]:
    """(seconds, peak GiB, most processes at once) of a cold ``-j 2`` build's process tree."""
    site.clear("j2")
    peak = [0, 0]
    stop = threading.Event()
    process_holder: list[subprocess.Popen[bytes]] = []

    def sample() -> None:
        while not stop.is_set():
            if process_holder:
                rss, count = _tree(process_holder[0].pid)
                peak[:] = max(peak[0], rss), max(peak[1], count)
            time.sleep(0.1)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    command = [sys.executable, "-m", "sphinx", "-q", "-j", "2", "-b", "html", "-c", str(site.root)]
    command += ["-D", f"flax_errors_catalogue_dirs={site.root / 'catalogue'}"]
    command += [str(site.root / "docs"), str(site.outdir("j2"))]
    started = time.perf_counter()
    process = subprocess.Popen(
        command,
        cwd=site.root,
        env=bench_scaling.isolated_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    process_holder.append(process)
    process.wait()
    seconds = time.perf_counter() - started
    stop.set()
    sampler.join()
    return seconds, peak[0] / 2**30, peak[1]


def _tree(root_pid: int) -> tuple[int, int]:
    """Resident bytes and count of ``root_pid`` and all its descendants (Linux /proc)."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            status = Path(f"/proc/{entry}/status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        pid, ppid = int(entry), int(fields.get("PPid", "0").strip())
        children.setdefault(ppid, []).append(pid)
        rss[pid] = int(fields.get("VmRSS", "0 kB").split()[0]) * 1024
    total, count, stack = 0, 0, [root_pid]
    while stack:
        pid = stack.pop()
        total, count = total + rss.get(pid, 0), count + (pid in rss)
        stack.extend(children.get(pid, []))
    return total, count


def main() -> None:
    """Measure, then print the table and the ratios."""
    args = _arguments()
    if args.scaling_only:
        print(scaling_table(args.entries, args.rounds))
        return
    with tempfile.TemporaryDirectory(prefix="flax-errors-bench-") as tmp:
        site = Site(Path(tmp))
        samples, executed_after_edit = _measure_rounds(site, args.rounds)
        entries = site.entries("cold")
        record = site.record("cold")
        j2_seconds, j2_gib, j2_processes = peak_memory(site)
    scaling = scaling_table(args.entries, args.rounds)
    print(scaling)
    guard = bench_guard.main()
    _report(samples, entries, executed_after_edit, guard, j2_seconds, j2_gib, j2_processes)
    lines = _script_lines()
    run = Run(
        median={name: statistics.median(values) for name, values in samples.items()},
        guard=guard,
        entries=entries,
        rounds=args.rounds,
        one_edit_executed=tuple(executed_after_edit),
        peak_gib=j2_gib,
        peak_processes=j2_processes,
        dependencies=lines[0],
        explain=lines[1],
        context=context(record),
        measured=datetime.date.today().isoformat(),
        note=args.note,
        scaling=scaling,
    )
    write_figures(args.figures, run)
    print(f"\nwrote {args.figures}")


def _arguments() -> argparse.Namespace:
    """The command line's options."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--figures", type=Path, default=FIGURES, help="where to write the figures (Markdown)"
    )
    parser.add_argument("--note", default="", help="a sentence about this run, for the figures")
    parser.add_argument(
        "--entries", type=int, default=200, help="errors in the generated library (0: none)"
    )
    parser.add_argument(
        "--scaling-only",
        action="store_true",
        help="measure only the site against the generated library (writes no figures)",
    )
    return parser.parse_args()


def _measure_rounds(site: Site, rounds: int) -> tuple[dict[str, list[float]], list[int]]:
    """Each measure's seconds, a sample per round, and the entries each one-edit executed."""
    samples: dict[str, list[float]] = {}
    executed_after_edit: list[int] = []
    site.build("off", "-D", "nb_execution_mode=off")  # an environment to rebuild
    for number in range(1, rounds + 1):
        print(f"round {number}/{rounds}", file=sys.stderr, flush=True)
        measured, executed = _measure_round(site)
        executed_after_edit.append(executed)
        for name, seconds in measured.items():
            samples.setdefault(name, []).append(seconds)
    return samples, executed_after_edit


def _measure_round(site: Site) -> tuple[dict[str, float], int]:
    """One round's seconds of each measure, and the entries its one-edit build ran."""
    measured = {"baseline": baseline(site), "floor": floor(site)}
    site.clear("cold")
    measured["cold"] = site.build("cold")
    measured["warm"] = site.build("cold")
    measured["off"] = site.build("off", "-D", "nb_execution_mode=off")
    site.clear("off-cold")
    measured["off-cold"] = site.build("off-cold", "-D", "nb_execution_mode=off")
    site.edit_one_example()
    measured["one-edit"] = site.build("cold")
    executed = site.executed("cold")
    site.build("off", "-D", "nb_execution_mode=off")  # absorbs the edit, untimed
    measured["check"] = check(site)
    return measured, executed


def _script_lines() -> list[str]:
    """The line each of the smaller benchmarks prints, printed here too."""
    # Each in a process of its own (the dependency check imports what a run does).
    lines = []
    for name in ("bench_dependencies.py", "bench_explain.py", "bench_help.py"):
        script = Path(__file__).with_name(name)
        done = subprocess.run(
            [sys.executable, str(script)], capture_output=True, text=True, check=True
        )
        lines.append(done.stdout.strip())
        print(lines[-1])
    return lines


def scaling_table(entries: int, rounds: int) -> str:
    """The site and a generated library of ``entries`` errors, measured side by side."""
    with tempfile.TemporaryDirectory(prefix="flax-errors-bench-") as tmp:
        catalogues: list[bench_scaling.Catalogue] = [Site(Path(tmp) / "site")]
        if entries:
            catalogues.append(bench_scaling.Library(Path(tmp) / "generated", entries))
        return bench_scaling.table(bench_scaling.measure(catalogues, rounds))


def _report(
    samples: dict[str, list[float]],
    entries: int,
    executed_after_edit: list[int],
    guard: float,
    j2_seconds: float,
    j2_gib: float,
    j2_processes: int,
) -> None:
    median = {name: statistics.median(values) for name, values in samples.items()}
    print(f"\n{'measure':<14} {'median s':>9}   runs")
    for name, value in median.items():
        runs = " ".join(f"{v:.1f}" for v in samples[name])
        print(f"{name:<14} {value:>9.1f}   {runs}")
    share = entry_share(median, entries)
    ratios = target_ratios(median, guard)
    print(f"\n{'ratio':<26} {'value':>7} {'target':>7}")
    for name, value in ratios.items():
        if name in TARGETS:
            verdict = "ok" if value <= TARGETS[name] else "over"
            print(f"{name:<26} {value:>7.3f} {TARGETS[name]:>7.2f}  {verdict}")
        else:  # where the time goes, not a target
            print(f"{name:<26} {value:>7.3f} {'-':>7}")
    print(f"\none-edit: executed {executed_after_edit} entries (target 1 each)")
    cost = median["one-edit"] - median["warm"]
    print(
        f"one-edit - warm = {cost:.1f} s, its share 1.2 x (cold - warm) / {entries} = "
        f"{share:.1f} s: {'ok' if cost <= share else 'over'}"
    )
    print(
        f"cold -j 2 build: {j2_seconds:.1f} s, peak memory of the process tree {j2_gib:.2f} GiB "
        f"(target < 4 GiB: {'ok' if j2_gib < 4 else 'over'}); at most {j2_processes} processes "
        f"at once (target jobs + 3 = {default_jobs() + 3}: "
        f"{'ok' if j2_processes <= default_jobs() + 3 else 'over'})"
    )


if __name__ == "__main__":
    main()
