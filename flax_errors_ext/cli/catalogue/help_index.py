"""``flax-errors index``: the index the help under a traceback answers from.

Written from the catalogue as ``explain`` reads it (the entries, and the wordings
past releases printed), so that the help and ``explain`` answer alike; this
package ships the one of its own site (``flax-errors index -o
flax_errors_ext/help/index.json``, from this repository).
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

from flax_errors_ext.cli.catalogue.show import histories
from flax_errors_ext.cli.catalogue.snapshot import load_read_only
from flax_errors_ext.cli.parser import ExitCode
from flax_errors_ext.layout import base_url
from flax_errors_ext.model.lookup.help_index import help_index
from flax_errors_ext.model.lookup.wordings import by_entry, recorded_wordings
from flax_errors_ext.model.site.texts import fix_text, plain_text

if TYPE_CHECKING:
    import argparse


def index_command(args: argparse.Namespace) -> int:
    """Write the help index of the project's catalogue (standard output by default)."""
    selection = load_read_only(args)
    base = base_url(selection.project.config.base_url)
    wordings = recorded_wordings(histories(selection))
    index = help_index(
        (
            (entry, entry.site.url(base), plain_text(fix_text(entry.examples)))
            for entry in selection.entries
        ),
        by_entry(wordings),
    )
    text = json.dumps(index.to_json(), indent=1, ensure_ascii=False) + "\n"
    if args.output is None:
        sys.stdout.write(text)
    else:
        # Whole or not at all: a help that reads a half-written index says nothing.
        partial = args.output.with_name(f".{args.output.name}.partial")
        partial.write_text(text, encoding="utf-8")
        partial.replace(args.output)
    return ExitCode.OK
