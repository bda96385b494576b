"""Waiting on a kernel: ready once it replies and IOPub shows it reaches the client."""

from __future__ import annotations

import asyncio
import importlib.metadata
import queue
from typing import TYPE_CHECKING, Any

import nbformat
import pytest
from packaging.version import Version

from flax_errors_ext.execution.runs import kernel_replies
from flax_errors_ext.execution.runs.kernels import run_in_kernel
from flax_errors_ext.execution.runs.kernelspec import KERNELSPEC

if TYPE_CHECKING:
    from pathlib import Path

    from jupyter_client.asynchronous.client import AsyncKernelClient


class _IOPub:
    """A client's IOPub channel holding ``messages``; empty, it waits no more."""

    def __init__(self, *messages: dict[str, Any]) -> None:
        self.messages = list(messages)

    async def get_iopub_msg(self, timeout: float) -> dict[str, Any]:
        if not self.messages:
            raise queue.Empty
        return self.messages.pop(0)


def _message(msg_type: str, parent: str = "", **content: str) -> dict[str, Any]:
    return {
        "msg_type": msg_type,
        "parent_header": {"msg_id": parent} if parent else {},
        "content": content,
    }


@pytest.mark.parametrize(
    "messages",
    [
        [_message("iopub_welcome", subscription="")],
        [_message("stream", name="stdout", text="hi"), _message("iopub_welcome")],
        [_message("status", "asked", execution_state="busy"),
         _message("status", "asked", execution_state="idle")],
    ],
    ids=["welcome", "welcome-after-others", "idle-for-a-request-asked"],
)  # fmt: skip
def test_iopub_reaches_the_client_once_welcomed_or_idle_for_a_request_asked(
    messages: list[dict[str, Any]],
) -> None:
    iopub: Any = _IOPub(*messages)
    assert asyncio.run(kernel_replies.iopub_reaches(iopub, {"asked"}, wait=1.0))


def test_an_idle_status_for_another_request_does_not_show_iopub_reaches_the_client() -> None:
    iopub: Any = _IOPub(_message("status", "another", execution_state="idle"))
    assert not asyncio.run(kernel_replies.iopub_reaches(iopub, {"asked"}, wait=1.0))


@pytest.mark.skipif(
    Version(importlib.metadata.version("ipykernel")) < Version("7.2"),
    reason="ipykernel sends iopub_welcome from 7.2 on",
)
@pytest.mark.kernels
@pytest.mark.usefixtures("kernelspec")
def test_a_kernel_is_ready_at_its_first_reply(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its welcome to the client's subscription says IOPub reaches it: no request again."""
    shown: list[bool] = []
    reaches = kernel_replies.iopub_reaches

    async def counted(client: AsyncKernelClient, asked: set[str], *, wait: float) -> bool:
        shown.append(await reaches(client, asked, wait=wait))
        return shown[-1]

    monkeypatch.setattr(kernel_replies, "iopub_reaches", counted)
    notebook: nbformat.NotebookNode = nbformat.v4.new_notebook(  # type: ignore[no-untyped-call]
        cells=[nbformat.v4.new_code_cell("1 + 1")],  # type: ignore[no-untyped-call]
        metadata={"kernelspec": KERNELSPEC},
    )
    asyncio.run(run_in_kernel(notebook, tmp_path, timeout=60, output=tmp_path / "kernel.log"))
    assert notebook.cells[0].outputs[0]["data"]["text/plain"] == "2"
    # However long the kernel took to reply, IOPub was known to reach the client
    # at the first reply: no request was sent again.
    assert shown == [True]
