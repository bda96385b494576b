"""A kernel: ready at once; a start that fails says why; forked, it writes where told."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest
import zmq
from nbclient.exceptions import CellExecutionError

from flax_errors_ext.execution.fork_server.client import WarmKernelServer
from flax_errors_ext.execution.fork_server.protocol import SERVER_ENV_VAR
from flax_errors_ext.execution.runs import kernel
from flax_errors_ext.execution.runs.kernel import KernelStartError
from flax_errors_ext.execution.runs.kernels import run_in_kernel
from flax_errors_ext.execution.runs.kernelspec import KERNELSPEC
from tests.execution.runs.failing_kernels import failing_kernelspec

pytestmark = pytest.mark.kernels


def _notebook() -> nbformat.NotebookNode:
    notebook: nbformat.NotebookNode = nbformat.v4.new_notebook(  # type: ignore[no-untyped-call]
        cells=[nbformat.v4.new_code_cell("1 + 1")],  # type: ignore[no-untyped-call]
        metadata={"kernelspec": KERNELSPEC},
    )
    return notebook


def test_a_client_tries_again_at_once_to_reach_a_kernel_not_yet_listening() -> None:
    client = kernel._client(kernel._KernelManager(kernel_name=KERNELSPEC["name"]))
    with (
        zmq.Context() as other,
        client.context.socket(zmq.DEALER) as ours,
        other.socket(zmq.DEALER) as theirs,
    ):
        assert ours.getsockopt(zmq.RECONNECT_IVL) == kernel._RECONNECT_MS
        # Set on the client's own context, not on every socket of the process.
        assert theirs.getsockopt(zmq.RECONNECT_IVL) == 100  # ZeroMQ's default
    client.context.term()


def test_a_kernel_that_exits_at_once_says_its_status_and_what_it_wrote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    failing_kernelspec(tmp_path / "jupyter", "the port was taken")
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    output = tmp_path / "kernel.log"
    with pytest.raises(KernelStartError) as raised:
        asyncio.run(run_in_kernel(_notebook(), tmp_path, timeout=30, output=output))
    message = str(raised.value)
    assert "the kernel exited with status 3 before it answered" in message
    assert "no kernel today: the port was taken" in message


@pytest.mark.usefixtures("kernelspec")
def test_a_notebook_runs_in_a_kernel_on_unix_sockets_it_removes(tmp_path: Path) -> None:
    sockets = Path(kernel._socket_dir())
    before = set(sockets.iterdir())
    notebook = _notebook()
    asyncio.run(run_in_kernel(notebook, tmp_path, timeout=60, output=tmp_path / "kernel.log"))
    assert notebook.cells[0].outputs[0]["data"]["text/plain"] == "2"
    assert notebook.metadata["language_info"]["name"] == "python"
    # The kernel's sockets went with it.
    assert set(sockets.iterdir()) == before


@pytest.mark.usefixtures("kernelspec")
def test_an_example_that_asks_for_input_fails_at_once(tmp_path: Path) -> None:
    notebook = _notebook()
    notebook.cells[0].source = "input('your name? ')"
    with pytest.raises(CellExecutionError) as raised:
        asyncio.run(run_in_kernel(notebook, tmp_path, timeout=600, output=tmp_path / "log"))
    assert raised.value.ename == "StdinNotImplementedError"


@pytest.mark.skipif(not hasattr(os, "fork"), reason="warm kernels need os.fork")
def test_a_forked_kernel_writes_to_its_launchers_stderr(tmp_path: Path) -> None:
    server = WarmKernelServer(tmp_path / "state")
    try:
        env = {**os.environ, SERVER_ENV_VAR: os.environ[SERVER_ENV_VAR]}
        launch = [sys.executable, "-m", "flax_errors_ext.execution.fork_server", "launch"]
        with (tmp_path / "stderr").open("wb") as stderr:
            done = subprocess.run(
                [*launch, "--no-such-flag"], env=env, stderr=stderr, timeout=120, check=False
            )
    finally:
        server.stop()
    # The kernel, forked by the server, failed on its arguments: its launcher exits
    # with its status, and what it wrote is where the launcher's stderr went.
    assert done.returncode != 0
    assert "no-such-flag" in (tmp_path / "stderr").read_text()


class _Channel:
    """A shell channel that keeps what is sent on it."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)


def test_only_the_next_request_carries_what_was_asked_with_it() -> None:
    client = kernel._EntryClient()
    channel = _Channel()
    client._shell_channel = channel
    client.ask_with_next_execute({"start": {"cwd": "/x"}}, {"imported": "answer()"})
    client.execute("first()", user_expressions={"own": "mine()"})
    client.execute("second()")
    first, second = channel.sent
    assert first["metadata"] == {"start": {"cwd": "/x"}}
    assert first["content"] == {
        "code": "first()",
        "silent": False,
        "store_history": True,
        "user_expressions": {"own": "mine()", "imported": "answer()"},
        "allow_stdin": client.allow_stdin,
        "stop_on_error": True,
    }
    assert "start" not in second["metadata"]
    assert second["content"]["user_expressions"] == {}
