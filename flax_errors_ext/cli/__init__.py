"""The ``flax-errors`` command line: list, explain, check, update and export the catalogue.

Building the parser imports nothing heavy (no jax, flax, Sphinx or Jupyter), so
``--help`` is instant and :mod:`flax_errors_ext.sphinx.site` can document it.
"""

from __future__ import annotations

import argparse
import contextlib
import enum
import importlib
import os
import sys
import textwrap
import traceback
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING

from flax_errors_ext.version import __version__

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import TypeAlias

    # Generic for type checkers only: argparse's class cannot be subscripted at run time.
    _Commands: TypeAlias = argparse._SubParsersAction[argparse.ArgumentParser]

PROG = "flax-errors"
COMMANDS_GROUP = "flax_errors.commands"
"""Each entry point names a module whose ``add(commands)`` adds a command that sets ``run``."""
TRACEBACK_ENV = "FLAX_ERRORS_TRACEBACK"
CONF_PLACES = ("conf.py", "docs/conf.py")


class UsageError(Exception):
    """The command cannot run as asked (exit status 2); the message says why."""


@enum.unique
class ExitCode(enum.IntEnum):
    """What the exit status of ``flax-errors`` means (see :data:`EXIT_CODES`)."""

    OK = 0
    FAILED = 1
    USAGE = 2
    REFUSED = 3
    ERROR = 4
    PARTLY_UPDATED = 5
    NO_MATCH = 6
    INTERRUPTED = 130


EXIT_CODES = {
    ExitCode.OK: "everything asked for was done, and every example passed",
    ExitCode.FAILED: "an example failed or drifted, or an entry is malformed; for update, "
    "failures remain that rewriting text cannot fix (with --dry-run: there is drift "
    "to rewrite); for export, a catalogue file names no class, or an entry or a fix "
    "could not be put into Flax's docstrings (each one listed; the patch holds the rest)",
    ExitCode.USAGE: "bad arguments, an unknown error name, a conf.py that cannot be read, or "
    "a module that cannot be imported",
    ExitCode.REFUSED: "update wrote nothing: a file changed while the examples ran, or "
    "no longer holds the documented text where it was read",
    ExitCode.PARTLY_UPDATED: "update wrote what it could, but not every drifted statement: "
    "each one it could not write is listed with the reason (a triple quote in a docstring, "
    "say)",
    ExitCode.ERROR: "the command could not do its work for another reason (a file it could "
    "not read or write, say), named in one line on standard error (with --traceback, after "
    "its traceback)",
    ExitCode.NO_MATCH: "explain: no catalogued error is named by, or matches, the query "
    "(a usage error is 2)",
    ExitCode.INTERRUPTED: "interrupted (Ctrl-C)",
}
_EXIT_STATUS = "exit status:\n" + "\n".join(
    textwrap.fill(text, 79, initial_indent=f"  {code.value}  ", subsequent_indent="     ")
    for code, text in EXIT_CODES.items()
)

_DESCRIPTION = """\
The executable error catalogue of Flax, from the terminal. It reads the project's
Sphinx configuration (conf.py, or docs/conf.py) and the same docstrings and
catalogue files as the site, and runs the examples through the same session, so a
verdict here is the verdict of the site's build. Options override conf.py."""


def build_parser() -> argparse.ArgumentParser:
    """The ``flax-errors`` parser, with one subparser per command."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description=_DESCRIPTION,
        epilog=_EXIT_STATUS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument(
        "--traceback",
        action="store_true",
        help=f"on an internal error (exit status 4), print its traceback before the one "
        f"line that names it (also: {TRACEBACK_ENV}=1)",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    catalogue, execution = _options()
    _add_reading_commands(commands, catalogue)
    _add_running_commands(commands, [catalogue, execution])
    for extra in sorted(entry_points(group=COMMANDS_GROUP), key=lambda e: e.name):
        extra.load().add(commands)
    return parser


def _add_reading_commands(commands: _Commands, catalogue: argparse.ArgumentParser) -> None:
    listing = add_command(
        commands,
        "list",
        [catalogue],
        "List every catalogued error with its status and URL.",
        """\
        Without --from nothing runs: the status comes from reading the entries
        (documented, undocumented, unreachable or malformed). With --from it is the
        verdict a build or a check recorded in an errors.json.""",
    )
    listing.add_argument("--json", action="store_true", help="print the errors.json document")
    listing.add_argument(
        "--from",
        dest="from_path",
        type=Path,
        metavar="PATH",
        help="take each entry's status from this errors.json (written by the site's build "
        "or by check --json)",
    )
    explain = add_command(
        commands,
        "explain",
        [catalogue],
        "Show an error's entry: what it means, a bad example and the fix.",
        """\
        QUERY is an error's name (ScopeParamShapeError or
        flax.errors.ScopeParamShapeError, in any case), its URL, or an error message
        as you got it, with its own parameter names, scope paths and shapes. Quote a
        message, or pass - to read it from standard input (a whole traceback is
        fine). A message answers only if it shows a documented one (values aside);
        any other is "not in the catalogue" (exit status 6), quoting the exception
        line read, with the entries it merely resembles as a hint.""",
    )
    explain.add_argument("query", nargs="+", metavar="QUERY", help="a name, URL or message")
    index = add_command(
        commands,
        "index",
        [catalogue],
        "Write the index that the help under a traceback answers from.",
        """\
        After flax_errors_ext.install(), an uncaught error that an entry matches ends
        in the entry's one-line fix and its URL. That help reads an index of the
        catalogue's texts, as explain matches them, instead of importing the
        libraries: this writes it. The package ships the index of its own site;
        another project points FLAX_ERRORS_HELP_INDEX at the file written here.""",
    )
    index.add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="FILE",
        help="write the index to FILE (whole or not at all) instead of standard output",
    )


def _add_running_commands(commands: _Commands, options: list[argparse.ArgumentParser]) -> None:
    check = add_command(
        commands,
        "check",
        options,
        "Run the examples and report every failure, with a diff for drift.",
        """\
        Each error runs in a fresh process on the local devices, through the same
        execution cache as the site's build. Progress goes to standard error,
        one line per error as it finishes; failures and the summary to standard
        output.""",
    )
    check.add_argument("names", nargs="*", metavar="NAME", help="errors to check (default: all)")
    check.add_argument("--json", action="store_true", help="print the errors.json document")
    check.add_argument(
        "--strict",
        action="store_const",
        const=True,
        help="fail on errors that have no examples (default: flax_errors_strict)",
    )
    check.add_argument(
        "--twice",
        action="store_true",
        help="run every bad example a second time, afresh, and fail where its text differs: "
        "text that varies (an address, a temporary path) must be documented with ...",
    )
    update = add_command(
        commands,
        "update",
        options,
        "Rewrite drifted error text and outputs from what the code does now.",
        """\
        Runs the examples as check does, then rewrites each drifted statement's
        documented text (a bad example's final traceback lines, or an output) in
        the docstring or example file it came from, and prints the diff. Nothing
        else in the file changes: an author's ... that still matches stays, and so
        does the wrapping of unchanged words. A file that changed while the examples
        ran is left alone (exit status 3). Failures other than drift (no raise,
        wrong class, a crash) are reported, not rewritten. The drifted examples run a
        second time, afresh: text that differs between the runs is not written, and
        the text with ... where it varies is proposed instead.""",
    )
    update.add_argument("names", nargs="*", metavar="NAME", help="errors to update (default: all)")
    update.add_argument("--dry-run", action="store_true", help="show the diff, write nothing")


def add_command(
    commands: _Commands,
    name: str,
    parents: list[argparse.ArgumentParser],
    summary: str,
    details: str,
) -> argparse.ArgumentParser:
    """Add the command ``name``, whose ``--help`` shows ``summary``, ``details`` and the codes."""
    return commands.add_parser(
        name,
        parents=parents,
        help=summary,
        description=f"{summary}\n\n{textwrap.dedent(details)}",
        epilog=_EXIT_STATUS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def _options() -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    catalogue = argparse.ArgumentParser(add_help=False)
    group = catalogue.add_argument_group("catalogue")
    group.add_argument(
        "--conf",
        type=Path,
        metavar="PATH",
        help="the Sphinx conf.py whose flax_errors_* settings to use (default: the first of "
        f"{' and '.join(CONF_PLACES)} in the current directory; without one, this package's "
        "errors and Flax's)",
    )
    group.add_argument(
        "--module",
        dest="modules",
        action="append",
        metavar="MODULE",
        help="a module whose error classes are catalogued, instead of "
        "flax_errors_modules; repeat for several",
    )
    group.add_argument(
        "--catalogue-dir",
        action="append",
        metavar="DIR",
        help="catalogue files for modules whose docstrings are not ours, as "
        "DIR/<module>/<Class>.txt, instead of flax_errors_catalogue_dirs; repeat for "
        "several (the catalogue shipped with flax_errors_ext is always searched last)",
    )
    execution = argparse.ArgumentParser(add_help=False)
    group = execution.add_argument_group("execution")
    group.add_argument(
        "-j",
        "--jobs",
        type=_positive,
        metavar="N",
        help="errors to run at once, each in a process of its own, instead of "
        "flax_errors_jobs (default: one per CPU)",
    )
    group.add_argument(
        "--timeout",
        type=_positive,
        metavar="SECONDS",
        help="seconds one example may run, instead of flax_errors_timeout",
    )
    group.add_argument(
        "--cache-dir",
        type=Path,
        default=Path(".flax_errors_cache"),
        metavar="DIR",
        help="the execution cache of the examples' runs (default: %(default)s in the "
        "current directory)",
    )
    group.add_argument(
        "--no-cache",
        action="store_true",
        help="run every example again, and do not store the results",
    )
    return catalogue, execution


def _positive(text: str) -> int:
    with contextlib.suppress(ValueError):
        if int(text) > 0:
            return int(text)
    raise argparse.ArgumentTypeError(f"expected a whole number above 0, got {text!r}")


_COMMANDS = {
    "list": ("catalogue", "list_command"),
    "explain": ("catalogue", "explain_command"),
    "index": ("catalogue", "index_command"),
    "check": ("runs", "check_command"),
    "update": ("runs", "update_command"),
}
"""Each core command's module and function, imported when it runs (check's pull in Jupyter)."""


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
        # `flax-errors list | head`: stop quietly, and keep the flush at exit from complaining.
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
