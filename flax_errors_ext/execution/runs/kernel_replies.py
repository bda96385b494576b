"""Waiting on a kernel's messages: until it is ready, and for the reply to a request.

Each wait is bounded and drops the messages it was not waiting for: a kernel of
the run answers the build's requests one at a time, and nbclient reads the
messages of the cells itself.
"""

from __future__ import annotations

import queue
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from jupyter_client.asynchronous.client import AsyncKernelClient

REPLY_WAIT_S = 1.0
"""How long a request waits for its reply before the kernel is looked at."""
IOPUB_WAIT_S = 0.05
"""How long, after the reply, IOPub may take to show it reaches the client before the
request is sent again."""


async def until_ready(kernel: AsyncKernelClient, timeout: float) -> dict[str, Any]:
    """Wait until the kernel answers and its IOPub messages reach this client.

    Returns the kernel's answer, its ``kernel_info`` reply.

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
        reply = await replied(kernel, asked, wait=REPLY_WAIT_S)
        if reply is None:
            if not await kernel.is_alive():
                raise RuntimeError("Kernel died before replying to kernel_info")
            continue
        if await iopub_reaches(kernel, asked, wait=IOPUB_WAIT_S):
            return reply
    raise RuntimeError(f"Kernel didn't respond in {timeout:.0f} seconds")


async def replied(
    kernel: AsyncKernelClient, asked: set[str], *, wait: float
) -> dict[str, Any] | None:
    """The shell reply to one of the ``asked`` requests, if it comes within ``wait``."""
    return await _message_within(
        kernel.get_shell_msg, lambda message: message["parent_header"].get("msg_id") in asked, wait
    )


async def iopub_reaches(kernel: AsyncKernelClient, asked: set[str], *, wait: float) -> bool:
    """Whether IOPub shows within ``wait`` that it reaches this client.

    The kernel's welcome to this subscription, or its idle status for one of the
    ``asked`` requests.
    """
    welcome = await _message_within(
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
    return welcome is not None


async def _message_within(
    receive: Callable[..., Awaitable[dict[str, Any]]],
    wanted: Callable[[dict[str, Any]], bool],
    wait: float,
) -> dict[str, Any] | None:
    """The first ``wanted`` message ``receive`` gives within ``wait`` seconds (others dropped)."""
    until = time.monotonic() + wait
    while (left := until - time.monotonic()) > 0:
        try:
            message = await receive(timeout=left)
        except queue.Empty:
            return None
        if wanted(message):
            return message
    return None
