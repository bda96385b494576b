"""``python -m flax_errors_ext.execution.history``: record past releases (``nox -s history``).

::

    python -m flax_errors_ext.execution.history --work DIR [--uv UV] [FLAX...]

Runs, from the repository's root, what :mod:`~flax_errors_ext.execution.history.recording`
says: each release of releases.toml (those of the Flax versions given) that has
entries to run, into ``flax_errors_ext/history/flax.json``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from flax_errors_ext.execution.history.recording import HistoryFiles, record

if TYPE_CHECKING:
    from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the arguments and record the chosen releases."""
    defaults = HistoryFiles(Path())
    parser = argparse.ArgumentParser(
        prog="python -m flax_errors_ext.execution.history",
        description="Record the catalogue's bad examples on past Flax releases into flax.json.",
    )
    parser.add_argument("flax", nargs="*", help="only these Flax versions (default: all)")
    parser.add_argument(
        "--work", type=Path, required=True, help="where the releases' venvs are kept"
    )
    parser.add_argument("--uv", default="uv", help="the uv that makes the venvs")
    parser.add_argument(
        "--history",
        type=Path,
        default=defaults.folder,
        help="the folder of releases.toml, rewrites.toml and flax.json",
    )
    parser.add_argument(
        "--catalogue", type=Path, default=defaults.catalogue, help="the catalogue folder"
    )
    args = parser.parse_args(argv)
    record(HistoryFiles(args.work, args.history, args.catalogue), args.flax, args.uv)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
