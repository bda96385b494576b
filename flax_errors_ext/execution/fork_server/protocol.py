"""What the build, the launcher and the fork server say to each other, as typed requests.

Each request is one JSON line on the server's Unix socket, tagged with its type;
the server answers with one JSON line (a kernel's launcher gets a second one when
its kernel exits). :func:`ask` sends a request and reads the answer.
"""

from __future__ import annotations

import dataclasses
import json
import os
import socket
import time
from typing import Any, TypeAlias

SERVER_ENV_VAR = "FLAX_ERRORS_KERNEL_SERVER"
"""Names the build's server (``SOCKET:PID``) to the launchers its kernels start."""
SERVE = "serve"
"""``python -m flax_errors_ext.execution.fork_server serve SOCKET BUILD-PID``: be the server."""
LAUNCH = "launch"
"""``python -m flax_errors_ext.execution.fork_server launch KERNEL-ARGS...``: be a kernel.

The kernelspec's command (:mod:`flax_errors_ext.execution.runs.kernelspec`); the
provisioner takes the kernel's own arguments from after this word."""
_WAIT_FOR_SERVER_S = 60.0
_MAX_STREAMS = 2  # a launcher's stdout and stderr


@dataclasses.dataclass(frozen=True)
class KernelRequest:
    """Fork a kernel with these arguments, in this folder, under this environment."""

    argv: list[str]
    cwd: str
    env: dict[str, str]


@dataclasses.dataclass(frozen=True)
class ProbeRequest:
    """Say which JAX devices a kernel would see (a forked child starts a backend)."""


@dataclasses.dataclass(frozen=True)
class FreshnessRequest:
    """May a server kept from an earlier build serve a build with these settings?"""

    executable: str
    env: dict[str, str]


@dataclasses.dataclass(frozen=True)
class LingerRequest:
    """Outlive the build, idle, for this many seconds."""

    seconds: float


@dataclasses.dataclass(frozen=True)
class StopRequest:
    """Exit once no kernel runs."""


Request: TypeAlias = KernelRequest | ProbeRequest | FreshnessRequest | LingerRequest | StopRequest
_TYPES: dict[str, type[Request]] = {
    cls.__name__: cls
    for cls in (KernelRequest, ProbeRequest, FreshnessRequest, LingerRequest, StopRequest)
}


def encode(request: Request) -> bytes:
    """The request as the line sent on the socket."""
    return (
        json.dumps({"type": type(request).__name__, **dataclasses.asdict(request)}).encode()
        + b"\n"
    )


def decode(line: str) -> Request:
    """The request a line holds.

    Raises:
        ValueError: if the line is not a request of a known type.
    """
    data = json.loads(line)
    if not isinstance(data, dict) or data.get("type") not in _TYPES:
        raise ValueError(f"not a fork-server request: {line[:200]!r}")
    fields = {k: v for k, v in data.items() if k != "type"}
    try:
        return _TYPES[data["type"]](**fields)
    except TypeError as error:
        raise ValueError(f"malformed {data['type']}: {error}") from None


def send(connection: socket.socket, request: Request, streams: tuple[int, ...] = ()) -> None:
    """Send ``request``, and with it the open files ``streams`` (the server gets copies)."""
    data = encode(request)
    sent = socket.send_fds(connection, [data], list(streams)) if streams else 0
    connection.sendall(data[sent:])


def receive(connection: socket.socket) -> tuple[str, list[int]]:
    """The request line on ``connection``, and the open files sent with it (the caller's)."""
    data, fds, _, _ = socket.recv_fds(connection, 1 << 16, _MAX_STREAMS)
    while data and not data.endswith(b"\n"):
        more = connection.recv(1 << 16)
        if not more:
            break
        data += more
    return data.decode(errors="replace"), list(fds)


def ask(
    address: str, request: Request, *, timeout: float, wait: bool = True
) -> dict[str, Any] | None:
    """Send the server at ``address`` one request; its answer, or None if it has none.

    ``wait``: wait for a server that is still importing (up to a minute) rather
    than give up at once when its socket does not answer yet.
    """
    connection = connect(address, wait=wait)
    if connection is None:
        return None
    with connection:
        connection.settimeout(timeout)
        try:
            connection.sendall(encode(request))
            line = connection.makefile().readline()
        except OSError:
            return None
    answer: dict[str, Any] | None = json.loads(line) if line else None
    return answer


def connect(address: str, *, wait: bool = True) -> socket.socket | None:
    """Connect to the server named by ``SOCKET:PID``, waiting while it still imports."""
    path, _, pid = address.rpartition(":")
    if not path or not pid.isdigit():
        return None
    deadline = time.monotonic() + (_WAIT_FOR_SERVER_S if wait else 0.0)
    while True:
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            connection.connect(path)
        except OSError:
            connection.close()
            # Past the deadline, or once the server is gone, an ordinary kernel it is.
            if time.monotonic() > deadline or not alive(int(pid)):
                return None
            time.sleep(0.05)
        else:
            return connection


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A server that died unreaped by its parent is a zombie: not alive for us.
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().split(") ", 1)[1][:1] != "Z"
    except OSError:
        return True
