"""``flax-errors export``: the extra's command, found by its entry point.

pyproject's ``flax_errors.commands`` entry point names this module
(:data:`~flax_errors_ext.cli.parser.COMMANDS_GROUP`). Adding it to the parser
imports nothing of the export itself (:mod:`.command` is imported to run).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from flax_errors_ext.cli.parser import add_command

if TYPE_CHECKING:
    import argparse


def add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``export``: the patch that puts the catalogue into Flax's docstrings."""
    export = add_command(
        commands,
        "export",
        [],
        "Write a patch that puts the catalogue's examples into Flax's own docstrings.",
        """\
        Reads flax/errors.py and the catalogue files shipped for flax.errors, and
        writes a unified diff against it (paths a/flax/errors.py and b/flax/errors.py:
        patch -p1 or git apply takes it at the root of Flax's source tree). Each
        catalogued class's docstring opens with the file's summary, keeps Flax's
        prose and code blocks (with exact repairs to the few broken ones), and ends
        with the file's explanation and an Examples: section holding one bad and
        one good example that hold on every supported release, in Flax's style
        (pyink's 80 columns and 2-space indents, URLs elided with ...); the site
        built from the patched docstrings gives the same verdicts for them.
        Paragraphs bound to one release stay on the site. Classes without a
        catalogue file are left unchanged; exporting a patched file changes
        nothing. Problems go to standard error, each at its file:line.""",
    )
    export.add_argument(
        "--flax-source",
        type=Path,
        default=None,
        metavar="PATH",
        help="the flax/errors.py to patch (default: the installed flax's, found without "
        "importing it)",
    )
    export.add_argument(
        "-o",
        "--output",
        type=Path,
        default=None,
        metavar="FILE",
        help="write the patch to FILE instead of standard output",
    )
    export.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Write the patch."""
    from flax_errors_ext.ext.export.cli.command import export_command

    return export_command(args)
