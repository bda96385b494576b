"""The fork server: one process imports jax and flax, then forks a kernel per request.

Most of a kernel's start-up is importing ipykernel, jax and flax, and the
processes each kernel forks for its entries' examples inherit what it imported.
The server pays that once: it imports them, without initialising any JAX backend
(forking after that would be unsafe), and then forks a kernel per
:class:`~.protocol.KernelRequest`. A fork of an untouched process is as fresh as a
new interpreter for everything the examples can change, so each entry is still
isolated. A kernel that would need an environment the
server did not import under starts as an ordinary kernel instead, so a warm kernel
is only ever a faster one.

The server also answers the build's device probe: a forked child initialises JAX's
backend, reports the devices it sees and exits. It lives as long as the build that
started it, unless that build asks it to linger for the next one (see
:class:`_Server` for when it is reused).
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import selectors
import signal
import socket
import sys
import time

from flax_errors_ext.execution.fork_server.launcher import ordinary_kernel
from flax_errors_ext.execution.fork_server.preload import ImportEnvironment, preload
from flax_errors_ext.execution.fork_server.protocol import (
    FreshnessRequest,
    KernelRequest,
    LingerRequest,
    ProbeRequest,
    Request,
    StopRequest,
    decode,
    receive,
)

_POLL_S = 1.0  # how often the server looks whether its build is still there


def serve(path: str, build: int) -> None:
    """Import the heavy modules, then fork a kernel for each request on ``path``.

    ``build`` is the process that started the server (its parent): named by the
    build rather than asked for here, since it may die before this process starts.
    """
    # `python -m` put our start directory first on sys.path; a kernel starts
    # without it (ipykernel_launcher removes it, IPython adds the kernel's cwd).
    if sys.path and sys.path[0] in ("", os.getcwd()):
        del sys.path[0]
    before = dict(os.environ)
    imported = preload()
    # What was imported lives as long as the server and every process forked from
    # it: kept out of the collector's way, a collection in a kernel or an entry's
    # process does not touch, and so copy, the memory they share with the server.
    gc.freeze()
    server = _Server(path, build, ImportEnvironment(before, dict(os.environ)), imported)
    try:
        server.run()
    except SystemExit as stopped:
        _exit_now(stopped.code if isinstance(stopped.code, int) else 1)
    _exit_now(0)


def _exit_now(status: int) -> None:
    """End the server once :meth:`_Server.run` has ended its kernels and removed its socket.

    Without the interpreter's finalisation: tearing down jax, flax and IPython
    module by module does nothing of use, and every build would wait for it.
    """
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


class _Server:
    """The server's state and loop, once the heavy modules are imported.

    The server lives while the build that started it does. Asked to *linger*, it
    outlives the build and exits once it has been idle (no kernel running, no
    request) that many seconds, so that the next build can reuse it; a build that
    finds it first asks whether it is *fresh*: the same Python, the same
    import-time environment, not one file it imported changed since, and no package
    installed or removed since.
    """

    def __init__(
        self, path: str, build: int, import_env: ImportEnvironment, imported: dict[str, int]
    ) -> None:
        self.path = path
        self.import_env = import_env
        self.imported = imported
        self.build = build
        self.kernels: dict[int, socket.socket] = {}  # kernel pid -> its launcher's connection
        self.linger: float | None = None  # None: serving the build that started us
        self.last_active = time.monotonic()
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        self.listener.bind(path + ".tmp")
        self.listener.listen(64)
        os.replace(path + ".tmp", path)  # launchers see the socket only once it accepts
        self.wake_read, wake_write = os.pipe()
        os.set_blocking(wake_write, False)
        signal.set_wakeup_fd(wake_write)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the build stops us with SIGTERM
        signal.signal(signal.SIGTERM, _exit_on_signal)  # ... and then our kernels end too
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.listener, selectors.EVENT_READ, "accept")
        self.selector.register(self.wake_read, selectors.EVENT_READ, "signal")

    def run(self) -> None:
        """Serve until the build is gone, or until idle for as long as asked to linger.

        However it ends (a SIGTERM too), no kernel of the server outlives it.
        """
        try:
            while not self._done():
                self._serve_once()
        finally:
            for pid in self.kernels:
                _kill_group(pid)
            with contextlib.suppress(OSError):
                os.unlink(self.path)
                os.rmdir(os.path.dirname(self.path))

    def _serve_once(self) -> None:
        for key, _ in self.selector.select(timeout=_POLL_S):
            if key.data == "accept":
                self.last_active = time.monotonic()
                connection, _ = self.listener.accept()
                line, streams = receive(connection)
                try:
                    self._answer(connection, line, streams)
                finally:
                    for fd in streams:
                        os.close(fd)
            elif key.data == "signal":
                os.read(self.wake_read, 512)
                _reap(self.kernels, self.selector)
            else:  # the launcher hung up (killed): its kernel must not outlive it
                _kill_group(key.data)
                self.selector.unregister(key.fileobj)

    def _done(self) -> bool:
        if self.kernels:
            self.last_active = time.monotonic()
        if self.linger is None:
            return os.getppid() != self.build  # the build died without stopping us
        return time.monotonic() - self.last_active >= self.linger

    def _answer(self, connection: socket.socket, line: str, streams: list[int]) -> None:
        try:
            request: Request = decode(line)
        except ValueError as error:
            _reply(connection, {"error": str(error)})
            return
        inherited = [self.listener, *self.kernels.values()]
        match request:
            case ProbeRequest():
                _fork_probe(connection, inherited)
            case FreshnessRequest():
                _reply(connection, {"stale": _stale(request, self.import_env, self.imported)})
            case LingerRequest(seconds=seconds):
                self.linger = max(0.0, float(seconds))
                _reply(connection, {"linger": self.linger})
            case StopRequest():
                self.linger = 0.0
                _reply(connection, {"stopping": True})
            case KernelRequest():
                pid = _fork_kernel(connection, request, self.import_env, inherited, streams)
                self.kernels[pid] = connection
                self.selector.register(connection, selectors.EVENT_READ, pid)


def _exit_on_signal(signum: int, _: object) -> None:
    raise SystemExit(128 + signum)


def _stale(
    request: FreshnessRequest, import_env: ImportEnvironment, imported: dict[str, int]
) -> str:
    """Why this server must not serve the build that sent ``request`` ("" if it may)."""
    if request.executable != sys.executable:
        return f"it runs {sys.executable}, the build {request.executable}"
    if not import_env.matches(request.env):
        return "the build's import-time environment differs"
    for path, mtime in imported.items():
        try:
            changed = os.stat(path).st_mtime_ns != mtime
        except OSError:
            changed = True
        if changed:
            return f"{path} changed since it was imported"
    return ""


def _reply(connection: socket.socket, answer: dict[str, object]) -> None:
    with connection, contextlib.suppress(OSError):
        connection.sendall(json.dumps(answer).encode() + b"\n")


def _become_child(inherited: list[socket.socket]) -> None:
    """In a freshly forked child: drop the server's sockets and signal handling."""
    for sock in inherited:
        sock.close()
    signal.set_wakeup_fd(-1)
    for signum in (signal.SIGCHLD, signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, signal.SIG_DFL)


def _fork_probe(connection: socket.socket, inherited: list[socket.socket]) -> None:
    """Answer a device probe from a child, which may start a backend: it exits after."""
    if os.fork():
        connection.close()  # the child answers; the SIGCHLD handler reaps it
        return
    try:
        _become_child(inherited)
        os.environ["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"  # only a look, not a claim
        from flax_errors_ext.execution.runs.in_kernel import device_record

        connection.sendall(json.dumps(device_record()).encode() + b"\n")
    except BaseException:
        _exit_with_traceback()
    os._exit(0)


def _fork_kernel(
    connection: socket.socket,
    request: KernelRequest,
    import_env: ImportEnvironment,
    inherited: list[socket.socket],
    streams: list[int],
) -> int:
    """Fork a kernel for ``request``; its output goes to the launcher's ``streams``.

    The launcher's stdout and stderr are where jupyter_client wanted the kernel's
    (a kernel that fails to start is told of by what it wrote there); without
    them, the kernel writes to the server's log.
    """
    pid = os.fork()
    if pid:
        # The kernel leads a process group of its own, with the processes it forks
        # for its entries: a signal to the kernel's group reaches them all. Set on
        # both sides of the fork, so that it holds before either goes on.
        with contextlib.suppress(OSError):
            os.setpgid(pid, pid)
        connection.sendall(json.dumps({"pid": pid}).encode() + b"\n")
        return pid
    try:
        os.setpgid(0, 0)
        _become_child(inherited)
        connection.close()
        for target, fd in zip((1, 2), streams, strict=False):
            os.dup2(fd, target)
            os.close(fd)
        os.chdir(request.cwd)
        os.environ.clear()
        os.environ.update(request.env)
        if not import_env.matches(request.env):
            ordinary_kernel(request.argv)
        sys.argv = ["ipykernel_launcher", *request.argv]
        from ipykernel.kernelapp import IPKernelApp

        IPKernelApp.launch_instance(argv=request.argv)
    except SystemExit as done:
        os._exit(done.code if isinstance(done.code, int) else 0)
    except BaseException:
        _exit_with_traceback()
    os._exit(0)


def _kill_group(kernel: int) -> None:
    """End a kernel and every process it forked (its group)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(kernel, signal.SIGKILL)


def _exit_with_traceback() -> None:
    """End a forked child that failed, leaving its traceback in the server's log."""
    import traceback

    traceback.print_exc()
    os._exit(1)


def _reap(kernels: dict[int, socket.socket], selector: selectors.BaseSelector) -> None:
    """Collect every child that ended; tell a kernel's launcher how it ended."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        connection = kernels.pop(pid, None)
        if connection is None:
            continue
        with contextlib.suppress(KeyError, ValueError):
            selector.unregister(connection)
        with contextlib.suppress(OSError):
            connection.sendall(
                json.dumps({"status": os.waitstatus_to_exitcode(status)}).encode() + b"\n"
            )
        connection.close()
