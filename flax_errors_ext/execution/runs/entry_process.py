"""The process an entry's examples run in: forked by the kernel, one per entry.

A kernel of the build runs entry after entry, and starting one costs more than a
light entry's examples. So the build keeps its kernels, and each entry's examples
run in a process the kernel forks for that entry alone: as fresh as a new kernel
for everything an example can change, since the kernel itself never runs one. The
build asks for it in the metadata of the request that runs the entry's first cell
(:data:`START_REQUEST`), whose first call forks it (:func:`start_requested`):
no request of its own, which would be a round of messages per entry as dear as a
light example. The notebook's cells call into the process (:func:`call`); its last
call ends it (:func:`end`).

A kernel the build did not ask (the notebook run by another Jupyter client) has
no such process, and its cells run the examples in the kernel itself.

The process writes to the entry's log, not to the kernel's output streams: those
are the kernel's threads' to forward, and no thread of the kernel lives in it.

The kernel imports the entry's catalogued module before it forks, as pytest
imports a module before it runs its docstrings: every entry of the module starts
with it imported, rather than each importing it anew. A kernel serves the entries
of one module (:mod:`.kernels`), so what a module's import sets (a JAX flag) never
reaches another module's examples.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import os
import signal
import socket
import sys
import warnings
from multiprocessing.connection import Connection
from typing import Any

from flax_errors_ext.execution.runs.kernel_environment import note_environment

START_REQUEST = "flax_errors_entry_process"
"""The key, in an execute request's metadata, of the entry process the build asks for:
:func:`start`'s arguments by name."""

_current: tuple[int, Connection] | None = None
"""The pid of this kernel's entry process and the kernel's end of its connection."""
_killed: list[int] = []
"""Entry processes killed and not collected yet: collected once they have exited."""
_pristine: dict[str, Any] | None = None
"""The kernel's user namespace before any entry ran, which each entry starts from."""
_imported: str | None = None
"""The catalogued module this kernel imported itself (one that failed included), if any."""
_not_importable: set[str] = set()
"""Catalogued modules whose import failed here: each entry's examples import them
themselves, and say why they cannot."""


class EntryProcessDied(RuntimeError):
    """The entry's process ended before it answered (an example ended it)."""


class ImportStartedBackend(RuntimeError):
    """Importing the catalogued module started a JAX backend, whose threads a fork loses."""


def start_requested() -> None:
    """Fork the entry's process if the request running this cell asks for one (its metadata).

    Raises:
        ImportStartedBackend: importing the entry's module started a JAX backend.
    """
    shell = _shell()
    kernel = getattr(shell, "kernel", None)
    if kernel is None:
        return
    asked = kernel.get_parent("shell").get("metadata", {}).get(START_REQUEST)
    if isinstance(asked, dict):
        start(**asked)


def start(cwd: str, log: str, module: str | None = None, import_path: str = "") -> None:
    """Fork the process the next entry's examples run in, in ``cwd``, writing to ``log``.

    One at a time: a process left from an entry that never finished is ended first.
    ``module``, the entry's catalogued module, is imported here first (from
    ``import_path``), once for the kernel's life.

    Raises:
        ImportStartedBackend: importing ``module`` started a JAX backend: this
            kernel can fork no process that could use JAX.
    """
    global _current, _pristine  # noqa: PLW0603 - one entry process per kernel at a time
    end()
    namespace = _user_namespace()
    if module is not None:
        _import_catalogued(module, import_path)
    if _pristine is None:
        _pristine = dict(namespace or {})
        # What the kernel loaded as it started, noted as the fork server notes
        # what it loaded: each entry's process then looks only at what it loads.
        note_environment()
        # The kernel as it started lives as long as it does: kept out of the
        # collector's way, a collection in an entry's process does not touch, and
        # so copy, the memory that process shares with the kernel.
        gc.freeze()
    ours, theirs = socket.socketpair()
    with warnings.catch_warnings():
        # Python 3.12's warning that forking a process with threads may deadlock: the
        # child touches nothing the kernel's threads hold (it writes to its own files).
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid:
        theirs.close()
        _current = (pid, Connection(ours.detach()))
        return
    ours.close()
    _serve(Connection(theirs.detach()), cwd, log, namespace)


def _import_catalogued(module: str, import_path: str) -> None:
    """Import ``module`` here, with ``import_path`` on ``sys.path`` for the import alone.

    Each entry's process puts the paths it needs on its own ``sys.path``
    (:func:`~.in_kernel.begin`); the kernel's stays as it started.
    """
    global _imported  # noqa: PLW0603 - what this kernel holds of a catalogued module
    if module in sys.modules or module in _not_importable:
        return
    _imported = module
    started_before = _backend_started()
    saved = list(sys.path)
    if import_path and import_path not in sys.path:
        sys.path.insert(0, import_path)
    try:
        importlib.import_module(module)
    except Exception:  # the examples import it themselves, and their records say why
        _not_importable.add(module)
    finally:
        sys.path[:] = saved
    if _backend_started() and not started_before:
        raise ImportStartedBackend(f"importing {module} started a JAX backend")


def imported() -> str | None:
    """The catalogued module this kernel imported itself, if any.

    A kernel that imported none (its entries' module came with the kernel, as
    ``flax.errors`` does from the warm server) may serve any module's entries.
    """
    return _imported


def _backend_started() -> bool:
    bridge = sys.modules.get("jax._src.xla_bridge")
    return bridge is not None and bool(bridge.backends_are_initialized())


def running() -> bool:
    """Whether this kernel has an entry process (prepared by the build)."""
    return _current is not None


def call(function: Any, *args: Any, **kwargs: Any) -> Any:
    """``function(*args, **kwargs)`` in the entry process; what it returns or raises.

    ``function`` is a module-level function, sent by its name. Interrupted (an
    example's timeout), the process is ended with the call.

    Raises:
        EntryProcessDied: the process ended before it answered.
    """
    if _current is None:
        raise RuntimeError("this kernel has no entry process")
    pid, connection = _current
    try:
        connection.send((function, args, kwargs))
        failed, answer = connection.recv()
    except (EOFError, OSError):
        raise EntryProcessDied(_ended(pid)) from None
    except BaseException:
        end()
        raise
    if failed:
        raise answer
    return answer


def end() -> None:
    """End the entry process, if there is one; it is collected once it has exited.

    Not waited for: a process that ran JAX takes a while to exit (its memory
    unmapped, its threads ended), and the entry's last cell would wait as long.
    """
    global _current  # noqa: PLW0603
    _collect_ended()
    if _current is None:
        return
    pid, connection = _current
    _current = None
    connection.close()
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    _killed.append(pid)


def _collect_ended() -> None:
    """Collect the killed entry processes that have exited, without waiting for the others."""
    for pid in list(_killed):
        try:
            exited, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            exited = pid
        if exited:
            _killed.remove(pid)


def _ended(pid: int) -> str:
    """How the entry process ended, once it has; it is collected."""
    global _current  # noqa: PLW0603
    if _current is not None:
        _current[1].close()
        _current = None
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:
        return "the process that ran its examples ended"
    code = os.waitstatus_to_exitcode(status)
    how = f"signal {-code}" if code < 0 else f"exit code {code}"
    return f"the process that ran its examples ended ({how})"


def _serve(connection: Connection, cwd: str, log: str, namespace: dict[str, Any] | None) -> None:
    """In the entry process: answer calls until the connection closes, then exit."""
    try:
        os.chdir(cwd)
        output = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        for stream in (1, 2):
            os.dup2(output, stream)
        os.close(output)
        sys.stdout = open(1, "w", buffering=1, closefd=False)  # noqa: SIM115 - the process's
        sys.stderr = open(2, "w", buffering=1, closefd=False)  # noqa: SIM115
        signal.signal(signal.SIGINT, signal.default_int_handler)
        if namespace is not None:
            namespace.clear()
            namespace.update(_pristine or {})
        while True:
            try:
                function, args, kwargs = connection.recv()
            except EOFError:
                break
            try:
                answer: tuple[bool, Any] = (False, function(*args, **kwargs))
            except Exception as error:
                answer = (True, error)
            try:
                connection.send(answer)
            except Exception as error:  # an exception that does not pickle
                connection.send((True, RuntimeError(f"{type(error).__name__}: {error}")))
    except BaseException:
        import traceback

        traceback.print_exc()
        _exit(1)
    _exit(0)


def _exit(status: int) -> None:
    """Leave without the kernel's clean-up, which is the kernel's, not this process's."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(status)


def _user_namespace() -> dict[str, Any] | None:
    shell = _shell()
    return None if shell is None else shell.user_ns


def _shell() -> Any:
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    return get_ipython()
