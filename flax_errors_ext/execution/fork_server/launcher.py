"""The kernel process jupyter_client starts: it asks the server for a warm kernel.

The kernelspec runs ``python -m flax_errors_ext.execution.fork_server launch -f
CONNECTION_FILE``. The launcher stands in for the kernel towards jupyter_client:
it asks the server for a kernel, forwards signals to it, and exits with its exit
status. If no server can be reached, it becomes an ordinary IPython kernel.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Any

from flax_errors_ext.execution.fork_server.forked_kernel import request_kernel
from flax_errors_ext.execution.fork_server.protocol import SERVER_ENV_VAR


def ordinary_kernel(argv: list[str]) -> None:
    """Replace this process with a normally started kernel (never returns)."""
    os.execv(sys.executable, [sys.executable, "-m", "ipykernel_launcher", *argv])


def launch(argv: list[str]) -> None:
    """Be the kernel process for jupyter_client: a warm kernel if possible."""
    # The kernel writes where jupyter_client told this process to write.
    streams = (sys.stdout.fileno(), sys.stderr.fileno())
    address = os.environ.get(SERVER_ENV_VAR, "")
    kernel = request_kernel(address, argv, os.getcwd(), dict(os.environ), streams)
    if kernel is None:
        ordinary_kernel(argv)
        return

    def forward(signum: int, _: Any) -> None:
        kernel.send_signal(signum)

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGQUIT):
        signal.signal(signum, forward)
    status = kernel.wait()  # until the kernel exits (or the server dies)
    sys.exit(status if status >= 0 else 128 - status)
