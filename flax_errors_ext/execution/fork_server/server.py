"""The fork server: one process imports jax and flax, then forks a kernel per request.

Every catalogue entry runs in a kernel of its own, and most of a kernel's start-up
is importing ipykernel, jax and flax. The server pays that once: it imports them,
without initialising any JAX backend (forking after that would be unsafe), and
then forks a kernel per :class:`~.protocol.KernelRequest`. A fork of an untouched
process is as fresh as a new interpreter for everything the examples can change,
so each entry is still isolated. A kernel that would need an environment the
server did not import under starts as an ordinary kernel instead, so a warm kernel
is only ever a faster one.

The server also answers the build's device probe: a forked child initialises JAX's
backend, reports the devices it sees and exits. It lives as long as the build that
started it, unless that build asks it to linger for the next one (see
:class:`_Server` for when it is reused).
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.metadata
import importlib.util
import json
import os
import pkgutil
import selectors
import signal
import site
import socket
import sys
import time
from typing import TYPE_CHECKING

from flax_errors_ext.execution.fork_server.launcher import ordinary_kernel
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

if TYPE_CHECKING:
    from types import ModuleType

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
# so importing them once here spares each kernel that work. Not required: a JAX
# or IPython without one of them still gets a working server. Only modules that
# are the same whenever imported: not doctest (nor what imports it), whose
# debugger subclasses pdb's class as found at import, which IPython's start-up
# replaces (every example then crashed on a missing ``set_theme_name``).
WARM_UP = (
    "jaxlib.mlir.dialects.mhlo",
    "jaxlib.mlir.dialects.builtin",
    "IPython.core.completerlib",
    "IPython.core.debugger",
    "IPython.core.logger",
    "IPython.core.oinspect",
    "IPython.utils.wildcard",
    "IPython.extensions.storemagic",
    "readline",
    "unittest",  # doctest's own imports, all but doctest itself (see above)
    "difflib",
    "concurrent.futures.thread",
    "runpy",
    "argcomplete",
    "traitlets.config.argcomplete_config",
    "sqlite3",
    "tornado.platform.asyncio",
)
# Environment variables read when these modules are imported: a kernel that needs
# other values than the server had must import afresh.
_IMPORT_TIME_PREFIXES = (
    "JAX_",
    "XLA_",
    "TF_",
    "CUDA",
    "NVIDIA_",
    "TPU_",
    "FLAX_",
    "PYTHON",
    "PJRT_",  # JAX's plugins named by path: looked for once, here (_look_for_jax_plugins)
)
_POLL_S = 1.0  # how often the server looks whether its build is still there


def _import_time_env(env: dict[str, str]) -> dict[str, str]:
    return {
        k: v
        for k, v in env.items()
        if k.startswith(_IMPORT_TIME_PREFIXES) and not k.startswith("FLAX_ERRORS_")
    }


class _ImportEnvironment:
    """The import-time environment the server's imports saw, to compare a build's with.

    Importing jax sets a few such variables itself (``TF_CPP_MIN_LOG_LEVEL``, ...):
    they are its doing, not the build's choice, so they are left out on both sides;
    otherwise a build that had itself imported jax, or one that had not, would
    never be served.
    """

    def __init__(self, before: dict[str, str], after: dict[str, str]) -> None:
        self._set_by_import = {
            k for k in before.keys() | after.keys() if before.get(k) != after.get(k)
        }
        self._seen = self._chosen(before)

    def _chosen(self, env: dict[str, str]) -> dict[str, str]:
        return {k: v for k, v in _import_time_env(env).items() if k not in self._set_by_import}

    def matches(self, env: dict[str, str]) -> bool:
        """Whether imports under ``env`` would have seen what the server's saw."""
        return self._chosen(env) == self._seen


def preload() -> dict[str, int]:
    """Import what every kernel needs, and make sure that this left no backend running.

    Returns:
        Every file imported (noted once here for the kernels to report as their
        dependencies, see
        :func:`~flax_errors_ext.execution.runs.kernel_environment.note_environment`)
        and every folder packages are installed into, with its modification time:
        what a later build's freshness check compares.

    Raises:
        SystemExit: if a JAX backend started on import: its threads would not
            survive a fork. A server that exits makes every launcher start an
            ordinary kernel instead.
    """
    for name in PRELOAD:
        importlib.import_module(name)
    for name in WARM_UP:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    from jax._src import xla_bridge

    if xla_bridge.backends_are_initialized():
        raise SystemExit("flax-errors kernel server: a JAX backend started on import; not serving")
    _look_for_jax_plugins(xla_bridge)
    from flax_errors_ext.execution.runs.kernel_environment import note_environment

    imported = {path: mtime for path, _, mtime in note_environment().values()}
    return imported | _package_folders()


def _look_for_jax_plugins(xla_bridge: ModuleType) -> None:
    """Do JAX's search for PJRT plugins once, here, where it finds none.

    JAX searches when a backend first starts, in every kernel: it reads the entry
    points of every installed distribution, about 15 ms of processor time per
    kernel. Where the search finds nothing, its outcome (no plugin) is the same in
    every kernel, so the server does it for them all. Where it would find a
    plugin, each kernel still searches for itself: registering a plugin loads its
    library, whose start-up need not survive a fork. A plugin installed later makes
    the server stale (:func:`_package_folders`), and a kernel that names plugins by
    environment variable is not served (``PJRT_`` is an import-time prefix).
    """
    search = getattr(xla_bridge, "_discover_and_register_pjrt_plugins", None)
    if search is None or os.environ.get("PJRT_NAMES_AND_LIBRARY_PATHS"):
        return  # a JAX that searches otherwise, or plugins named by path
    if importlib.metadata.entry_points(group="jax_plugins"):
        return
    namespace = sys.modules.get("jax_plugins") or importlib.util.find_spec("jax_plugins")
    paths = getattr(namespace, "__path__", None) or getattr(
        namespace, "submodule_search_locations", None
    )
    if paths and any(pkgutil.iter_modules(paths)):
        return
    search()


def _package_folders() -> dict[str, int]:
    """The folders packages are installed into, with their modification times.

    One changes when a distribution is installed into it or removed from it, which
    makes the server stale: a new JAX plugin, say, that its kernels would not see.
    """
    folders = {}
    for folder in {*site.getsitepackages(), site.getusersitepackages()} & set(sys.path):
        with contextlib.suppress(OSError):
            folders[folder] = os.stat(folder).st_mtime_ns
    return folders


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
    server = _Server(path, build, _ImportEnvironment(before, dict(os.environ)), imported)
    try:
        server.run()
    except SystemExit as stopped:
        _exit_now(stopped.code if isinstance(stopped.code, int) else 1)
    _exit_now(0)


def _exit_now(status: int) -> None:
    """End the server once :meth:`_Server.run` has ended its kernels and removed its socket.

    Without the interpreter's finalisation: tearing down jax, flax and IPython
    module by module took half a second, which every build waited for at its end.
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
        self, path: str, build: int, import_env: _ImportEnvironment, imported: dict[str, int]
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
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
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
                with contextlib.suppress(ProcessLookupError):
                    os.kill(key.data, signal.SIGKILL)
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
    request: FreshnessRequest, import_env: _ImportEnvironment, imported: dict[str, int]
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
    import_env: _ImportEnvironment,
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
        connection.sendall(json.dumps({"pid": pid}).encode() + b"\n")
        return pid
    try:
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
