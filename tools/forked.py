"""Calls run each in a process forked for it alone, a few at a time, each with a timeout.

Where this repository runs examples without Jupyter (the device runner, where only
JAX and Flax are installed; the history's runner, in an old Flax release's venv; the
isolation floor's bench), this is how each gets a fresh process: forked from the
caller, which has imported what they share, and started in an empty working
directory of its own, so that no example sees the state or the files of another. A
call that hangs is killed at its timeout and one that crashes its process is told
of; the others run on. What runs in the child is the caller's (most often
:func:`~flax_errors_ext.execution.runs.in_process.run_here`).

Only the standard library is imported here: the history's runner loads this module
under old releases of jax and flax, before it imports them.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
import shutil
import tempfile
import time
from multiprocessing.connection import wait
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

Call = tuple["Callable[..., Any]", tuple[Any, ...]]
"""A function and its arguments, to run in a child."""


@dataclasses.dataclass(frozen=True)
class Forked:
    """What a call in a child gave: its value, or why there is none."""

    value: Any
    failure: str = ""
    """Empty if the call returned; else why not (timed out, died, raised)."""


@dataclasses.dataclass
class _Child:
    process: BaseProcess
    receive: Connection
    workdir: str
    deadline: float | None

    def end(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self.receive.close()
        shutil.rmtree(self.workdir, ignore_errors=True)


def run_forked(
    calls: Sequence[Call], *, jobs: int = 1, timeout: float | None = None
) -> Iterator[Forked]:
    """Run each call in a fresh forked child, ``jobs`` at once; their outcomes, in order.

    Args:
        calls: What to run; each child runs one, in a new empty working directory.
        jobs: How many children run at once.
        timeout: Seconds a child may take before it is killed (None: no limit).

    Raises:
        KeyboardInterrupt: if a child was interrupted (Ctrl-C reaches the whole
            process group); every child still running is killed.
    """
    fork = multiprocessing.get_context("fork")
    waiting = list(enumerate(calls))[::-1]
    running: dict[int, _Child] = {}
    done: dict[int, Forked] = {}
    next_out = 0
    try:
        while next_out < len(calls):
            while waiting and len(running) < max(1, jobs):
                index, call = waiting.pop()
                running[index] = _start(fork, call, timeout)
            for index in _finished(running):
                done[index] = _outcome(running.pop(index), timeout)
            while next_out in done:
                yield done.pop(next_out)
                next_out += 1
    finally:
        for child in running.values():
            child.end()


def _start(fork: Any, call: Call, timeout: float | None) -> _Child:
    workdir = tempfile.mkdtemp(prefix="flax-errors-run-")
    receive, send = fork.Pipe(duplex=False)
    target, args = call
    process = fork.Process(target=_child, args=(send, workdir, target, args), daemon=True)
    process.start()
    send.close()
    deadline = None if timeout is None else time.monotonic() + timeout
    return _Child(process, receive, workdir, deadline)


def _finished(running: dict[int, _Child]) -> list[int]:
    """The children that answered, died or ran out of time, once one of them has."""
    deadlines = [c.deadline for c in running.values() if c.deadline is not None]
    left = max(0.0, min(deadlines) - time.monotonic()) if deadlines else None
    ready = set(wait([c.receive for c in running.values()], left))
    now = time.monotonic()
    return [
        index
        for index, child in running.items()
        if child.receive in ready or (child.deadline is not None and now >= child.deadline)
    ]


def _outcome(child: _Child, timeout: float | None) -> Forked:
    try:
        if not child.receive.poll():
            return Forked(None, f"timed out after {timeout:g} s")
        try:
            status, value = child.receive.recv()
        except EOFError:
            child.process.join(5)
            return Forked(None, f"the process died (exit code {child.process.exitcode})")
        if status == "interrupted":
            raise KeyboardInterrupt
        return Forked(value) if status == "ok" else Forked(None, f"the call raised {value}")
    finally:
        child.end()


def _child(
    send: Connection, workdir: str, target: Callable[..., Any], args: tuple[Any, ...]
) -> None:
    os.chdir(workdir)
    try:
        send.send(("ok", target(*args)))
    except KeyboardInterrupt:
        send.send(("interrupted", None))
    except BaseException as error:
        send.send(("error", repr(error)))
