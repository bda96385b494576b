"""``python -m flax_errors_ext.execution.fork_server serve|launch``: run by the build.

python -m flax_errors_ext.execution.fork_server serve SOCKET BUILD-PID
python -m flax_errors_ext.execution.fork_server launch -f CONNECTION_FILE
"""

from __future__ import annotations

import sys

from flax_errors_ext.execution.fork_server.protocol import LAUNCH, SERVE


def main(argv: list[str]) -> None:
    """Entry point: ``serve SOCKET BUILD-PID`` or ``launch KERNEL-ARGS...``."""
    command, *rest = argv or [""]
    if command == SERVE:
        from flax_errors_ext.execution.fork_server.server import serve

        serve(rest[0], int(rest[1]))
    elif command == LAUNCH:
        from flax_errors_ext.execution.fork_server.launcher import launch

        launch(rest)
    else:
        raise SystemExit(
            "usage: python -m flax_errors_ext.execution.fork_server "
            f"serve SOCKET BUILD-PID | launch ARGS ({command!r}?)"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
