"""Hold a built site's landing pages to a weight budget: what a reader from a traceback loads.

A reader who follows the URL an error printed loads the error's module page (the
index the URL names), which takes them on to the entry's own page. Each of those
pages must stay within :data:`BUDGET`: its HTML as served, and gzipped, as a
server sends it. Other pages (the error index with its history matrix, the guide)
are not where a traceback leads, and are not held to it::

    python -m tools.site_weight docs/_build/html

The budget: 128 KB of HTML and 16 KB gzipped per page. It sits well above the
heaviest entry page (the command names it, with its weight), so that an entry with
a long docstring has room to grow, and it keeps every landing within a fraction of
a second on a slow mobile connection (400 kbit/s). A page per error is what keeps
within it: a page that gathers a module's entries again, or a part that dumps the
same text twice, fails it at once.
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import json
import sys
from pathlib import Path


@dataclasses.dataclass(frozen=True)
class Budget:
    """The most one landing page may weigh, in bytes."""

    html: int
    gzipped: int


BUDGET = Budget(html=128 * 1024, gzipped=16 * 1024)


@dataclasses.dataclass(frozen=True)
class PageWeight:
    """One landing page's weight."""

    page: str
    """Its path relative to the site root."""
    html: int
    gzipped: int

    def over(self, budget: Budget) -> bool:
        """Whether it weighs more than ``budget`` allows, either way."""
        return self.html > budget.html or self.gzipped > budget.gzipped

    def __str__(self) -> str:
        return f"{self.page}: {self.html / 1024:.1f} KB, {self.gzipped / 1024:.1f} KB gzipped"


def landing_pages(root: Path) -> list[str]:
    """Every entry's page (``errors.json`` lists them) and each module's page beside it.

    An entry's page ``<module page>/<Name>.html`` is beside its module's page
    ``<module page>.html``; where the entries are on their module's page, that
    page is the entry's.
    """
    entries = json.loads((root / "errors.json").read_text(encoding="utf-8"))["entries"]
    pages = {entry["url"].partition("#")[0] for entry in entries}
    modules = {page.rpartition("/")[0] + ".html" for page in pages if "/" in page}
    return sorted(pages | {page for page in modules if (root / page).is_file()})


def weigh(root: Path) -> list[PageWeight]:
    """The weight of every landing page of the site at ``root``."""
    found = []
    for page in landing_pages(root):
        data = (root / page).read_bytes()
        # A fixed mtime: the same page, the same gzipped size.
        found.append(PageWeight(page, len(data), len(gzip.compress(data, mtime=0))))
    return found


def main(argv: list[str] | None = None) -> int:
    """Weigh the site at the given folder; exit status 1 if any landing page is over."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path, help="the folder of the built HTML")
    args = parser.parse_args(argv)
    if not (args.root / "errors.json").is_file():
        print(f"{args.root}: no errors.json; build the site first", file=sys.stderr)
        return 2
    weights = weigh(args.root)
    over = [w for w in weights if w.over(BUDGET)]
    heaviest = max(weights, key=lambda w: w.html)
    for weight in over:
        print(f"over the budget: {weight}")
    print(
        f"{len(weights)} landing pages weighed, {len(over)} over the budget "
        f"({BUDGET.html // 1024} KB, {BUDGET.gzipped // 1024} KB gzipped); heaviest {heaviest}"
    )
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
