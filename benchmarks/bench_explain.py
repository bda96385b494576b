"""What matching a pasted error costs as the paste grows, up to 1 MB.

``flax-errors explain`` and the lookup behind it take a name, a URL or a whole
traceback. This times :func:`flax_errors_ext.model.lookup.find.find` over the whole
catalogue for pastes of 10 KB, 100 KB and 1 MB: noise that resembles no error,
then a real message at the end, as a long log would hold it. The lookup looks at
a bounded part of any paste, so the time must stay flat (target: under 2 s).

Run it as ``python benchmarks/bench_explain.py``; ``bench_build.py`` runs it and
prints its line.
"""

from __future__ import annotations

import random
import string
import time

from flax_errors_ext.execution.catalogue.modules import load_module
from flax_errors_ext.model.lookup import find as lookup

TARGET_S = 2.0
MESSAGE = (
    "flax.errors.ScopeParamShapeError: Initializer expected to generate shape (4, 4) but "
    'got shape (3, 3) instead for parameter "kernel" in "/Dense_0".'
)


def main() -> str:
    """Measure; the figures as one line."""
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


if __name__ == "__main__":
    print(main())
