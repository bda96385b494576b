"""The kernel process jupyter_client starts: it asks the server for a warm kernel.

The kernelspec runs ``python -m flax_errors_ext.execution.fork_server launch -f
CONNECTION_FILE``. The launcher stands in for the kernel towards jupyter_client:
it asks the server for a kernel, forwards signals to it, and exits with its exit
status. If no server can be reached, it becomes an ordinary IPython kernel.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
from typing import Any

from flax_errors_ext.execution.fork_server.protocol import (
    SERVER_ENV_VAR,
    KernelRequest,
    connect,
    send,
)


def ordinary_kernel(argv: list[str]) -> None:
    """Replace this process with a normally started kernel (never returns)."""
    os.execv(sys.executable, [sys.executable, "-m", "ipykernel_launcher", *argv])


def launch(argv: list[str]) -> None:
    """Be the kernel process for jupyter_client: a warm kernel if possible."""
    connection = connect(os.environ.get(SERVER_ENV_VAR, ""))
    if connection is None:
        ordinary_kernel(argv)
        return
    request = KernelRequest(argv=argv, cwd=os.getcwd(), env=dict(os.environ))
    # The kernel writes where jupyter_client told this process to write.
    send(connection, request, streams=(sys.stdout.fileno(), sys.stderr.fileno()))
    replies = connection.makefile()
    pid = json.loads(replies.readline())["pid"]

    def forward(signum: int, _: Any) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signum)

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGQUIT):
        signal.signal(signum, forward)
    line = replies.readline()  # blocks until the kernel exits (or the server dies)
    status = json.loads(line)["status"] if line else 1
    sys.exit(status if status >= 0 else 128 - status)
