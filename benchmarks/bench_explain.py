"""What ``flax-errors explain`` costs: a whole command, and the lookup as the paste grows.

A whole command, side by side in one run, each in a fresh process: reading the
catalogue by importing the modules it documents (``flax.errors`` imports JAX:
what every ``explain`` did before snapshots, and what the first one after an
upgrade still does), reading it from its snapshot (every later one), and
``python -c pass`` for the interpreter's own start. Target: from a snapshot,
under 1 s.

The lookup alone (:func:`flax_errors_ext.model.lookup.find.find` over the whole
catalogue) for pastes of 10 KB, 100 KB and 1 MB: noise that resembles no error,
then a real message at the end, as a long log would hold it. The lookup looks at
a bounded part of any paste, so the time must stay flat (target: under 2 s).

Run it as ``python benchmarks/bench_explain.py``; ``bench_build.py`` runs it and
prints its line.
"""

from __future__ import annotations

import os
import random
import statistics
import string
import subprocess
import sys
import tempfile
import time

from flax_errors_ext.cli.selection import CACHE_ENV
from flax_errors_ext.execution.catalogue.modules import load_module
from flax_errors_ext.model.lookup import find as lookup

TARGET_S = 2.0
COMMAND_TARGET_S = 1.0
ROUNDS = 3
MESSAGE = (
    'flax.errors.ScopeParamShapeError: For parameter "kernel" in "/Dense_1", the given '
    "initializer is expected to generate shape (2, 16), but the existing parameter it "
    "received has shape (4, 16)."
)
EXPLAIN = "from flax_errors_ext.cli import main; raise SystemExit(main(['explain', {query!r}]))"


def _seconds(code: str, env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True)
    return time.perf_counter() - started


def command() -> str:
    """Time whole commands, imported and from a snapshot; the figures as one line."""
    code = EXPLAIN.format(query=MESSAGE)
    imported, snapshot, bare = [], [], []
    for _ in range(ROUNDS):
        with tempfile.TemporaryDirectory() as folder:
            env = {**os.environ, CACHE_ENV: folder, "JAX_PLATFORMS": "cpu"}
            imported.append(_seconds(code, env))  # empty folder: reads by importing
            snapshot.append(_seconds(code, env))
            bare.append(_seconds("pass", env))
    before, after, floor = (statistics.median(s) for s in (imported, snapshot, bare))
    verdict = "ok" if after < COMMAND_TARGET_S else "over"
    return (
        f"explain, a whole command (median of {ROUNDS}): importing the libraries {before:.2f} s, "
        f"from the snapshot {after:.2f} s ({before / after:.1f}x faster), "
        f"python -c pass {floor:.2f} s (target < {COMMAND_TARGET_S:.0f} s: {verdict})"
    )


def paste_sizes() -> str:
    """Time the lookup alone as the paste grows; the figures as one line."""
    entries = [
        entry
        for name in ("flax_errors_ext.errors", "flax.errors")
        for entry in load_module(name).entries
    ]
    noise_source = random.Random(0)
    alphabet = string.ascii_letters + string.digits + " ./+\n"
    figures = []
    for size in (10_000, 100_000, 1_000_000):
        noise = "".join(noise_source.choices(alphabet, k=size))
        started = time.perf_counter()
        found = lookup.find(entries, noise + "\n" + MESSAGE)
        none = lookup.find(entries, noise)
        seconds = time.perf_counter() - started
        assert found, "the message at the end was not found"
        assert found[0].entry.name == "ScopeParamShapeError", found[:1]
        assert not none, none[:1]
        figures.append((size, seconds))
    worst = max(seconds for _, seconds in figures)
    shown = ", ".join(f"{size // 1000} KB {seconds * 1000:.0f} ms" for size, seconds in figures)
    verdict = "ok" if worst < TARGET_S else "over"
    return f"explain, a paste with and one without a message: {shown} (target < 2 s: {verdict})"


def main() -> str:
    """Measure; the figures as one line."""
    return f"{command()}; {paste_sizes()}"


if __name__ == "__main__":
    print(main())
