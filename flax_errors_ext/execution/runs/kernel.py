"""One kernel of a run: started, asked to fork each entry's process, handed to nbclient, killed.

The run keeps its kernels from entry to entry (:mod:`.kernels`); this is one of them.

nbclient left to start a kernel itself registers an exit handler before the
start, and a start that fails (a kernel that dies before it answers) unsets its
kernel manager without removing that handler: the reason goes to nbclient's log,
and the process ends on nbclient's ``assert self.km is not None``. So the kernel
is started here, and nbclient gets it ready to run; a failed start raises
:class:`KernelStartError`, which says why: the kernel's exit status and the last
lines it wrote.

Kernels talk over Unix sockets of their own rather than TCP: with TCP, jupyter_client
picks free ports and lets go of them before the kernel binds them, and another
kernel (of this build, a parallel reader, or any process on the machine) may take
one in between, so that the kernel dies on start.
"""

from __future__ import annotations

import ast
import asyncio
import atexit
import contextlib
import dataclasses
import os
import shutil
import tempfile
import threading
import time
import uuid
from typing import TYPE_CHECKING, Any

import zmq
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient

from flax_errors_ext.execution.runs.entry_process import ImportStartedBackend
from flax_errors_ext.execution.runs.kernel_replies import REPLY_WAIT_S, replied, until_ready

if TYPE_CHECKING:
    from pathlib import Path

    from jupyter_client.asynchronous.client import AsyncKernelClient
    from nbformat import NotebookNode

ENTRY_PROCESS = "flax_errors_ext.execution.runs.entry_process"
STARTUP_TIMEOUT_S = 120.0
"""How long a kernel may take to answer once started (a busy machine's builds)."""
_RECONNECT_MS = 2
"""How soon a client's socket tries again to reach a kernel not yet listening."""
_STOP_POLL_S = 0.002
_STOP_WAIT_S = 5.0
"""How long a killed kernel may take to end before it is left to end on its own."""
_LAST_WORDS = 2000  # characters of a failed kernel's output a failure shows

_sockets_lock = threading.Lock()
_sockets: list[str] = []


def _socket_dir() -> str:
    """A private folder for this process's kernel sockets, short enough for their paths."""
    with _sockets_lock:
        if not _sockets:
            _sockets.append(tempfile.mkdtemp(prefix="flax-errors-k"))
            atexit.register(shutil.rmtree, _sockets[0], ignore_errors=True)
        return _sockets[0]


class KernelStartError(RuntimeError):
    """A kernel that did not start; the message says why."""


class KernelGone(RuntimeError):
    """A kernel that had ended when it was asked to fork an entry's process."""


class PreloadStartedBackend(RuntimeError):
    """A kernel whose import of the catalogued module started a JAX backend.

    It can fork no entry's process that uses JAX (the backend's threads stay
    behind), so it runs nothing; the module's entries run in kernels that leave
    the import to them.
    """


@dataclasses.dataclass(frozen=True)
class Preload:
    """The module a kernel imports before it forks an entry's process: the entry's own.

    As pytest imports a module before it runs its docstrings' examples.
    """

    module: str
    import_path: str
    """The ``sys.path`` entry the module is imported from."""


class _KernelManager(AsyncKernelManager):
    """A kernel manager whose kernel listens on Unix sockets no other kernel names."""

    def _transport_default(self) -> str:
        return "ipc"

    def _ip_default(self) -> str:
        return os.path.join(_socket_dir(), uuid.uuid4().hex[:16])


class Kernel:
    """A started kernel, its client and the event loop both are used from."""

    def __init__(
        self,
        name: str,
        loop: asyncio.AbstractEventLoop,
        manager: _KernelManager,
        client: AsyncKernelClient,
        language: dict[str, Any],
    ) -> None:
        self.name = name
        self.loop = loop
        self.manager = manager
        self.client = client
        self.language = language
        """The kernel's ``language_info``, which a notebook it ran records."""
        self.imported: str | None = None
        """The catalogued module it imported itself, if any: it serves that module's
        entries alone."""

    @classmethod
    def start(cls, name: str, cwd: Path, output: Path) -> Kernel:
        """A kernel named ``name``, started in ``cwd`` and ready; its output to ``output``.

        Raises:
            KernelStartError: if the kernel did not start or answer.
        """
        loop = asyncio.new_event_loop()
        try:
            manager, client, language = loop.run_until_complete(_started(name, cwd, output))
        except BaseException:
            loop.close()
            raise
        return cls(name, loop, manager, client, language)

    def prepare(self, cwd: Path, output: Path, preload: Preload | None = None) -> None:
        """Have the kernel fork the entry's process, in ``cwd``, writing to ``output``.

        ``preload``: the entry's module, which the kernel imports first unless it
        has it (:attr:`imported` then says so).

        Raises:
            KernelGone: the kernel had ended.
            PreloadStartedBackend: importing ``preload`` started a JAX backend.
            RuntimeError: it could not fork the process.
        """
        self.imported = self.loop.run_until_complete(
            _prepare_entry(self.client, cwd, output, preload)
        )

    async def run(self, notebook: NotebookNode, timeout: int | None) -> None:
        """Run ``notebook``'s cells, once :meth:`prepare` has forked the entry's process.

        Cell by cell through nbclient, rather than its whole-notebook run, which
        asks the kernel for its ``kernel_info`` at every notebook: known since the
        kernel started, it is written as nbclient writes it. The kernel keeps no
        history of the cells, as it keeps nothing else of an entry.
        """
        client = NotebookClient(
            notebook,
            km=self.manager,
            timeout=timeout,
            allow_errors=False,
            record_timing=False,
            startup_timeout=STARTUP_TIMEOUT_S,
        )
        client.kc = self.client
        notebook.metadata["language_info"] = self.language
        for index, cell in enumerate(notebook.cells):
            await client.async_execute_cell(
                cell, index, execution_count=index + 1, store_history=False
            )

    def stop(self) -> None:
        """Stop the kernel, and with it the entry's process, and close the loop."""
        try:
            self.client.stop_channels()
            self.loop.run_until_complete(_shut_down(self.manager))
        finally:
            self.loop.close()


async def _started(
    name: str, cwd: Path, output: Path
) -> tuple[_KernelManager, AsyncKernelClient, dict[str, Any]]:
    manager = _KernelManager(kernel_name=name)
    with output.open("ab") as stream:
        try:
            await manager.start_kernel(cwd=str(cwd), stdout=stream, stderr=stream)
        except Exception as error:
            raise KernelStartError(f"the kernel could not be launched: {error}") from error
    kernel = _client(manager)
    try:
        # No stdin channel, as nbclient has none for a client of its own: an example
        # that asks for input fails at once (StdinNotImplementedError), not at the
        # timeout. No heartbeat either (a thread per kernel): whether the kernel
        # lives is asked of its process, through the manager.
        kernel.start_channels(stdin=False, hb=False)
        try:
            info = await until_ready(kernel, STARTUP_TIMEOUT_S)
        except RuntimeError as error:
            raise KernelStartError(await _why(manager, error, output)) from None
    except BaseException:
        kernel.stop_channels()
        await _shut_down(manager)
        raise
    return manager, kernel, info["content"].get("language_info", {})


_ENTRY_PROCESS = f"__import__({ENTRY_PROCESS!r}, fromlist=['start'])"
_PREPARE = _ENTRY_PROCESS + ".start({cwd!r}, {log!r}, *{preload!r})"
_IMPORTED = _ENTRY_PROCESS + ".imported()"


async def _prepare_entry(
    kernel: AsyncKernelClient, cwd: Path, output: Path, preload: Preload | None
) -> str | None:
    """Have the kernel fork the process the entry's examples run in.

    A silent request: nothing of it reaches the notebook, the kernel's history or
    its namespace. Returns the catalogued module the kernel imported itself, if any
    (asked in the same request, as an expression the reply carries).

    Raises:
        KernelGone: the kernel had ended.
        PreloadStartedBackend: importing ``preload`` started a JAX backend.
        RuntimeError: the kernel could not fork it.
    """
    module = () if preload is None else (preload.module, preload.import_path)
    code = _PREPARE.format(cwd=str(cwd), log=str(output), preload=module)
    asked = kernel.execute(
        code,
        silent=True,
        store_history=False,
        allow_stdin=False,
        user_expressions={"imported": _IMPORTED},
    )
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while (reply := await replied(kernel, {asked}, wait=REPLY_WAIT_S)) is None:
        if not await kernel.is_alive():
            raise KernelGone("the kernel died before it forked the examples' process")
        if time.monotonic() > deadline:
            raise RuntimeError(f"the kernel did not answer within {STARTUP_TIMEOUT_S:.0f} s")
    content = reply["content"]
    if content.get("ename") == ImportStartedBackend.__name__:
        raise PreloadStartedBackend(str(content.get("evalue")))
    if content.get("status") != "ok":
        why = f"{content.get('ename')}: {content.get('evalue')}"
        raise RuntimeError(f"the kernel could not start the examples' process: {why}")
    return _imported(content, preload)


def _imported(content: dict[str, Any], preload: Preload | None) -> str | None:
    """The module the reply says the kernel imported; the entry's, if it cannot tell."""
    answer = content.get("user_expressions", {}).get("imported", {})
    try:
        found = ast.literal_eval(answer["data"]["text/plain"])
    except (KeyError, TypeError, ValueError, SyntaxError):
        return None if preload is None else preload.module
    return found if isinstance(found, str) else None


def _client(manager: _KernelManager) -> AsyncKernelClient:
    """A client of ``manager``'s kernel whose sockets reach it as soon as it listens.

    The client connects before the kernel, just forked, has made its sockets, and
    ZeroMQ tries again only after its reconnect interval (0.1 s by default): every
    entry would wait that long, longer than a forked kernel takes to start.
    The client's context is its own, so the setting is this client's alone.
    """
    kernel = manager.client()
    kernel.context.setsockopt(zmq.RECONNECT_IVL, _RECONNECT_MS)
    return kernel


async def _shut_down(manager: _KernelManager) -> None:
    """Stop the kernel at once and remove its files.

    Every cell has run and its outputs are in (nbclient waits for each cell's last
    message), and nothing of the kernel outlives it: an orderly shutdown would only
    add its own teardown. The kill is jupyter_client's, the wait for the process to
    end is in short steps: its own sleeps 0.1 s at a time, which the process, killed,
    never needs.
    """
    provisioner = manager.provisioner
    if provisioner is not None and manager.has_kernel:
        await provisioner.kill()
        until = time.monotonic() + _STOP_WAIT_S
        while await provisioner.poll() is None and time.monotonic() < until:
            await asyncio.sleep(_STOP_POLL_S)
        if await provisioner.poll() is not None:
            await provisioner.wait()  # collects the process and closes its pipes
    await manager.cleanup_resources()


async def _why(manager: _KernelManager, error: RuntimeError, output: Path) -> str:
    """Why a kernel did not answer: its exit status and its last words, if it ended."""
    status: Any = None
    if manager.provisioner is not None:
        status = await manager.provisioner.poll()
    if status is None:
        reason = f"the kernel did not answer within {STARTUP_TIMEOUT_S:.0f} s ({error})"
    else:
        reason = f"the kernel exited with status {status} before it answered"
    with contextlib.suppress(OSError):
        words = output.read_text(encoding="utf-8", errors="replace").strip()
        if words:
            reason += f"; it wrote:\n{words[-_LAST_WORDS:]}"
    return reason
