"""The execution cache's writes, made by a process of their own while the run goes on.

jupyter-cache's write of an executed notebook (its hash, its record, the
truncation that ends it) costs about what a light entry's kernel costs, and in the
build's process it holds the GIL that the kernels' messages wait on. A
:class:`CacheWriter` hands each executed notebook to a writer process instead
(``python -m flax_errors_ext.execution.runs.cache_writer``), which makes the very
same jupyter-cache write, one notebook after another, at the lowest scheduling
priority: it takes a core that the kernels leave idle, and the one Sphinx leaves
idle while it reads and writes the pages after the runs.

A write is whole or not made: the writer finishes the notebook it is writing when
the build is interrupted (it ignores SIGINT), and stops at the end of its input.
Where it cannot keep a run, the run is simply not cached, and runs again at the
next build; :meth:`CacheWriter.close` says so. Only the process that made a
writer hands notebooks to it: a ``-j`` reader forked from the build writes its
own, as every process did before.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import threading
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

    from nbformat import NotebookNode

_DONE = None
"""What tells the feeding thread that no notebook follows."""


class CacheWriter:
    """Hands executed notebooks to a writer process for jupyter-cache's ``folder``."""

    def __init__(self, folder: Path, log: Path) -> None:
        """``log``: where the writer says what it could not keep."""
        self.folder = folder
        self.log = log
        self._owner = os.getpid()
        self._lock = threading.Lock()
        self._queue: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._process: subprocess.Popen[bytes] | None = None
        self._feeder: threading.Thread | None = None

    def __reduce__(self) -> tuple[type[CacheWriter], tuple[Path, Path]]:
        """Pickled as a writer that has written nothing: its process stays here."""
        return CacheWriter, (self.folder, self.log)

    def owned(self) -> bool:
        """Whether this process may hand notebooks over (it made the writer)."""
        return os.getpid() == self._owner

    def write(self, notebook: NotebookNode, uri: str, data: dict[str, Any]) -> None:
        """Have ``notebook`` cached, as jupyter-cache's ``cache_notebook_bundle`` caches it."""
        self._hand_over({"write": notebook, "uri": uri, "data": data})

    def forget(self, notebook: NotebookNode) -> None:
        """Have the cached run of ``notebook`` dropped, once what was handed before is written."""
        self._hand_over({"forget": notebook})

    def _hand_over(self, item: dict[str, Any]) -> None:
        line = json.dumps(item) + "\n"
        with self._lock:
            if self._process is None:
                self._start()
        self._queue.put(line.encode())

    def close(self) -> str | None:
        """Wait until every notebook handed over is written; what could not be kept, if any."""
        with self._lock:
            process, feeder, self._process, self._feeder = self._process, self._feeder, None, None
        if process is None or feeder is None or not self.owned():
            return None
        self._queue.put(_DONE)
        feeder.join()
        status = process.wait()
        said = ""
        with contextlib.suppress(OSError):
            said = self.log.read_text(encoding="utf-8", errors="replace").strip()
        if not said and not status:
            return None
        why = said.splitlines()[-1] if said else f"it exited with status {status}"
        return (
            f"the execution cache at {self.folder} did not keep every run ({why}; "
            f"see {self.log}); those run again at the next build"
        )

    def _start(self) -> None:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with self.log.open("wb") as log:
            self._process = subprocess.Popen(
                [sys.executable, "-m", __name__, str(self.folder)],
                stdin=subprocess.PIPE,
                stdout=log,
                stderr=log,
            )
        # A thread writes to the pipe, so that a writer slower than the runs (it
        # yields to them) never holds up the thread that handed it a notebook.
        self._feeder = threading.Thread(
            target=_feed,
            args=(self._queue, self._process.stdin),
            name="flax-errors-cache-writer",
            daemon=True,
        )
        self._feeder.start()


def _feed(lines: queue.SimpleQueue[bytes | None], pipe: IO[bytes] | None) -> None:
    """Write each line to the writer until told that none follows, or until it has gone.

    A writer that has gone (it could not start, it was killed) says why by its exit
    status and its log, which :meth:`CacheWriter.close` reads.
    """
    if pipe is None:
        return
    with contextlib.suppress(OSError), pipe:
        while (line := lines.get()) is not _DONE:
            pipe.write(line)


def _write_all(folder: str, lines: IO[str]) -> int:
    """Cache (or drop) each notebook of ``lines`` in ``folder``; how many could not be kept."""
    import nbformat
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    cache = get_cache(folder)
    unkept = 0
    for line in lines:
        try:
            item = json.loads(line)
            if "forget" in item:
                forgotten = nbformat.from_dict(item["forget"])  # type: ignore[no-untyped-call]
                with contextlib.suppress(KeyError):  # not cached
                    cache.remove_cache(cache.match_cache_notebook(forgotten).pk)
                continue
            notebook = nbformat.from_dict(item["write"])  # type: ignore[no-untyped-call]
            bundle = CacheBundleIn(notebook, item["uri"], data=item["data"])
            cache.cache_notebook_bundle(bundle, check_validity=False, overwrite=True)
        except Exception as error:  # this run is not cached; the others still are
            unkept += 1
            print(f"not kept: {type(error).__name__}: {error}", file=sys.stderr, flush=True)
    return unkept


def main() -> None:
    """The writer process: cache each notebook read from standard input, at low priority."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the build's Ctrl-C ends it at its input's end
    with contextlib.suppress(OSError):
        os.nice(19)
    sys.exit(1 if _write_all(sys.argv[1], sys.stdin) else 0)


if __name__ == "__main__":
    main()
