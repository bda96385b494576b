"""The benchmark's figures file: one run's table, which the docs include (never typed twice)."""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FIGURES = Path(__file__).resolve().parents[1] / "docs" / "guide" / "_figures" / "build.md.inc"
"""Where the figures go: docs/guide/performance.md includes this file."""


@dataclass(frozen=True)
class Run:
    """One complete run of the benchmark, as the figures file shows it."""

    median: dict[str, float]
    """Median seconds of each measure (baseline, floor, cold, ...)."""
    guard: float
    entries: int
    rounds: int
    one_edit_executed: tuple[int, ...]
    """Entries executed by each round's one-edit build (must be 1 each)."""
    peak_gib: float
    peak_processes: int
    """The most processes of the cold ``-j 2`` build's tree at once (Sphinx's included)."""
    dependencies: str
    """bench_dependencies.py's line."""
    explain: str
    """bench_explain.py's line."""
    context: str
    """Where it ran: cores, device and versions."""
    measured: str
    """The day, ISO 8601."""
    note: str = ""
    scaling: str = ""
    """bench_scaling.py's table: the site and a generated library, side by side."""


ROWS = (
    ("baseline", "`pytest --doctest-modules` over the same examples (baseline)", ""),
    (
        "floor",
        "the same examples through the build's runner, a process per entry, no Sphinx (floor)",
        "floor / baseline",
    ),
    ("cold", "cold `sphinx-build`, empty caches", "cold / baseline"),
    ("off-cold", "cold build with execution off (off-cold)", "cold / (floor + off-cold)"),
    ("warm", "rebuild, no change (warm)", "warm / off"),
    ("off", "rebuild with execution off (off)", ""),
)
"""The table's first rows: measure, what it is, and the ratio shown beside it."""
FIGURES_HEADER = """\
% Written by `nox -s bench` (benchmarks/bench_build.py) at the end of a complete run:
% do not edit it by hand, run the benchmark again. docs/guide/performance.md includes it.
"""
TARGETS = {
    "cold / baseline": 1.5,
    "cold / (floor + off-cold)": 1.2,
    "warm / off": 1.1,
    "check / baseline": 1.3,
    "guard": 1.02,
}
TARGET_NOTES = {"cold / baseline": "moonshot"}


def entry_share(median: dict[str, float], entries: int) -> float:
    """What one entry may add to a rebuild: 1.2 x its part of a cold build's execution."""
    return 1.2 * (median["cold"] - median["warm"]) / entries


def target_ratios(median: dict[str, float], guard: float) -> dict[str, float]:
    """The ratios the benchmark holds to its targets, from the medians of one run."""
    return {
        "floor / baseline": median["floor"] / median["baseline"],
        "cold / floor": median["cold"] / median["floor"],
        "cold / (floor + off-cold)": median["cold"] / (median["floor"] + median["off-cold"]),
        "cold / baseline": median["cold"] / median["baseline"],
        "warm / off": median["warm"] / median["off"],
        "check / baseline": median["check"] / median["baseline"],
        "guard": guard,
    }


_STATE = re.compile(r"^% figures: (\{.*\})$", re.MULTILINE)


def context(record: dict[str, Any]) -> str:
    """Cores, device and versions of a run, from its build's errors.json."""
    device = record.get("device", {})
    platform = str(device.get("platform", "?"))
    kind = "CPU" if platform == "cpu" else str(device.get("device_kind", platform))
    versions = record.get("versions") or {
        name: importlib.metadata.version(name) for name in ("jax", "flax")
    }
    shown = ", ".join(f"{name} {versions[name]}" for name in ("jax", "flax") if name in versions)
    return f"{os.cpu_count()} cores, {kind}, {shown}"


def _previous(text: str) -> dict[str, Any]:
    """The machine-readable state a figures file keeps of its run ({} if none)."""
    found = _STATE.search(text)
    return dict(json.loads(found.group(1))) if found else {}


def _executed(counts: tuple[int, ...]) -> str:
    if counts and all(count == 1 for count in counts):
        return "1 entry executed"
    return f"entries executed: {', '.join(map(str, counts))} (must be 1 each)"


def _dependencies_row(line: str) -> tuple[str, str, str, str]:
    found = re.search(r"(\d+) entries x (\d+) files: (\d+) ms \(target (< [^:]+):", line)
    if not found:
        return (line, "", "", "")
    entries, files, ms, target = found.groups()
    return (
        f"a warm build's dependency check: {entries} entries \N{MULTIPLICATION SIGN} "
        f"{int(files):,} loaded files",
        f"{ms} ms",
        "",
        target,
    )


def _explain_row(line: str) -> tuple[str, str, str, str]:
    sizes = re.findall(r"(\d+) KB (\d+) ms", line)
    target = re.search(r"\(target (< [^:]+):", line)
    if len(sizes) < 2 or not target:
        return (line, "", "", "")
    (small, small_ms), (large, large_ms) = sizes[0], sizes[-1]
    kb = int(large)
    shown = f"{kb / 1000:g} MB" if kb >= 1000 else f"{kb} KB"
    return (
        f"`explain` on a {shown} paste ({small} KB: {small_ms} ms)",
        f"{large_ms} ms",
        "",
        target.group(1),
    )


def figures_markdown(run: Run, previous: dict[str, Any]) -> str:
    """The figures file's text: a header, the table, and the state the next run compares.

    ``previous`` is the state of the file this one replaces (:func:`_previous`): its
    ratios are shown in brackets beside the new ones.
    """
    ratios = target_ratios(run.median, run.guard)
    before: dict[str, float] = previous.get("ratios", {})
    rows = [
        *_measure_rows(run.median, ratios, before),
        _one_edit_row(run),
        *_other_rows(run, ratios, before),
    ]
    lines = [
        FIGURES_HEADER.rstrip("\n"),
        _state_line(run.entries, ratios),
        "",
        _measured_sentence(run, previous, before),
        "",
        "| measure | median | ratio | target |",
        "| --- | --- | --- | --- |",
        *("|" + "|".join(f" {cell} " if cell else " " for cell in row) + "|" for row in rows),
    ]
    if run.scaling:
        lines += [
            "",
            "The site and a generated library of light errors, side by side (minimum of "
            "the rounds; the isolation limit is 1.2 x doctest + off-cold):",
            "",
            run.scaling,
        ]
    return "\n".join(lines) + "\n"


_Row = tuple[str, str, str, str]
"""One row of the table: measure, median, ratio and target."""


def _ratio(name: str, ratios: dict[str, float], before: dict[str, float], digits: int = 2) -> str:
    """The ratio called ``name``, with the previous run's in brackets if it had one."""
    shown = f"{ratios[name]:.{digits}f}"
    if name in before:
        shown += f" ({before[name]:.{digits}f})"
    return shown


def _target(name: str) -> str:
    if name not in TARGETS:
        return ""
    note = TARGET_NOTES.get(name)
    return f"{TARGETS[name]:g}" + (f" ({note})" if note else "")


def _measure_rows(
    median: dict[str, float], ratios: dict[str, float], before: dict[str, float]
) -> list[_Row]:
    """The table's first rows (:data:`ROWS`): a measure each, with its ratio."""
    return [
        (
            text,
            f"{median[name]:.1f} s",
            f"{label} {_ratio(label, ratios, before)}" if label else "",
            _target(label),
        )
        for name, text, label in ROWS
    ]


def _one_edit_row(run: Run) -> _Row:
    """The one-edit rebuild: what it cost over a warm one, against an entry's share."""
    median, share = run.median, entry_share(run.median, run.entries)
    cost = median["one-edit"] - median["warm"]
    return (
        "rebuild after editing one example",
        f"{median['one-edit']:.1f} s, {_executed(run.one_edit_executed)}",
        f"one-edit \N{MINUS SIGN} warm {cost:.1f} s vs share {share:.1f} s",
        "",
    )


def _other_rows(run: Run, ratios: dict[str, float], before: dict[str, float]) -> list[_Row]:
    """The table's last rows: the check, the guard, the peak memory and the two scripts'."""
    return [
        (
            "`flax-errors check`, empty cache",
            f"{run.median['check']:.1f} s",
            f"check / baseline {_ratio('check / baseline', ratios, before)}",
            _target("check / baseline"),
        ),
        (
            "jit dispatch with `install()` (guard)",
            "",
            _ratio("guard", ratios, before, 3),
            _target("guard"),
        ),
        (
            "cold `-j 2` build, peak memory of the process tree, most processes at once",
            f"{run.peak_gib:.2f} GiB, {run.peak_processes} processes",
            "",
            "< 4 GiB, jobs + 3",
        ),
        _dependencies_row(run.dependencies),
        _explain_row(run.explain),
    ]


def _state_line(entries: int, ratios: dict[str, float]) -> str:
    """The comment that keeps this run's state for the next one (:func:`_previous`)."""
    state = {"entries": entries, "ratios": {k: round(v, 3) for k, v in ratios.items()}}
    return "% figures: " + json.dumps(state)


def _measured_sentence(run: Run, previous: dict[str, Any], before: dict[str, float]) -> str:
    """The line above the table: when, where and how many, with the run's note."""
    return (
        f"Measured on {run.measured}: {run.context}, {run.entries} entries, "
        f"{run.rounds} round{'s' if run.rounds != 1 else ''}."
        + (f" {run.note.strip()}" if run.note.strip() else "")
        + (
            f" The previous run's ratios ({previous['entries']} entries) are in brackets."
            if before
            else ""
        )
    )


def write_figures(path: Path, run: Run) -> None:
    """Write the figures file atomically, comparing with the one it replaces."""
    previous = _previous(path.read_text("utf-8")) if path.exists() else {}
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(figures_markdown(run, previous), "utf-8")
    temporary.replace(path)
