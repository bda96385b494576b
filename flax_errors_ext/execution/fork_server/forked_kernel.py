"""A kernel the server forked, handled as a process is: polled, waited for, signalled.

The server answers a :class:`~.protocol.KernelRequest` with the kernel's pid, and
later, on the same connection, with its exit status; a connection closed by the
asking side makes the server kill the kernel. :class:`ForkedKernel` holds that
connection and offers what jupyter_client asks of a ``subprocess.Popen``, so that
the provisioner (:mod:`.provisioner`) and the launcher (:mod:`.launcher`) hand it
on as the kernel's process.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import time
from typing import TYPE_CHECKING

from flax_errors_ext.execution.fork_server.protocol import KernelRequest, connect, send

if TYPE_CHECKING:
    import socket

_LOST = 1
"""The status of a kernel whose server hung up without saying how it ended."""


class ForkedKernel:
    """A forked kernel, as far as ``subprocess.Popen`` goes: pid, poll, wait, signals."""

    stdin = stdout = stderr = None
    """No pipes: the kernel writes to the files given with its request."""

    def __init__(self, connection: socket.socket) -> None:
        """Read the server's first answer, the kernel's pid, on ``connection``.

        Raises:
            OSError, ValueError, KeyError: the server answered no pid.
        """
        self._connection = connection
        self._received = b""
        self.returncode: int | None = None
        """As ``Popen``'s: the exit status, or minus the signal that ended it."""
        first = self._line(timeout=None)
        if first is None:
            raise OSError("the kernel server hung up before it forked a kernel")
        self.pid = int(json.loads(first)["pid"])

    def poll(self) -> int | None:
        """The exit status if the kernel has ended, else None; never blocks."""
        if self.returncode is None:
            self._status(timeout=0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        """The exit status, once the kernel has ended.

        Raises:
            TimeoutError: if it still runs after ``timeout`` seconds.
        """
        if self.returncode is None:
            self._status(timeout=timeout)
        if self.returncode is None:
            raise TimeoutError(f"kernel {self.pid} still runs after {timeout} s")
        return self.returncode

    def send_signal(self, signum: int) -> None:
        """Signal the kernel's group, unless it has ended (its pid may be another's).

        The server makes each kernel lead a group, with the processes it forks for
        its entries; a kernel that leads none is signalled alone.
        """
        if self.poll() is None:
            try:
                os.killpg(self.pid, signum)
            except ProcessLookupError:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.pid, signum)

    def kill(self) -> None:
        """End the kernel at once (SIGKILL)."""
        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        """Ask the kernel to end (SIGTERM)."""
        self.send_signal(signal.SIGTERM)

    def _status(self, timeout: float | None) -> None:
        """Take the exit status, if the server says it within ``timeout`` seconds."""
        line = self._line(timeout)
        if line is not None:
            self.returncode = int(json.loads(line)["status"])
        elif self._connection.fileno() < 0:
            self.returncode = _LOST
        if self.returncode is not None:
            self._connection.close()

    def _line(self, timeout: float | None) -> bytes | None:
        """The server's next line, if it comes within ``timeout`` (None: however long).

        None as well once the server has hung up; the connection is then closed.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self._received:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([self._connection], [], [], left)
            if not ready:
                return None
            try:
                data = self._connection.recv(4096)
            except OSError:
                data = b""
            if not data:
                self._connection.close()
                return None
            self._received += data
        line, self._received = self._received.split(b"\n", 1)
        return line


def request_kernel(
    address: str, argv: list[str], cwd: str, env: dict[str, str], streams: tuple[int, ...]
) -> ForkedKernel | None:
    """Ask the server at ``address`` for a kernel; None if no server answers.

    ``streams`` are the open files the kernel's stdout and stderr go to (the
    server gets copies; none: the server's own log).
    """
    connection = connect(address)
    if connection is None:
        return None
    try:
        send(connection, KernelRequest(argv=argv, cwd=cwd, env=env), streams=streams)
        return ForkedKernel(connection)
    except (OSError, ValueError, KeyError, TypeError):
        # A server that went away or answered something else: no warm kernel from it.
        connection.close()
        return None
