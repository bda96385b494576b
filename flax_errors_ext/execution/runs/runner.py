"""The one runner of catalogue examples: a process per entry, from a pre-imported parent.

Every path that runs examples hands an :class:`EntryJob` to a :class:`Runner`. Its
processes come from the standard library's forkserver, which imports what entries
share (:data:`PRELOAD`, never a JAX backend) once, then forks: each entry starts as
fresh as a new interpreter, without paying the imports again. Records come back
over a pipe. Past the timeout a process is killed, keeping the records it sent; a
process that ends early is said with how it ended and its log's last words.

On an accelerator (``reuse``), where one process at a time may hold the chip, one
process serves the entries, each in a thread of its own; one that changes what
every thread shares (:data:`ALONE`), or is asked to, runs alone
(``docs/guide/build.md`` says what isolation means there).
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import multiprocessing
import multiprocessing.forkserver
import os
import queue
import re
import shutil
import signal
import sys
import tempfile
import threading
import time
from multiprocessing import resource_tracker
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flax_errors_ext.execution.runs.in_process import serve
from flax_errors_ext.model.catalogue.records import Verdict
from flax_errors_ext.model.runs.fingerprint import Device, ProbeError
from flax_errors_ext.model.runs.jobs import EntryJob, Execution

if TYPE_CHECKING:
    from collections.abc import Iterator
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

PRELOAD = ("numpy", "jax", "jax.numpy", "flax", "flax.linen", "flax.nnx")
"""Imported once by the forkserver (one that is not installed is left out)."""

PROBE = "flax-errors.device-probe"
"""The device probe's job name (and its log's)."""

SHARED_LOG = "flax-errors.shared-process"
"""The log of the process that serves every entry on an accelerator."""

LOG_TAIL = 4000
"""Characters of a crashed process's log kept as its last words."""

ALONE = re.compile(
    r"\b(?:config\.update|environ|chdir|warnings\.(?:simplefilter|filterwarnings))\b"
)
"""Statements that change what every thread shares (flags, environment, folder, warnings)."""


@dataclasses.dataclass(frozen=True)
class RawRun:
    """What an entry's process sent back, and how it ended."""

    examples: dict[int, list[dict[str, Any]]]
    """Each finished example's records, by its index."""
    finish: dict[str, Any] | None
    """The wrap-up (device, versions, loaded files); None if the process never sent it."""
    failure: str = ""
    """"timed out" or "crashed" where it did not run to the end."""
    detail: str = ""
    log: str = ""
    seconds: float = 0.0

    def execution(self, total: int) -> Execution:
        """The run as the judge reads it, for an entry of ``total`` examples."""
        done = Execution.of(self.examples, self.finish, total)
        done = dataclasses.replace(done, executed=True, seconds=self.seconds)
        if not self.failure:
            return done
        failure = Verdict.TIMED_OUT if self.failure == "timed out" else Verdict.CRASHED
        return dataclasses.replace(
            done, failure=failure, failure_detail=self.detail, failure_log=self.log, device=None
        )


class Runner:
    """Runs entry jobs, each in a fresh process (one reused process on an accelerator)."""

    def __init__(
        self,
        *,
        timeout: float | None = None,
        log_dir: Path | None = None,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
        reuse: bool = False,
    ) -> None:
        """A runner; nothing starts until the first job.

        ``timeout``: seconds each example may run (None: no limit); ``log_dir`` and
        ``cwd``: where each process writes its output and runs (None: its scratch
        folder); ``env``: set in each process first (JAX's compilation cache);
        ``reuse``: serve every job from one process, in threads (an accelerator).
        """
        self.timeout = timeout
        self.log_dir = log_dir
        self.cwd = cwd
        self.env = env or {}
        self.reuse = reuse
        self._lock = threading.Lock()
        self._live: set[_Worker] = set()
        self._shared: _Worker | None = None
        self._shared_lock = threading.Lock()
        self._turns = _Turns()

    def run(self, job: EntryJob, *, alone: bool = False) -> RawRun:
        """Run ``job`` in its process and wait: what it sent, and how it ended.

        ``alone``: in a shared process, with no other entry beside it.
        """
        if not self.reuse:
            worker = self._start()
            done = None
            try:
                done = worker.run(job, self.timeout, self._log(worker, job.qualname))
                return done
            finally:
                self._end(worker, kill=done is None or bool(done.failure))
        alone = alone or any(
            ALONE.search(source) for example in job.examples for _, source in example.statements
        )
        return self._run_shared(job, alone=alone)

    def _run_shared(self, job: EntryJob, *, alone: bool) -> RawRun:
        with self._turns.taken(alone=alone):
            log = None
            with self._shared_lock:
                worker = self._shared = self._shared or self._start()
                if worker.log is None:  # a new process, or the probe's, which kept its own
                    log = worker.log = self._log(worker, SHARED_LOG)
            done = worker.run(job, self.timeout, log, threaded=True)
            if done.failure:
                with self._shared_lock:
                    if self._shared is worker:
                        self._shared = None
                        self._end(worker, kill=True)
        return done

    def _log(self, worker: _Worker, name: str) -> Path:
        folder = self.log_dir or Path(worker.scratch)
        folder.mkdir(parents=True, exist_ok=True)
        return folder / f"{name}.log"

    def _start(self) -> _Worker:
        context = _context()
        receive, send = context.Pipe()
        scratch = tempfile.mkdtemp(prefix="flax-errors-run-")
        cwd = str(self.cwd) if self.cwd is not None else scratch
        process = context.Process(
            target=serve, args=(send, cwd, self.env), name="flax-errors-entry", daemon=True
        )
        with self._lock, _parent_main_hidden():
            process.start()
            worker = _Worker(process, receive, scratch)
            self._live.add(worker)
        send.close()
        return worker

    def _end(self, worker: _Worker, *, kill: bool = False) -> None:
        with self._lock:
            self._live.discard(worker)
        worker.end(kill=kill)

    def probe(self) -> Device | ProbeError:
        """Which JAX devices an entry's process sees; on an accelerator, it runs the rest."""
        worker = self._start()
        done = worker.run(EntryJob(PROBE, 0, ()), self.timeout, self._log(worker, PROBE))
        found = Device.from_json((done.finish or {}).get("device"))
        if found is not None and found.platform != "cpu":
            with self._shared_lock:
                self.reuse = True
                self._shared = worker
                worker.log = None
            return found
        self._end(worker, kill=bool(done.failure))
        if found is not None:
            return found
        if done.finish is None:
            last = (done.log.strip().splitlines() or [done.detail])[-1]
            return ProbeError(f"device probe failed: {last}")
        return ProbeError(f"device probe failed: {done.finish.get('device')!r}")

    def kill_all(self) -> None:
        """Kill every process still running (an interrupted run waits for none)."""
        with self._lock:
            live, self._live = list(self._live), set()
        for worker in live:
            worker.end(kill=True)
        self._shared = None

    def close(self) -> None:
        """End every process, and the forkserver with them."""
        self.kill_all()
        stop_forkserver()


class _Turns:
    """Entries that share a process, and those that run alone: one at a time, none beside."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._running = 0
        self._alone = 0
        """Alone entries running or waiting: no other starts meanwhile."""

    @contextlib.contextmanager
    def taken(self, *, alone: bool) -> Iterator[None]:
        with self._changed:
            self._alone += alone
            self._changed.wait_for(lambda: self._running == 0 if alone else self._alone == 0)
            self._running += 1
        try:
            yield
        finally:
            with self._changed:
                self._running -= 1
                self._alone -= alone
                self._changed.notify_all()


@dataclasses.dataclass(eq=False)
class _Worker:
    process: BaseProcess
    connection: Connection
    scratch: str
    log: Path | None = None
    """Where the process writes its output now."""
    _inboxes: dict[int, queue.SimpleQueue[Any]] = dataclasses.field(default_factory=dict)
    _tags: Iterator[int] = dataclasses.field(default_factory=itertools.count)
    _guard: threading.Lock = dataclasses.field(default_factory=threading.Lock)
    _gone: bool = False
    _reader: threading.Thread = dataclasses.field(init=False)

    def __post_init__(self) -> None:
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def run(
        self, job: EntryJob, timeout: float | None, log: Path | None, *, threaded: bool = False
    ) -> RawRun:
        """Send ``job`` (with the log to write to from now, if any) and wait for its records."""
        started = time.perf_counter()
        examples: dict[int, list[dict[str, Any]]] = {}

        def failed(how: str, detail: str, last_words: str | None = None) -> RawRun:
            if last_words is None:
                last_words = _tail(self.log) if self.log else ""
            return RawRun(examples, None, how, detail, last_words, time.perf_counter() - started)

        inbox: queue.SimpleQueue[Any] = queue.SimpleQueue()
        with self._guard:
            tag = next(self._tags)
            self._inboxes[tag] = inbox
            if log is not None:
                self.log = log
                log.unlink(missing_ok=True)
            try:
                if self._gone:
                    raise OSError
                self.connection.send((tag, job, log and str(log), threaded))
            except OSError:
                inbox.put(None)
        try:
            while True:
                try:
                    message = inbox.get(timeout=timeout)
                except queue.Empty:
                    return failed("timed out", f"an example ran past the {timeout:g} s timeout")
                if message is None:
                    self.process.join(5)
                    return failed("crashed", _ended(self.process))
                if message[0] == "example":
                    examples[message[1]] = message[2]
                elif message[0] == "finish":
                    return RawRun(examples, message[1], seconds=time.perf_counter() - started)
                else:  # "error": flax-errors' own failure in the process, with its traceback
                    return failed("crashed", message[1], message[2])
        finally:
            with self._guard:
                del self._inboxes[tag]

    def _read(self) -> None:
        """Hand each message to the job it is for; when the process is gone, tell them all."""
        while True:
            try:
                tag, *message = self.connection.recv()
            except (EOFError, OSError):
                break
            with self._guard:
                inbox = self._inboxes.get(tag)
            if inbox is not None:
                inbox.put(message)
        with self._guard:
            self._gone = True
            for inbox in self._inboxes.values():
                inbox.put(None)
            # Closed here, once no receive is pending: a descriptor closed under a
            # pending read would be reused by the next process's pipe, and read from twice.
            self.connection.close()

    def end(self, *, kill: bool = False) -> None:
        # Told, the process exits; its end of the pipe closing ends the reader.
        with contextlib.suppress(OSError):
            self.connection.send(None)
        if not kill:
            self.process.join(1)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self._reader.join(5)
        shutil.rmtree(self.scratch, ignore_errors=True)


def _ended(process: BaseProcess) -> str:
    code = process.exitcode
    if code is None:
        how = "still running"
    elif code < 0:
        how = f"signal {signal.Signals(-code).name}"
    else:
        how = f"exit code {code}"
    return f"the process that ran its examples ended ({how})"


def _tail(log: Path) -> str:
    try:
        text = log.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return text[-LOG_TAIL:]


@contextlib.contextmanager
def _parent_main_hidden() -> Iterator[None]:
    """Keep multiprocessing from running the parent's main script again in the process.

    It does, unless it forks, so as to find the target there: ours never is. Run
    again, ``sphinx-build``'s script would import Sphinx in every entry's process.
    """
    main = sys.modules.get("__main__")
    if main is None:
        yield
        return
    saved: dict[str, Any] = {
        name: main.__dict__[name] for name in ("__file__", "__spec__") if name in vars(main)
    }
    main.__dict__.pop("__file__", None)
    main.__spec__ = None
    try:
        yield
    finally:
        main.__dict__.update(saved)
        if "__spec__" not in saved:
            del main.__spec__


_forkserver_owner: list[int] = []
"""The process that started the forkserver: only it can ask it for a process."""


def _context() -> Any:
    """The forkserver, preloaded, where this process may use one; else spawn.

    Not on Windows, nor in a process forked after the forkserver started (a Sphinx
    ``-j`` reader), which multiprocessing does not find among its children.
    """
    if not _forkserver_owner:
        _forkserver_owner.append(os.getpid())
    usable = "forkserver" in multiprocessing.get_all_start_methods()
    if not usable or _forkserver_owner[0] != os.getpid():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([*PRELOAD])
    return context


def stop_forkserver() -> None:
    """Stop the forkserver and its resource tracker (as multiprocessing's tests do, 3.8+)."""
    for module, name in (
        (multiprocessing.forkserver, "_forkserver"),
        (resource_tracker, "_resource_tracker"),
    ):
        stop = getattr(getattr(module, name, None), "_stop", None)
        if stop is not None:
            stop()
