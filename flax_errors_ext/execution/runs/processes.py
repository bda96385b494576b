"""Stop this process's kernels at once, when a run is interrupted.

A kernel runs an example until it returns or its timeout strikes; an interrupted
run must not wait for either. The kernels are this process's children: the fork
server's launchers (whose kernels end with them) or ordinary IPython kernels.
They are found through ``/proc`` where it exists; elsewhere they end with the
run's process, as before.
"""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

KERNEL_COMMANDS = ("flax_errors_ext.execution.fork_server", "ipykernel_launcher")
"""What the command line of one of our kernel processes (or of the server) holds."""


def children(pid: int) -> list[tuple[int, str]]:
    """(pid, command line) of every child of ``pid``; empty where ``/proc`` is missing."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = stat.read_text(encoding="ascii", errors="replace").rsplit(") ", 1)[1].split()
            if int(fields[1]) == pid:
                command = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode()
                found.append((int(stat.parent.name), command))
    return found


def stop_kernels() -> list[int]:
    """Terminate this process's kernel processes and the fork server; their pids.

    A launcher passes the signal on to its kernel; the server's kernels see it go
    and end too. No run of theirs reaches the cache: a run is cached only once
    its notebook has run to the end.
    """
    stopped = []
    for pid, command in children(os.getpid()):
        if any(name in command for name in KERNEL_COMMANDS):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGTERM)
                stopped.append(pid)
    return stopped
