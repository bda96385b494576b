"""``python -m tools.api_index``: index a library's releases (``nox -s api_index``).

::

    python -m tools.api_index PROJECT --since VERSION [--package NAME]
        [--downloads DIR] [--out FILE] [--jobs N] [--uses LIBRARY ...]

Fetches every final release of PROJECT from VERSION on from the package index
(:mod:`~tools.api_index.fetch`; kept in DIR, so a refresh fetches only what is new),
reads each with ``ast`` (:mod:`~tools.api_index.reader`) and writes the index
(:class:`~flax_errors_ext.model.lookup.api_index.ApiIndex`) to FILE, by default
``flax_errors_ext/api/PROJECT.json.gz``, which the package ships.
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from packaging.version import Version

from flax_errors_ext.model.lookup.api_index import (
    ApiIndex,
    ReleaseApi,
    merged,
    shipped,
)
from tools.api_index.fetch import download, release_files
from tools.api_index.reader import read_release

if TYPE_CHECKING:
    from collections.abc import Sequence

SHIPPED = Path("flax_errors_ext/api")
FIGURES = Path("docs/guide/_figures/api_index.md.inc")
USED = ("jax", "flax")
"""The libraries whose names an index lists the uses of, by default: what its errors name."""


def _read(archive: Path, package: str, libraries: Sequence[str]) -> tuple[ReleaseApi, set[str]]:
    api = read_release(archive, package, libraries)
    return (api.names, api.params, api.messages, api.bases, api.uses), api.modules


def reach_table(indexes: Sequence[ApiIndex]) -> str:
    """The indexes' reach as a Markdown table: the site's figures."""
    rows = [
        "| Library | Releases | From | To | Names | Callables | Deprecation messages "
        "| Other libraries' names it uses |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for index in sorted(indexes, key=lambda i: i.distribution):
        rows.append(
            f"| {index.distribution} | {len(index.releases)} | {index.releases[0]} "
            f"| {index.releases[-1]} | {len(index.names):,} | {len(index.params):,} "
            f"| {len(index.messages):,} | {len(index.uses):,} |"
        )
    return "\n".join(rows) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the arguments, fetch and read the releases, write the index."""
    parser = argparse.ArgumentParser(prog="python -m tools.api_index", description=__doc__)
    parser.add_argument("project", help="the distribution's name on the package index")
    parser.add_argument("--since", required=True, type=Version, help="the oldest release")
    parser.add_argument("--package", help="its top-level module (default: the name)")
    parser.add_argument("--downloads", type=Path, default=Path.home() / ".cache/flax-errors-api")
    parser.add_argument("--out", type=Path, help="default: flax_errors_ext/api/PROJECT.json.gz")
    parser.add_argument("--jobs", type=int, default=2, help="releases read at once")
    parser.add_argument(
        "--uses",
        action="append",
        help="a library whose names the releases' code uses are listed (default: jax, flax)",
    )
    args = parser.parse_args(argv)
    package = args.package or args.project.replace("-", "_")
    libraries = [name for name in args.uses or USED if name != package.split(".")[0]]
    files = release_files(args.project, args.since)
    archives = []
    for file in files:
        archives.append(download(file, args.downloads / args.project))
        print(f"fetched {file.filename}", file=sys.stderr)
    with ProcessPoolExecutor(args.jobs) as pool:
        read = list(
            pool.map(_read, archives, [package] * len(archives), [libraries] * len(archives))
        )
    releases = [str(file.version) for file in files]
    apis, modules = zip(*read, strict=True) if read else ((), ())
    index = merged(args.project, package, releases, apis, modules)
    out = args.out or SHIPPED / f"{args.project}.json.gz"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(index.to_bytes())
    if out.parent == SHIPPED:
        FIGURES.write_text(reach_table([ApiIndex.read(path) for path in shipped()]))
    print(
        f"{out}: {args.project} {releases[0]} to {releases[-1]} ({len(releases)} releases), "
        f"{len(index.names)} names, {len(index.params)} callables",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
