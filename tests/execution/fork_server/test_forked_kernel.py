"""A forked kernel as jupyter_client handles a process: what the server says, and signals."""

from __future__ import annotations

import signal
import socket
import subprocess
from pathlib import Path

import pytest

from flax_errors_ext.execution.fork_server.forked_kernel import ForkedKernel
from tests.utils import process_ends


def _server_saying(*lines: str) -> tuple[socket.socket, socket.socket]:
    """The kernel's end of a connection, and the server's, which has said ``lines``."""
    ours, server = socket.socketpair()
    server.sendall("".join(f"{line}\n" for line in lines).encode())
    return ours, server


def test_the_pid_and_the_exit_status_are_read_even_when_they_come_at_once() -> None:
    ours, server = _server_saying('{"pid": 4242}', '{"status": -9}')
    kernel = ForkedKernel(ours)

    assert kernel.pid == 4242
    assert kernel.poll() == -9
    assert kernel.wait() == -9
    server.close()


def test_a_running_kernel_polls_as_running_and_a_wait_times_out() -> None:
    ours, server = _server_saying('{"pid": 4242}')
    kernel = ForkedKernel(ours)

    assert kernel.poll() is None
    with pytest.raises(TimeoutError, match="4242 still runs"):
        kernel.wait(timeout=0.05)
    server.sendall(b'{"status": 0}\n')
    assert kernel.wait(timeout=5) == 0


def test_a_server_that_hangs_up_ends_the_kernel_with_a_failure() -> None:
    ours, server = _server_saying('{"pid": 4242}')
    kernel = ForkedKernel(ours)
    server.close()

    assert kernel.wait(timeout=5) == 1


def test_a_server_that_hangs_up_before_the_pid_is_an_error() -> None:
    ours, server = _server_saying()
    server.close()

    with pytest.raises(OSError, match="hung up before it forked"):
        ForkedKernel(ours)


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="looks for the process in /proc")
def test_a_signal_reaches_the_group_the_kernel_leads() -> None:
    # A kernel and the process it forked for an entry, as the server makes them.
    kernel_process = subprocess.Popen(
        ["sh", "-c", "sleep 30 & echo $!; wait"], stdout=subprocess.PIPE, start_new_session=True
    )
    assert kernel_process.stdout is not None
    entry = int(kernel_process.stdout.readline())
    ours, server = _server_saying(f'{{"pid": {kernel_process.pid}}}')
    kernel = ForkedKernel(ours)

    kernel.kill()
    assert kernel_process.wait(timeout=10) == -signal.SIGKILL
    assert process_ends(entry, within=10)
    server.close()


def test_signals_reach_the_kernel_until_it_is_known_to_have_ended() -> None:
    process = subprocess.Popen(["sleep", "30"])
    ours, server = _server_saying(f'{{"pid": {process.pid}}}')
    kernel = ForkedKernel(ours)

    kernel.kill()
    assert process.wait(timeout=10) == -signal.SIGKILL
    server.sendall(b'{"status": -9}\n')
    assert kernel.wait(timeout=5) == -9
    # Ended: its pid is no longer its own to signal (another process may have it).
    sleeper = subprocess.Popen(["sleep", "30"])
    kernel.pid = sleeper.pid
    kernel.terminate()
    assert sleeper.poll() is None
    sleeper.kill()
    sleeper.wait()
    server.close()
