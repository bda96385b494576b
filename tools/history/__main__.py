"""``python -m tools.history``: record past releases (``nox -s history``).

::

    python -m tools.history --work DIR [--uv UV] [FLAX...]
        [--slice K/N] [--out FILE]
    python -m tools.history --merge DIR

Runs, from the repository's root, what :mod:`~tools.history.recording`
says: each release of releases.toml (those of the Flax versions given, or the
K-th of N parts of them) that has entries to run, into
``flax_errors_ext/history/flax.json``, or into the slice file ``--out``.
``--merge`` merges the slice files under a folder into flax.json
(:mod:`~tools.history.merging`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from tools.history.merging import merge
from tools.history.plan import read_releases
from tools.history.recording import HistoryFiles, SliceOut, record
from tools.history.slices import SliceError, SlicePart

if TYPE_CHECKING:
    from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the arguments and record the chosen releases."""
    defaults = HistoryFiles(Path())
    parser = argparse.ArgumentParser(
        prog="python -m tools.history",
        description="Record the catalogue's bad examples on past Flax releases into flax.json.",
    )
    parser.add_argument("flax", nargs="*", help="only these Flax versions (default: all)")
    parser.add_argument("--work", type=Path, help="where the releases' venvs are kept")
    parser.add_argument("--slice", type=part, help="run only the K-th of N parts of the releases")
    parser.add_argument(
        "--out", type=Path, help="write a slice file here, not flax.json (default with --slice: "
        "WORK/slices/K-of-N.json)",
    )  # fmt: skip
    parser.add_argument(
        "--merge", type=Path, metavar="DIR", help="merge the slice files under DIR into flax.json"
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
    if args.merge is not None:
        if args.flax or args.slice or args.out:
            parser.error("--merge takes no releases, --slice or --out")
        return merged(HistoryFiles(Path(), args.history, args.catalogue), args.merge)
    if args.work is None:
        parser.error("--work is needed to run releases")
    files = HistoryFiles(args.work, args.history, args.catalogue)
    only, into = args.flax, None
    if args.slice is not None:
        if args.flax:
            parser.error("give releases or --slice, not both")
        only = chosen(files, args.slice)
        if not only:
            parser.error(f"slice {args.slice} is empty: releases.toml has fewer releases")
        name = f"{args.slice.index}-of-{args.slice.count}.json"
        into = SliceOut(args.out or args.work / "slices" / name, str(args.slice))
    elif args.out is not None:
        into = SliceOut(args.out, " ".join(only) or "all")
    record(files, only, args.uv, into)
    return 0


def part(text: str) -> SlicePart:
    """``--slice``'s value, or argparse's error with what is wrong with it."""
    try:
        return SlicePart.parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def chosen(files: HistoryFiles, slice_part: SlicePart) -> list[str]:
    """The Flax versions of releases.toml in ``slice_part``."""
    releases = read_releases((files.folder / "releases.toml").read_text("utf-8"))
    return [r.flax for r in slice_part.choose(releases)]


def merged(files: HistoryFiles, folder: Path) -> int:
    """Merge the slices under ``folder``; 1, with every problem said, if they are not."""
    try:
        merge(files, folder)
    except SliceError as error:
        print(f"error: the slices under {folder} are not merged:\n{error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
