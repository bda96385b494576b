"""The ``flax-errors`` command line: list, explain, check, update and export the catalogue.

It reads the same docstrings and example files as the Sphinx extension and judges
examples through the same core, so a verdict here is the verdict of the site's
build. Results go to standard output, progress and errors to standard error; the
exit status is an :class:`~flax_errors_ext.cli.parser.ExitCode`.
"""

from __future__ import annotations

import importlib
import os
import sys
import traceback
from typing import TYPE_CHECKING

from flax_errors_ext.cli.parser import PROG, TRACEBACK_ENV, ExitCode, UsageError, build_parser

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["ExitCode", "build_parser", "main"]

_COMMANDS = {
    "list": ("catalogue", "list_command"),
    "explain": ("catalogue", "explain_command"),
    "index": ("catalogue", "index_command"),
    "check": ("runs", "check_command"),
    "update": ("runs", "update_command"),
}
"""Each core command's module and function, imported when it runs (check and update
pull in Jupyter); an extra's command sets its own ``run``."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``flax-errors`` with ``argv`` (default: the process's); bad arguments exit with 2."""
    args = build_parser().parse_args(argv)
    command = getattr(args, "run", None)
    if command is None:
        module, function = _COMMANDS[args.command]
        command = getattr(importlib.import_module(f"flax_errors_ext.cli.{module}"), function)
    try:
        return int(command(args))
    except UsageError as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return ExitCode.USAGE
    except BrokenPipeError:
        # The reader went away (`flax-errors list | head`): stop quietly, and keep
        # Python from complaining again when it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return ExitCode.FAILED
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except Exception as error:  # a person reads this; a maintainer asks for the traceback
        if args.traceback or os.environ.get(TRACEBACK_ENV, "") not in ("", "0"):
            traceback.print_exc(file=sys.stderr)
        first = (str(error).strip().splitlines() or [""])[0]
        print(f"{PROG}: error: {type(error).__name__}: {first}", file=sys.stderr)
        return ExitCode.ERROR
