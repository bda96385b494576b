"""Every URL Flax prints to its errors' page, opened in a real browser on its own host.

::

    python -m tools.flax_docs.landing HTML --notebooks DOCS_NNX

The URLs: each error of the installed :mod:`flax.errors` at the page its
``FlaxError`` links to (read from flax's source, then completed as the message
completes it: ``<page>#flax.errors.<Name>``), and every such URL in the text and
outputs of the notebooks under ``DOCS_NNX``. Debian's chromium, headless under
playwright (never a downloaded browser), opens each exact URL. A request to that
URL's host is answered from the built site ``HTML``; any other is refused, so
nothing leaves the machine. Each must land on its entry (its own page, as the
default layout has it) with the heading that names the error visible. Prints each
URL's landing; 1 if one did not land.
"""

from __future__ import annotations

import argparse
import json
import mimetypes
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from flax_errors_ext.layout import DEFAULT_LAYOUT
from tools.chromium import CHROMIUM, CHROMIUM_ARGS

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Sequence

    from playwright.sync_api import Route

MODULE = "flax.errors"
PAGE = DEFAULT_LAYOUT.printed(f"{MODULE}.X").page + ".html"
"""Where the URLs lead on any host: ``api_reference/flax.errors.html``."""
LINK = re.compile(r"https?://[\w.-]+(?:/[\w.~%-]+)*/" + re.escape(PAGE) + r"(?:#[\w.]+)?")
"""A URL of the errors' page, with its fragment if it has one."""
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def printed_urls(sources: Iterable[str], classes: Iterable[str]) -> list[str]:
    """The URLs an error message prints: each page in ``sources`` at each class.

    A URL in the sources that already names its anchor is kept as it is.
    """
    found = {match for text in sources for match in LINK.findall(text)}
    pages = {url for url in found if "#" not in url}
    return sorted(
        {url for url in found if "#" in url}
        | {f"{page}#{name}" for page in pages for name in classes}
    )


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)


def notebook_urls(notebook: str) -> list[str]:
    """The errors' page URLs, with their anchors, a notebook's cells and outputs hold.

    The text of a cell or an output is split into lines in a notebook, and a
    traceback is coloured: the URLs are read from the joined, uncoloured text.
    """
    cells = json.loads(notebook).get("cells", [])
    texts = ("".join(_strings(cell)) for cell in cells)
    found = (LINK.findall(ANSI.sub("", text)) for text in texts)
    return sorted({url for urls in found for url in urls if "#" in url})


def landing(url: str) -> tuple[str, str]:
    """Where ``url`` must land on its own host: the entry's page URL, and the error's name.

    Raises:
        ValueError: if the URL names no error of the module.
    """
    page_url, _, qualname = url.partition("#")
    if not qualname.startswith(MODULE + "."):
        raise ValueError(f"{url}: names no error of {MODULE}")
    base = page_url.removesuffix(PAGE)
    return DEFAULT_LAYOUT.locate(qualname).url(base), qualname.rpartition(".")[2]


def site_file(url: str, base: str, html: Path) -> Path | None:
    """The built file that answers ``url`` for the site published at ``base``, if any."""
    if not url.startswith(base):
        return None
    relative = urlsplit(url).path.removeprefix(urlsplit(base).path).lstrip("/")
    path = (html / (relative or "index.html")).resolve()
    if not path.is_relative_to(html.resolve()):
        return None
    return path / "index.html" if path.is_dir() else path


def flax_urls() -> list[str]:
    """The URLs the installed flax's errors print, read from its source."""
    import flax

    root = Path(flax.__file__).parent
    sources = [path.read_text("utf-8") for path in sorted(root.rglob("*.py"))]
    return printed_urls(sources, flax_errors())


def flax_errors() -> list[str]:
    """The errors of the installed :mod:`flax.errors`: its own FlaxError subclasses."""
    import flax.errors

    return sorted(
        f"{MODULE}.{name}"
        for name, value in vars(flax.errors).items()
        if isinstance(value, type)
        and issubclass(value, flax.errors.FlaxError)
        and value is not flax.errors.FlaxError
        and value.__module__ == MODULE
    )


def _answering(base: str, html: Path) -> Callable[[Route], None]:
    """A route handler: the built site's files for ``base``, nothing for other hosts."""

    def answer(route: Route) -> None:
        path = site_file(route.request.url, base, html)
        if path is None:  # another host: nothing leaves the machine
            route.abort()
        elif not path.is_file():
            route.fulfill(status=404)
        else:
            kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
            route.fulfill(status=200, body=path.read_bytes(), content_type=kind)

    return answer


def open_all(urls: Sequence[str], html: Path) -> list[tuple[str, str, bool]]:
    """Open each URL in chromium, served from ``html``: (url, where it landed, landed)."""
    from playwright.sync_api import sync_playwright

    results = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for url in urls:
                expected, name = landing(url)
                base = expected[: expected.index("api_reference/")]

                page = browser.new_page(viewport={"width": 1280, "height": 860})
                page.route("**/*", _answering(base, html))
                try:
                    page.goto(url)
                    page.wait_for_url(expected, timeout=10_000)
                    heading = page.locator(f'section[id="{expected.partition("#")[2]}"]')
                    title = heading.locator("h1, h2, h3").first
                    ok = title.is_visible() and title.inner_text().rstrip("#¶ \n") == name
                except Exception as error:  # a timeout: where it stayed is the report
                    print(f"    {type(error).__name__}", file=sys.stderr)
                    ok = False
                results.append((url, page.url, ok))
                page.close()
        finally:
            browser.close()
    return results


def main(argv: Sequence[str] | None = None) -> int:
    """Collect the URLs, open each, print where it landed; 1 if one did not land."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("html", type=Path, help="the built docs_nnx site")
    parser.add_argument("--notebooks", type=Path, help="docs_nnx's sources, as released")
    args = parser.parse_args(argv)
    printed = flax_urls()
    shown: dict[str, list[str]] = {}
    for path in sorted(args.notebooks.rglob("*.ipynb")) if args.notebooks else ():
        for url in notebook_urls(path.read_text("utf-8")):
            shown.setdefault(url, []).append(path.relative_to(args.notebooks).as_posix())
    urls = sorted(set(printed) | set(shown))
    print(f"URLs: {len(printed)} Flax prints, {len(shown)} in the notebooks")
    results = open_all(urls, args.html)
    for url, landed, ok in results:
        where = f" (in {', '.join(shown[url])})" if url in shown else ""
        print(f"  {'ok ' if ok else 'NOT'} {url}{where}\n      -> {landed}")
    missed = [url for url, _, ok in results if not ok]
    print(f"landing: {len(results) - len(missed)} of {len(results)} on their entries")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
