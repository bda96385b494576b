"""What the help under a traceback costs: an uncaught error, with and without it.

Side by side in one run, each in a fresh process, for a real paste of each kind
(``tests/model/lookup/pastes.toml``: one found, one a negative): a script that
raises the error uncaught, plain and after ``flax_errors_ext.help.install()``;
the difference is what a reader waits for the help. ``install()`` itself (reading
the index, importing the matcher) is timed apart: it happens once, before the
error. Then, in one process, the lookup alone for every paste of the set and of the
version skews (``skew_pastes.toml``; the first of those reads the API indexes).
Target: well under 50 ms per error.

Run it as ``python benchmarks/bench_help.py``; ``bench_build.py`` runs it and prints
its line.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import flax_errors_ext.help as flax_help

TARGET_MS = 50.0
ROUNDS = 5
LOOKUP = Path(__file__).parents[1] / "tests/model/lookup"
PASTES = tomllib.loads((LOOKUP / "pastes.toml").read_text("utf-8"))["paste"]
SKEWS = tomllib.loads((LOOKUP / "skew_pastes.toml").read_text("utf-8"))["paste"]
"""Version skews: answered from the API indexes, read at the first one."""
SCRIPT = """
import time
started = time.perf_counter()
{install}
import sys
installed = time.perf_counter()
sys.stderr.write(f"install {{installed - started}}\\n")
try:
    raise {kind}({message!r})
except BaseException as error:
    before = time.perf_counter()
    sys.excepthook(type(error), error, error.__traceback__)
    sys.stderr.write(f"error {{time.perf_counter() - before}}\\n")
"""


def _times(kind: str, message: str, install: bool) -> tuple[float, float]:
    """(install, error) seconds of one fresh process."""
    code = SCRIPT.format(
        install="import flax_errors_ext.help; flax_errors_ext.help.install()" if install else "",
        kind=kind,
        message=message,
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=os.environ
    )
    figures = dict(
        line.split()
        for line in done.stderr.splitlines()
        if line.startswith(("install ", "error "))
    )
    return float(figures["install"]), float(figures["error"])


def per_error() -> str:
    """An uncaught error's handling, plain and with the help, in fresh processes."""
    found = next(p for p in PASTES if p.get("entry") and "miss" not in p)
    negative = next(p for p in PASTES if not p.get("entry"))
    parts = []
    for what, paste in (("found", found), ("not found", negative)):
        kind, _, message = paste["text"].strip().partition(": ")
        plain = [_times(kind, message, install=False)[1] for _ in range(ROUNDS)]
        helped = [_times(kind, message, install=True) for _ in range(ROUNDS)]
        extra = statistics.median(h[1] for h in helped) - statistics.median(plain)
        setup = statistics.median(h[0] for h in helped)
        parts.append(f"{what}: +{extra * 1000:.1f} ms per error (install {setup * 1000:.0f} ms)")
    return "; ".join(parts)


def lookups() -> str:
    """The lookup alone, in one process, for every paste of the sets."""
    flax_help.install()
    try:
        seconds = []
        for paste in [*PASTES, *SKEWS]:
            error = ValueError(paste["text"])
            started = time.perf_counter()
            flax_help.help_lines(error)
            seconds.append(time.perf_counter() - started)
    finally:
        flax_help.uninstall()
    worst = max(seconds) * 1000
    median = statistics.median(seconds) * 1000
    verdict = "ok" if worst < TARGET_MS else "over"
    return (
        f"{len(PASTES) + len(SKEWS)} pastes: median {median:.1f} ms, worst {worst:.1f} ms "
        f"(target < {TARGET_MS:.0f} ms: {verdict})"
    )


def main() -> str:
    """Measure; the figures as one line."""
    return f"help under a traceback, median of {ROUNDS}: {per_error()}; lookup alone, {lookups()}"


if __name__ == "__main__":
    print(main())
