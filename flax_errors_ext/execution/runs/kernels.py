"""The run's kernels: started as entries need them, kept from entry to entry, killed at the end."""

from __future__ import annotations

import asyncio
import os
import threading
from typing import TYPE_CHECKING

from nbclient.exceptions import CellExecutionError

from flax_errors_ext.execution.runs.entry_process import ImportStartedBackend
from flax_errors_ext.execution.runs.kernel import Kernel, KernelGone

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from nbformat import NotebookNode

    from flax_errors_ext.execution.runs.kernel import Preload


def _nothing() -> None:
    """What :meth:`Kernels.prepare` does unless told otherwise."""


class Kernels:
    """The kernels of one run: started as entries need them, kept from entry to entry.

    Each entry's examples run in a process its kernel forks for it
    (:mod:`~flax_errors_ext.execution.runs.entry_process`), so a kernel that ran
    one entry runs the next as a fresh one would, without a kernel's start-up
    (ipykernel's set-up, its sockets, the handshake) for each. A kernel whose
    notebook did not run to the end (an example that timed out or ended its
    process, a kernel that died) is stopped, never run again.

    A kernel imports the entries' module before it forks their processes, unless it
    has it already (the warm server imports ``flax.errors``); one that imported a
    module itself serves that module's entries alone, and is stopped once a kernel
    starts for another module, since a run goes through its modules one by one. A
    module whose import starts a JAX backend is left for its examples to import.

    Only the process that made it keeps kernels: a ``-j`` reader forked from it
    uses each kernel of its own once.
    """

    def __init__(self, prepare: Callable[[], object] = _nothing) -> None:
        """``prepare``: what :meth:`prepare` does (a warm kernel server's start)."""
        self.prepare = prepare
        """Called before a notebook runs, never for one served from the cache: a
        session's starts its warm kernel server at the first call, so that a run
        served wholly from the cache never pays for the server's imports. What
        fails in it is flax-errors' own, said as such by the entry."""
        self._idle: list[Kernel] = []
        self._lock = threading.Lock()
        self._owner = os.getpid()
        self._not_preloaded: set[str] = set()
        """The modules whose import started a JAX backend in a kernel."""

    def __reduce__(self) -> tuple[type[Kernels], tuple[()]]:
        """Pickled as a run's kernels before any started: kernels and hooks stay here."""
        return Kernels, ()

    def run(
        self,
        notebook: NotebookNode,
        cwd: Path,
        *,
        timeout: int | None,
        output: Path,
        preload: Preload | None = None,
    ) -> None:
        """Run every cell of ``notebook`` (in place) in a kernel, the examples in ``cwd``.

        Args:
            notebook: The notebook; its kernelspec names the kernel.
            cwd: The examples' working folder.
            timeout: Seconds each cell may run (None: no limit).
            output: Where the kernel's own output (a start that fails quotes its
                end) and the examples' process's go.
            preload: The entry's module, imported before the examples' process forks.

        Raises:
            KernelStartError: if the kernel did not start or answer.
            nbclient.exceptions.CellExecutionError: a cell raised.
            nbclient.exceptions.CellTimeoutError: a cell ran past ``timeout``.
            KernelGone: a new kernel died in the notebook's first cell (a kept one
                that did is replaced, once).
            nbclient.exceptions.DeadKernelError: the kernel died in a later cell.
        """
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_bytes(b"")
        if preload is not None and preload.module in self._not_preloaded:
            preload = None
        name = notebook.metadata.kernelspec.name
        while True:
            kernel, kept = self._ready(name, cwd, output, preload)
            try:
                kernel.loop.run_until_complete(kernel.run(notebook, timeout, cwd, output, preload))
            except KernelGone:
                kernel.stop()
                if not kept:
                    raise
                # Killed from outside while it waited, not by the entry: another serves it.
                continue
            except CellExecutionError as error:
                kernel.stop()
                if preload is None or error.ename != ImportStartedBackend.__name__:
                    raise
                # The kernel forked nothing: the notebook runs again, in a kernel
                # that leaves the module's import to the examples.
                self._not_preloaded.add(preload.module)
                preload = None
                continue
            except BaseException:
                kernel.stop()
                raise
            self._give_back(kernel)
            return

    def close(self) -> None:
        """Stop every kept kernel."""
        with self._lock:
            idle, self._idle = self._idle, []
        if os.getpid() == self._owner:
            for kernel in idle:
                kernel.stop()

    def _ready(
        self, name: str, cwd: Path, output: Path, preload: Preload | None
    ) -> tuple[Kernel, bool]:
        """A kept kernel that may serve the entry, or a new one; and whether it was kept.

        A kept kernel that ended while it waited (killed from outside) is not the
        entry's fault: it is stopped, and another serves the entry.
        """
        while (kept := self._kept(name, preload)) is not None:
            if kept.alive():
                return kept, True
            kept.stop()
        return Kernel.start(name, cwd, output), False

    def _kept(self, name: str, preload: Preload | None) -> Kernel | None:
        """An idle kernel for ``preload``'s entries, or None; other modules' are then stopped.

        One that imported no module itself serves any; one that did, its module's.
        """
        module = None if preload is None else preload.module
        others: list[Kernel] = []
        with self._lock:
            if os.getpid() != self._owner:
                return None
            for kernel in self._idle:
                if kernel.name == name and kernel.imported in (None, module):
                    self._idle.remove(kernel)
                    return kernel
            others = [k for k in self._idle if k.name == name]
            self._idle = [k for k in self._idle if k.name != name]
        for kernel in others:
            kernel.stop()
        return None

    def _give_back(self, kernel: Kernel) -> None:
        with self._lock:
            if os.getpid() == self._owner:
                self._idle.append(kernel)
                return
        kernel.stop()


async def run_in_kernel(
    notebook: NotebookNode, cwd: Path, *, timeout: int | None, output: Path
) -> None:
    """Run every cell of ``notebook`` (in place) in a kernel of its own, then stop it.

    :meth:`Kernels.run` for one notebook, from a coroutine (in a thread: the
    kernel has an event loop of its own).
    """

    def run_once() -> None:
        kernels = Kernels()
        try:
            kernels.run(notebook, cwd, timeout=timeout, output=output)
        finally:
            kernels.close()

    await asyncio.to_thread(run_once)
