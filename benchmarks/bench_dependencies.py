"""What checking an entry's dependencies costs: 100 entries, every file a run loads.

A cached run is trusted only while none of the files its process had loaded has
changed (``flax_errors_ext.model.runs.fingerprint``). This imports what an entry's
process has imported (the runner's preloaded jax and flax, what runs the examples,
the catalogue's runtime), takes the files this process loaded as each entry's list,
and times one warm check of 100 such entries with
:class:`~flax_errors_ext.execution.cache.file_states.SourceStates`, as a build does:
each file looked at once, then 100 lists compared. Also timed: noting the content
hashes of the Python sources after a first run (once per machine).

Run it as ``python benchmarks/bench_dependencies.py``; ``bench_build.py`` runs it
and prints its line.
"""

from __future__ import annotations

import contextlib
import importlib
import tempfile
import time
from pathlib import Path

import flax_errors_ext.errors  # noqa: F401  (imported for the files a run loads)
from flax_errors_ext.execution.cache.file_states import SourceStates
from flax_errors_ext.execution.runs.in_process import loaded_files
from flax_errors_ext.execution.runs.runner import PRELOAD
from flax_errors_ext.model.runs.jobs import unpack_loaded

ENTRIES = 100
TARGET_S = 1.0


def main() -> str:
    """Measure; the figures as one line."""
    for name in PRELOAD:
        with contextlib.suppress(ImportError):  # as the forkserver leaves one out
            importlib.import_module(name)
    files = unpack_loaded(loaded_files())
    with tempfile.TemporaryDirectory(prefix="flax-errors-deps-") as tmp:
        store = Path(tmp) / "sources.json"
        started = time.perf_counter()
        first = SourceStates(store)
        first.remember(files)
        first.save()
        noted = time.perf_counter() - started
        started = time.perf_counter()
        states = SourceStates(store)
        changed = [states.first_change(files) for _ in range(ENTRIES)]
        checked = time.perf_counter() - started
    assert changed == [None] * ENTRIES, changed[:1]
    verdict = "ok" if checked < TARGET_S else "over"
    return (
        f"dependency check, warm: {ENTRIES} entries x {len(files)} files: {checked * 1000:.0f} ms "
        f"(target < {TARGET_S:.0f} s: {verdict}); noting source hashes once: {noted * 1000:.0f} ms"
    )


if __name__ == "__main__":
    print(main())
