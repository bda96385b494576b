"""Check a built site's links offline: every local page and anchor a link names exists.

Sphinx's own ``linkcheck`` builder fetches every external URL, which needs a
network and checks nothing about anchors on local pages. This reads the built
HTML instead: each ``href`` (and ``src``) to a local file must name a file that
exists and, if it has a fragment, an ``id`` (or ``name``) on that page. External
links are listed, never fetched::

    python -m tools.site_links docs/_build/html
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

_EXTERNAL_SCHEMES = frozenset({"http", "https", "mailto", "ftp", "data", "javascript", "tel"})


@dataclasses.dataclass(frozen=True)
class Link:
    """One link on one page: where it is and what it names."""

    page: str
    """The page's path relative to the site root."""
    target: str

    def __str__(self) -> str:
        return f"{self.page}: {self.target}"


@dataclasses.dataclass
class Report:
    """The outcome of a check: the broken local links and every external one."""

    broken: list[Link] = dataclasses.field(default_factory=list)
    external: list[Link] = dataclasses.field(default_factory=list)
    checked: int = 0


class _PageParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        for key in ("id", "name") if tag == "a" else ("id",):
            if values.get(key):
                self.ids.add(str(values[key]))
        for key in ("href", "src"):
            value = values.get(key)
            # <link href> covers stylesheets and icons; all must be local too.
            if value is not None:
                self.links.append(value)


def _parse(path: Path) -> _PageParser:
    parser = _PageParser()
    parser.feed(path.read_text(encoding="utf-8", errors="replace"))
    parser.close()
    return parser


def check_site(root: Path) -> Report:
    """Check every link on every HTML page under ``root``."""
    root = root.resolve()
    # Files under _static are the theme's assets (some are Jinja templates), not pages.
    pages = {
        path: _parse(path)
        for path in sorted(root.rglob("*.html"))
        if path.relative_to(root).parts[0] not in ("_static", "_sources")
    }
    report = Report()
    for path, parsed in pages.items():
        page = path.relative_to(root).as_posix()
        for target in parsed.links:
            link = Link(page, target)
            parts = urlsplit(target)
            if parts.scheme in _EXTERNAL_SCHEMES or target.startswith("//"):
                if parts.scheme in ("http", "https") or target.startswith("//"):
                    report.external.append(link)
                continue
            report.checked += 1
            if not _resolves(root, path, parts.path, parts.fragment, pages):
                report.broken.append(link)
    return report


def _resolves(
    root: Path, page: Path, path: str, fragment: str, pages: dict[Path, _PageParser]
) -> bool:
    target = (page.parent / unquote(path)).resolve() if path else page
    if target.is_dir():
        target = target / "index.html"
    if not target.is_relative_to(root) or not target.is_file():
        return False
    if not fragment or target.suffix != ".html":
        return True
    parsed = pages.get(target) or _parse(target)
    return unquote(fragment) in parsed.ids


def main(argv: list[str] | None = None) -> int:
    """Check the site at the given folder; exit status 1 if any local link is broken."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path, help="the folder of the built HTML")
    args = parser.parse_args(argv)
    if not (args.root / "index.html").is_file():
        print(f"{args.root}: no index.html; build the site first", file=sys.stderr)
        return 2
    report = check_site(args.root)
    for shown in sorted({str(x) for x in report.external}):
        print(f"external (not fetched): {shown}")
    for link in report.broken:
        print(f"broken: {link}")
    print(
        f"{report.checked} local links checked, {len(report.broken)} broken; "
        f"{len({x.target for x in report.external})} external links listed"
    )
    return 1 if report.broken else 0


if __name__ == "__main__":
    sys.exit(main())
