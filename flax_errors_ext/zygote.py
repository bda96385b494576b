"""Warm kernels: fork each IPython kernel from a process that has imported jax and flax.

Every catalogue entry runs in a kernel of its own, and most of a kernel's start-up
is importing ipykernel, jax and flax (about 4.5 s of a 5 s start on two cores).
The *server* pays that once: it imports them, without initialising any JAX backend
(forking after that would be unsafe), and then forks a kernel per request. A fork
of an untouched process is as fresh as a new interpreter for everything the
examples can change, so each entry is still isolated.

The kernelspec runs the *launcher*, which stands in for the kernel process towards
jupyter_client: it asks the server for a kernel, forwards signals to it, and exits
with its exit status. If the server cannot be reached, or the kernel would need an
environment the server did not import under, the launcher (or the forked child)
starts an ordinary kernel instead, so a warm kernel is only ever a faster one.

The server also answers the build's device probe: a forked child initialises JAX's
backend, reports the devices it sees and exits, which spares the build a separate
interpreter that would import jax only to ask that.

Usage (both run by the build, not by people)::

    python -m flax_errors_ext.zygote serve SOCKET
    python -m flax_errors_ext.zygote launch -f CONNECTION_FILE
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import socket
import sys
import time
from typing import Any

SERVER_ENV_VAR = "FLAX_ERRORS_KERNEL_SERVER"
PRELOAD = (
    "ipykernel.kernelapp",
    "ipykernel.ipkernel",
    "ipykernel.zmqshell",
    "ipykernel.debugger",
    "IPython",
    "numpy",
    "jax",
    "jax.numpy",
    "flax",
    "flax.linen",
)
# Imported lazily by every kernel (JAX's first lowering, the kernel's own start-up),
# so importing them once here saves each kernel as much (about 0.2 s of CPU). Not
# required: a JAX or IPython without one of them still gets a working server.
WARM_UP = (
    "jaxlib.mlir.dialects.mhlo",
    "IPython.core.completerlib",
    "IPython.core.debugger",
    "IPython.extensions.storemagic",
    "argcomplete",
    "traitlets.config.argcomplete_config",
    "sqlite3",
    "tornado.platform.asyncio",
)
# Environment variables read when these modules are imported: a kernel that needs
# other values than the server had must import afresh.
_IMPORT_TIME_PREFIXES = ("JAX_", "XLA_", "TF_", "CUDA", "NVIDIA_", "TPU_", "FLAX_", "PYTHON")
_WAIT_FOR_SERVER_S = 60.0


def _import_time_env(env: dict[str, str]) -> dict[str, str]:
    return {
        k: v
        for k, v in env.items()
        if k.startswith(_IMPORT_TIME_PREFIXES) and not k.startswith("FLAX_ERRORS_")
    }


def _ordinary_kernel(argv: list[str]) -> None:
    """Replace this process with a normally started kernel (never returns)."""
    os.execv(sys.executable, [sys.executable, "-m", "ipykernel_launcher", *argv])


# ---- server ------------------------------------------------------------------


def preload() -> None:
    """Import what every kernel needs, and make sure that this left no backend running.

    Raises:
        SystemExit: if a JAX backend started on import: its threads would not
            survive a fork. A server that exits makes every launcher start an
            ordinary kernel instead.
    """
    import importlib

    for name in PRELOAD:
        importlib.import_module(name)
    for name in WARM_UP:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    from jax._src import xla_bridge

    if xla_bridge.backends_are_initialized():
        raise SystemExit("flax-errors kernel server: a JAX backend started on import; not serving")


def serve(path: str) -> None:
    """Import the heavy modules, then fork a kernel for each request on ``path``."""
    # `python -m` put our start directory first on sys.path; a kernel starts
    # without it (ipykernel_launcher removes it, IPython adds the kernel's cwd).
    if sys.path and sys.path[0] in ("", os.getcwd()):
        del sys.path[0]
    preload()
    env_at_import = _import_time_env(dict(os.environ))
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
    listener.bind(path + ".tmp")
    listener.listen(64)
    os.replace(path + ".tmp", path)  # launchers see the socket only once it accepts

    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the build stops us with SIGTERM
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, "accept")
    selector.register(wake_read, selectors.EVENT_READ, "signal")
    kernels: dict[int, socket.socket] = {}  # kernel pid -> its launcher's connection

    while True:
        for key, _ in selector.select():
            if key.data == "accept":
                connection, _ = listener.accept()
                request = json.loads(connection.makefile().readline() or "{}")
                inherited = [listener, *kernels.values()]
                if request.get("probe"):
                    _fork_probe(connection, inherited)
                    continue
                pid = _fork_kernel(connection, request, env_at_import, inherited)
                kernels[pid] = connection
                selector.register(connection, selectors.EVENT_READ, pid)
            elif key.data == "signal":
                os.read(wake_read, 512)
                _reap(kernels, selector)
            else:  # the launcher hung up (killed): its kernel must not outlive it
                with contextlib.suppress(ProcessLookupError):
                    os.kill(key.data, signal.SIGKILL)
                selector.unregister(key.fileobj)


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
        from flax_errors_ext.kernel import device_record

        connection.sendall(json.dumps(device_record()).encode() + b"\n")
    except BaseException:
        _exit_with_traceback()
    os._exit(0)


def _fork_kernel(
    connection: socket.socket,
    request: dict[str, Any],
    env_at_import: dict[str, str],
    inherited: list[socket.socket],
) -> int:
    pid = os.fork()
    if pid:
        connection.sendall(json.dumps({"pid": pid}).encode() + b"\n")
        return pid
    try:
        _become_child(inherited)
        connection.close()
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        if _import_time_env(request["env"]) != env_at_import:
            _ordinary_kernel(request["argv"])
        sys.argv = ["ipykernel_launcher", *request["argv"]]
        from ipykernel.kernelapp import IPKernelApp

        IPKernelApp.launch_instance(argv=request["argv"])
    except SystemExit as done:
        os._exit(done.code if isinstance(done.code, int) else 0)
    except BaseException:
        _exit_with_traceback()
    os._exit(0)


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


# ---- launcher ----------------------------------------------------------------


def launch(argv: list[str]) -> None:
    """Be the kernel process for jupyter_client: a warm kernel if possible."""
    connection = _connect(os.environ.get(SERVER_ENV_VAR, ""))
    if connection is None:
        _ordinary_kernel(argv)
        return
    request = {"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ)}
    connection.sendall(json.dumps(request).encode() + b"\n")
    replies = connection.makefile()
    pid = json.loads(replies.readline())["pid"]

    def forward(signum: int, _: Any) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signum)

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGQUIT):
        signal.signal(signum, forward)
    line = replies.readline()  # blocks until the kernel exits (or the server dies)
    status = json.loads(line)["status"] if line else 1
    sys.exit(status if status >= 0 else 128 - status)


def probe(address: str, timeout: float) -> dict[str, Any] | None:
    """The devices a kernel of the server at ``address`` sees; None if it cannot say."""
    connection = _connect(address)
    if connection is None:
        return None
    with connection:
        connection.settimeout(timeout)
        try:
            connection.sendall(json.dumps({"probe": True}).encode() + b"\n")
            line = connection.makefile().readline()
        except OSError:
            return None
    answer: dict[str, Any] | None = json.loads(line) if line else None
    return answer


def _connect(address: str) -> socket.socket | None:
    """Connect to the server named by ``SOCKET:PID``, waiting while it still imports."""
    path, _, pid = address.rpartition(":")
    if not path or not pid.isdigit():
        return None
    deadline = time.monotonic() + _WAIT_FOR_SERVER_S
    while True:
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            connection.connect(path)
        except OSError:
            connection.close()
            # Past the deadline, or once the server is gone, an ordinary kernel it is.
            if time.monotonic() > deadline or not _alive(int(pid)):
                return None
            time.sleep(0.05)
        else:
            return connection


def _alive(pid: int) -> bool:
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


def main(argv: list[str]) -> None:
    """Entry point: ``serve SOCKET`` or ``launch KERNEL-ARGS...``."""
    command, *rest = argv
    if command == "serve":
        serve(rest[0])
    elif command == "launch":
        launch(rest)
    else:
        raise SystemExit(
            f"usage: python -m flax_errors_ext.zygote serve SOCKET | launch ARGS ({command!r}?)"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
