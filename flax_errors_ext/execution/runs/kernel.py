"""One entry's kernel: started, handed to nbclient, always shut down.

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

import asyncio
import atexit
import contextlib
import os
import queue
import shutil
import tempfile
import threading
import time
import uuid
from typing import TYPE_CHECKING, Any

import zmq
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable
    from pathlib import Path

    from jupyter_client.asynchronous.client import AsyncKernelClient
    from nbformat import NotebookNode

STARTUP_TIMEOUT_S = 120.0
"""How long a kernel may take to answer once started (a busy machine's builds)."""
_REPLY_WAIT_S = 1.0
"""How long a ``kernel_info`` request waits for its reply before the kernel is looked at."""
_IOPUB_WAIT_S = 0.05
"""How long, after the reply, IOPub may take to show it reaches the client before the
request is sent again."""
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


class _KernelManager(AsyncKernelManager):
    """A kernel manager whose kernel listens on Unix sockets no other kernel names."""

    def _transport_default(self) -> str:
        return "ipc"

    def _ip_default(self) -> str:
        return os.path.join(_socket_dir(), uuid.uuid4().hex[:16])


async def run_in_kernel(
    notebook: NotebookNode, cwd: Path, *, timeout: int | None, output: Path
) -> None:
    """Run every cell of ``notebook`` (in place) in a fresh kernel started in ``cwd``.

    Args:
        notebook: The notebook; its kernelspec names the kernel.
        cwd: The kernel's working folder.
        timeout: Seconds each cell may run (None: no limit).
        output: Where the kernel process's own stdout and stderr go (a start that
            fails quotes its end).

    Raises:
        KernelStartError: if the kernel did not start or answer.
        nbclient.exceptions.CellExecutionError: a cell raised.
        nbclient.exceptions.CellTimeoutError: a cell ran past ``timeout``.
        nbclient.exceptions.DeadKernelError: the kernel died while running.
    """
    manager = _KernelManager(kernel_name=notebook.metadata.kernelspec.name)
    output.parent.mkdir(parents=True, exist_ok=True)
    with output.open("wb") as stream:
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
                await _until_ready(kernel, STARTUP_TIMEOUT_S)
            except RuntimeError as error:
                raise KernelStartError(await _why(manager, error, output)) from None
            client = NotebookClient(
                notebook,
                km=manager,
                timeout=timeout,
                allow_errors=False,
                record_timing=False,
                startup_timeout=STARTUP_TIMEOUT_S,
            )
            client.kc = kernel
            await client.async_execute()
        finally:
            kernel.stop_channels()
            await _shut_down(manager)


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


async def _until_ready(kernel: AsyncKernelClient, timeout: float) -> None:
    """Wait until the kernel answers and its IOPub messages reach this client.

    As jupyter_client's ``wait_for_ready`` does, but without its last step: a fixed
    wait of 0.2 s for stray IOPub messages, which no kernel sends here, and which
    every entry would pay however light its examples. IOPub drops every message
    sent before this client's subscription reaches the kernel, so the kernel is
    ready once it has replied to a ``kernel_info`` request and IOPub is known to
    reach this client: by the kernel's ``iopub_welcome`` (sent for each new
    subscription, from ipykernel 7.2), or by its *idle* status for a request
    asked. An older kernel sends no welcome, and its idle status may come before
    the subscription does, so a reply without either is asked again.

    Raises:
        RuntimeError: the kernel died, or did not answer within ``timeout`` seconds.
    """
    deadline = time.monotonic() + timeout
    asked: set[str] = set()
    while time.monotonic() < deadline:
        asked.add(kernel.kernel_info())
        if not await _replied(kernel, asked, wait=_REPLY_WAIT_S):
            if not await kernel.is_alive():
                raise RuntimeError("Kernel died before replying to kernel_info")
            continue
        if await _iopub_reaches(kernel, asked, wait=_IOPUB_WAIT_S):
            return
    raise RuntimeError(f"Kernel didn't respond in {timeout:.0f} seconds")


async def _replied(kernel: AsyncKernelClient, asked: set[str], *, wait: float) -> bool:
    """Whether a shell reply to one of the ``asked`` requests comes within ``wait``."""
    return await _message_within(
        kernel.get_shell_msg, lambda message: message["parent_header"].get("msg_id") in asked, wait
    )


async def _iopub_reaches(kernel: AsyncKernelClient, asked: set[str], *, wait: float) -> bool:
    """Whether IOPub shows within ``wait`` that it reaches this client.

    The kernel's welcome to this subscription, or its idle status for one of the
    ``asked`` requests.
    """
    return await _message_within(
        kernel.get_iopub_msg,
        lambda message: (
            message["msg_type"] == "iopub_welcome"
            or (
                message["msg_type"] == "status"
                and message["content"].get("execution_state") == "idle"
                and message["parent_header"].get("msg_id") in asked
            )
        ),
        wait,
    )


async def _message_within(
    receive: Callable[..., Awaitable[dict[str, Any]]],
    wanted: Callable[[dict[str, Any]], bool],
    wait: float,
) -> bool:
    """Whether ``receive`` gives a ``wanted`` message within ``wait`` seconds (others dropped)."""
    until = time.monotonic() + wait
    while (left := until - time.monotonic()) > 0:
        try:
            message = await receive(timeout=left)
        except queue.Empty:
            return False
        if wanted(message):
            return True
    return False


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
