"""One kernel of a run: started, handed each entry's notebook through nbclient, killed.

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
from typing import TYPE_CHECKING, Any, cast

import zmq
from jupyter_client.asynchronous.client import AsyncKernelClient
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
from nbclient.exceptions import DeadKernelError
from traitlets import Type

from flax_errors_ext.execution.runs import entry_process
from flax_errors_ext.execution.runs.kernel_replies import until_ready

if TYPE_CHECKING:
    from pathlib import Path

    from nbformat import NotebookNode

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
    """A kernel that died before the entry's first cell was done (killed from outside)."""


@dataclasses.dataclass(frozen=True)
class Preload:
    """The module a kernel imports before it forks an entry's process: the entry's own.

    As pytest imports a module before it runs its docstrings' examples.
    """

    module: str
    import_path: str
    """The ``sys.path`` entry the module is imported from."""


class _EntryClient(AsyncKernelClient):
    """A kernel client whose next execute request can ask for more than the cell.

    Its metadata can ask the kernel to fork the entry's process before the cell's
    first statement (:data:`~.entry_process.START_REQUEST`), and its
    ``user_expressions`` what the kernel holds after the last. An entry's process
    is thus asked for by its first cell rather than by a request of its own.
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._next: tuple[dict[str, Any], dict[str, str]] | None = None

    def ask_with_next_execute(self, metadata: dict[str, Any], expressions: dict[str, str]) -> None:
        """Add ``metadata`` and ``expressions`` to the next execute request, and only to it."""
        self._next = (metadata, expressions)

    def execute(
        self,
        code: str,
        silent: bool = False,
        store_history: bool = True,
        user_expressions: dict[str, str] | None = None,
        allow_stdin: bool | None = None,
        stop_on_error: bool = True,
    ) -> str:
        """Send an execute request, with what :meth:`ask_with_next_execute` added; its id."""
        if self._next is None:
            sent: str = super().execute(
                code, silent, store_history, user_expressions, allow_stdin, stop_on_error
            )
            return sent
        metadata, expressions = self._next
        self._next = None
        content = {
            "code": code,
            "silent": silent,
            "store_history": store_history,
            "user_expressions": {**(user_expressions or {}), **expressions},
            "allow_stdin": self.allow_stdin if allow_stdin is None else allow_stdin,
            "stop_on_error": stop_on_error,
        }
        message = self.session.msg("execute_request", content, metadata=metadata)
        self.shell_channel.send(message)
        return str(message["header"]["msg_id"])


class _KernelManager(AsyncKernelManager):
    """A kernel manager whose kernel listens on Unix sockets no other kernel names."""

    client_factory = Type(klass=_EntryClient)

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
        client: _EntryClient,
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
        self._had: set[str] = set()
        """Catalogued modules it had without importing them (from the warm server)."""

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

    def alive(self) -> bool:
        """Whether the kernel's process still runs (a kept one may have been killed)."""
        return bool(self.loop.run_until_complete(self.manager.is_alive()))

    async def run(
        self,
        notebook: NotebookNode,
        timeout: int | None,
        cwd: Path,
        log: Path,
        preload: Preload | None,
    ) -> None:
        """Run ``notebook``'s cells, the entry's examples in a process forked for them.

        The first cell's request asks the kernel to fork the entry's process in
        ``cwd``, writing to ``log``, after importing ``preload``; and, where that
        could change it, which catalogued module the kernel then holds of its own
        (:attr:`imported`).

        Cell by cell through nbclient, rather than its whole-notebook run, which
        asks the kernel for its ``kernel_info`` at every notebook: known since the
        kernel started, it is written as nbclient writes it. The kernel keeps no
        history of the cells, as it keeps nothing else of an entry.

        Raises:
            nbclient.exceptions.CellExecutionError: a cell raised, ``begin`` among
                them where the import of ``preload`` started a JAX backend
                (:class:`~.entry_process.ImportStartedBackend`).
            KernelGone: the kernel died in the first cell.
            nbclient.exceptions.DeadKernelError: the kernel died in a later one.
        """
        start = {"cwd": str(cwd), "log": str(log)}
        if preload is not None:
            start |= {"module": preload.module, "import_path": preload.import_path}
        asks = preload is not None and self.imported is None and preload.module not in self._had
        self.client.ask_with_next_execute(
            {entry_process.START_REQUEST: start}, {"imported": _IMPORTED} if asks else {}
        )

        def note_imported(cell_index: int, execute_reply: dict[str, Any], **_: Any) -> None:
            if asks and preload is not None and cell_index == 0:
                self._note_imported(execute_reply["content"], preload.module)

        client = NotebookClient(
            notebook,
            km=self.manager,
            timeout=timeout,
            allow_errors=False,
            record_timing=False,
            startup_timeout=STARTUP_TIMEOUT_S,
            on_cell_executed=note_imported,
        )
        client.kc = self.client
        notebook.metadata["language_info"] = self.language
        for index, cell in enumerate(notebook.cells):
            try:
                await client.async_execute_cell(
                    cell, index, execution_count=index + 1, store_history=False
                )
            except DeadKernelError:
                if index:
                    raise
                gone = "the kernel died before the entry's first cell was done"
                raise KernelGone(gone) from None

    def _note_imported(self, reply: dict[str, Any], module: str) -> None:
        """Read from the first cell's reply which catalogued module the kernel holds."""
        answer = reply.get("user_expressions", {}).get("imported", {})
        try:
            found = ast.literal_eval(answer["data"]["text/plain"])
        except (KeyError, TypeError, ValueError, SyntaxError):
            found = module  # cannot tell: as if it had imported it, so it serves no other
        if isinstance(found, str):
            self.imported = found
        else:
            self._had.add(module)

    def stop(self) -> None:
        """Stop the kernel, and with it the entry's process, and close the loop."""
        try:
            self.client.stop_channels()
            self.loop.run_until_complete(_shut_down(self.manager))
        finally:
            self.loop.close()


async def _started(
    name: str, cwd: Path, output: Path
) -> tuple[_KernelManager, _EntryClient, dict[str, Any]]:
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


_IMPORTED = f"__import__({entry_process.__name__!r}, fromlist=['imported']).imported()"
"""Asked of the kernel after an entry's first cell: the module it imported itself."""


def _client(manager: _KernelManager) -> _EntryClient:
    """A client of ``manager``'s kernel whose sockets reach it as soon as it listens.

    The client connects before the kernel, just forked, has made its sockets, and
    ZeroMQ tries again only after its reconnect interval (0.1 s by default): every
    entry would wait that long, longer than a forked kernel takes to start.
    The client's context is its own, so the setting is this client's alone.
    """
    kernel = cast("_EntryClient", manager.client())  # the manager's client_factory
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
