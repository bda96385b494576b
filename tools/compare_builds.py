"""Compare two builds of the site: ``errors.json`` as data, and the body of every page.

A step "with no change of behaviour" (a restructuring, say) is shown by building the
site before and after it and comparing the two HTML folders::

    python -m tools.compare_builds BEFORE/docs/_build/html AFTER/docs/_build/html

What is compared:

- ``errors.json``, loaded as data: each differing value is named by its path
  (``entries[flax.errors.ScopeParamNotFoundError].examples[0].status``); entries are
  matched by ``qualname``, other lists by position.
- every HTML page (not ``_static/`` or ``_sources/``): the two sets of pages, and
  each page's body, the ``<article>`` (``article.bd-article`` in sphinx-book-theme),
  else the element with ``role="main"``, else the whole page. The body is compared as
  normalised markup, one tag or text run a line; the theme's chrome around it (sidebar,
  header, the last-updated footer, ``?digest=`` on scripts) is left out.
- ``objects.inv``: its header and its decoded entries, as a set.

``searchindex.js`` is skipped: the order of its terms and documents varies from build
to build, and every word it indexes is in the page bodies compared here.

What varies from run to run, and how it is left out (nothing else is):

- the keys in :data:`VOLATILE_KEYS` of ``errors.json``, wherever they are: an
  example's ``seconds``, and ``executed`` (whether a kernel ran the entry in this
  build or the execution cache answered, which says how warm the cache was, not what
  the code does). Where one of them differs, a note says so.
- in every string of ``errors.json`` and every text and attribute of a body: the
  patterns of :data:`VOLATILE_TEXT`, then each build's checkout folder (``X`` of
  ``X/docs/_build*/html``, or ``--checkouts``). Keys' order in a JSON object is not data.

Exit status: 0 if the builds are the same, 1 if not, 2 if a folder is not a build.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import json
import re
import sys
import zlib
from html.parser import HTMLParser
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

VOLATILE_KEYS = frozenset({"seconds", "executed"})
"""Keys of ``errors.json`` whose values are left out wherever they are."""

VOLATILE_TEXT: tuple[tuple[re.Pattern[str], str], ...] = (
    # A moment, with its time of day: "2026-12-02 13:45 UTC" (last updated),
    # "2026-12-02T13:45:07.123+00:00". A date alone is content (a release's date).
    (
        re.compile(
            r"\b\d{4}-\d\d-\d\d[ T]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?: ?UTC|Z|[+-]\d\d:?\d\d)?"
        ),
        "<time>",
    ),
    # A duration with a fraction: "12.3 s", "0.42 seconds", "850.0 ms".
    (re.compile(r"\b\d+\.\d+ ?(?:s|ms|µs|sec|seconds)\b"), "<duration>"),
    # A memory address: "<function f at 0x7f3a2c1b0d30>" (0xff and the like are kept).
    (re.compile(r"\b0x[0-9a-fA-F]{8,}\b"), "0x<address>"),
    # A folder Python's tempfile made: /tmp/tmpab12_x9z.
    (
        re.compile(r"(?:/private)?(?:/tmp|/var/tmp|/var/folders/[\w-]+/[\w-]+/T)/tmp\w{8}\b"),
        "<tmp>",
    ),
    # IPython's cell files, named by the kernel's pid: /tmp/ipykernel_41234/3125011.py.
    (re.compile(r"\bipykernel_\d+/\d+\.py\b"), "ipykernel_<pid>/<cell>.py"),
    # A process id said as such: "pid 1234", "pid=1234".
    (re.compile(r"\bpid[ =:]\s*\d+", re.IGNORECASE), "pid <pid>"),
    # Where a venv keeps installed packages: /x/.nox/docs-3-13/lib/python3.13/site-packages/.
    (re.compile(r"(?:/[^\s/\"'<>:]+)+/(?:site|dist)-packages/"), "<site-packages>/"),
    # A theme asset's cache-busting hash: "theme.css?digest=5d1f...".
    (re.compile(r"\?digest=[0-9a-f]+"), "?digest=<hash>"),
)
"""Text that varies between two builds of the same sources, and what it becomes."""

MAX_DIFF_LINES = 40
"""At most this many lines of diff are shown for one page or one value."""

_SKIPPED_FOLDERS = ("_static", "_sources")
_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param"}
    | {"source", "track", "wbr"}
)
_VERBATIM = frozenset({"pre", "textarea", "script", "style"})


class BadBuild(Exception):
    """A folder given is not a built site."""


@dataclasses.dataclass(frozen=True)
class Difference:
    """One thing that differs: where, and a short diff or description."""

    where: str
    lines: tuple[str, ...]

    def __str__(self) -> str:
        return "\n".join((f"--- {self.where}", *self.lines))


@dataclasses.dataclass
class Report:
    """The outcome of comparing two builds."""

    pages_compared: int = 0
    pages_identical: int = 0
    entries: tuple[int, int] = (0, 0)
    json_differences: list[Difference] = dataclasses.field(default_factory=list)
    page_differences: list[Difference] = dataclasses.field(default_factory=list)
    inventory_entries: int = 0
    inventory_differences: list[Difference] = dataclasses.field(default_factory=list)
    notes: list[str] = dataclasses.field(default_factory=list)

    @property
    def differences(self) -> list[Difference]:
        """Every difference found, errors.json's first."""
        return [*self.json_differences, *self.page_differences, *self.inventory_differences]

    def summary(self) -> str:
        """One line: pages, errors.json's entries, objects.inv's entries."""
        before, after = self.entries
        entries = f"{before}" if before == after else f"{before} -> {after}"
        return (
            f"{self.pages_compared} pages compared, {self.pages_identical} identical; "
            f"errors.json: {entries} entries, {_verdict(self.json_differences)}; "
            f"objects.inv: {self.inventory_entries} entries, "
            f"{_verdict(self.inventory_differences)}"
        )


def _verdict(found: list[Difference]) -> str:
    return f"{len(found)} differences" if found else "identical"


class Normaliser:
    """Rewrites what varies between builds (:data:`VOLATILE_TEXT`), and a checkout's path."""

    def __init__(self, checkout: Path | None) -> None:
        self.checkout = str(checkout.resolve()) if checkout is not None else None

    def __call__(self, text: str) -> str:
        """``text`` with what varies between builds written as placeholders."""
        # The patterns first: a venv inside the checkout is <site-packages> either way.
        for pattern, replacement in VOLATILE_TEXT:
            text = pattern.sub(replacement, text)
        if self.checkout and self.checkout != "/":
            text = text.replace(self.checkout, "<checkout>")
        return text


def checkout_of(html: Path) -> Path | None:
    """The folder a build was made from, for ``X/docs/_build*/html``; None otherwise."""
    html = html.resolve()
    build = html.parent
    if html.name == "html" and build.name.startswith("_build") and build.parent.name == "docs":
        return build.parent.parent
    return None


# --- errors.json ---


def load_errors(html: Path) -> dict[str, Any]:
    """The build's ``errors.json``.

    Raises:
        BadBuild: if there is none, or it is not a JSON object.
    """
    path = html / "errors.json"
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BadBuild(f"{html}: no errors.json; is it a built site's HTML folder?") from None
    except json.JSONDecodeError as error:
        raise BadBuild(f"{path}: not JSON ({error})") from None
    if not isinstance(document, dict):
        raise BadBuild(f"{path}: not a JSON object")
    return document


def compare_data(
    before: Any, after: Any, path: str, norm: tuple[Normaliser, Normaliser]
) -> tuple[list[Difference], list[str]]:
    """The differences between two JSON values, and the volatile values that differed."""
    walker = _Walker(norm)
    walker.value(before, after, path)
    return walker.found, walker.volatile


@dataclasses.dataclass
class _Walker:
    norm: tuple[Normaliser, Normaliser]
    found: list[Difference] = dataclasses.field(default_factory=list)
    volatile: list[str] = dataclasses.field(default_factory=list)

    def value(self, before: Any, after: Any, path: str) -> None:
        if isinstance(before, dict) and isinstance(after, dict):
            self.mapping(before, after, path)
        elif isinstance(before, list) and isinstance(after, list):
            keys = _list_keys(before), _list_keys(after)
            if keys[0] is None or keys[1] is None:
                self.mapping(dict(enumerate(before)), dict(enumerate(after)), path, "[{}]")
            else:
                self.mapping(
                    dict(zip(keys[0], before, strict=True)),
                    dict(zip(keys[1], after, strict=True)),
                    path,
                    "[{}]",
                )
        elif isinstance(before, str) and isinstance(after, str):
            old, new = self.norm[0](before), self.norm[1](after)
            if old != new:
                self.found.append(Difference(path, _text_diff(old, new)))
        elif before != after or type(before) is not type(after):
            self.found.append(Difference(path, (f"- {before!r}", f"+ {after!r}")))

    def mapping(
        self, before: dict[Any, Any], after: dict[Any, Any], path: str, step: str = ".{}"
    ) -> None:
        """Compare by key, in the order of ``before`` then what ``after`` adds."""
        for key in [*before, *(k for k in after if k not in before)]:
            where = f"{path}{step.format(key)}" if path else str(key)
            if key not in after or key not in before:
                side = "before" if key in before else "after"
                self.found.append(Difference(where, (f"only {side}",)))
            elif step == ".{}" and key in VOLATILE_KEYS:
                if before[key] != after[key]:
                    self.volatile.append(where)
            else:
                self.value(before[key], after[key], where)


def _list_keys(items: list[Any]) -> list[str] | None:
    """The items' ``qualname`` values, if every item has a distinct one."""
    keys = [item.get("qualname") if isinstance(item, dict) else None for item in items]
    if all(isinstance(k, str) for k in keys) and len(set(keys)) == len(keys):
        return [str(k) for k in keys]
    return None


def _text_diff(old: str, new: str) -> tuple[str, ...]:
    if "\n" not in old and "\n" not in new:
        return (f"- {old}", f"+ {new}")
    return _capped(old.splitlines(), new.splitlines())


def _capped(old: list[str], new: list[str]) -> tuple[str, ...]:
    lines = [
        line.rstrip("\n")
        for line in difflib.unified_diff(old, new, "before", "after", n=2, lineterm="")
    ][2:]
    if len(lines) > MAX_DIFF_LINES:
        rest = len(lines) - MAX_DIFF_LINES
        lines = [*lines[:MAX_DIFF_LINES], f"... {rest} more lines of diff"]
    return tuple(lines)


# --- pages ---


@dataclasses.dataclass
class _Element:
    tag: str
    attrs: dict[str, str]
    children: list[_Element | str] = dataclasses.field(default_factory=list)

    def find(self, match: Callable[[_Element], bool]) -> _Element | None:
        if match(self):
            return self
        for child in self.children:
            if isinstance(child, _Element) and (found := child.find(match)) is not None:
                return found
        return None


class _TreeBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = _Element("#document", {})
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = _Element(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(element)
        if tag not in _VOID:
            self.stack.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].children.append(_Element(tag, {k: v or "" for k, v in attrs}))

    def handle_endtag(self, tag: str) -> None:
        # An end tag closes the innermost open element of its name, and any left open
        # inside it (as a browser would); a stray one is dropped.
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth].tag == tag:
                del self.stack[depth:]
                return

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def page_body(text: str) -> _Element:
    """The part of a page that is its content, without the theme's chrome."""
    builder = _TreeBuilder()
    builder.feed(text)
    builder.close()
    root = builder.root
    return (
        root.find(lambda e: e.tag == "article")
        or root.find(lambda e: e.attrs.get("role") == "main")
        or root
    )


def body_lines(body: _Element, norm: Normaliser) -> list[str]:
    """The body as normalised markup: one tag, or one run of text, a line."""
    lines: list[str] = []
    _render(body, norm, lines, verbatim=False)
    return lines


def _render(element: _Element, norm: Normaliser, lines: list[str], *, verbatim: bool) -> None:
    attrs = "".join(f' {k}="{norm(v)}"' for k, v in sorted(element.attrs.items()))
    lines.append(f"<{element.tag}{attrs}>")
    verbatim = verbatim or element.tag in _VERBATIM
    for child in element.children:
        if isinstance(child, _Element):
            _render(child, norm, lines, verbatim=verbatim)
        elif verbatim:
            lines.extend(norm(child).splitlines())
        elif text := " ".join(child.split()):
            lines.append(norm(text))
    if element.tag not in _VOID:
        lines.append(f"</{element.tag}>")


def pages_of(html: Path) -> set[str]:
    """The site's pages, relative to its root (theme assets and sources left out)."""
    return {
        path.relative_to(html).as_posix()
        for path in html.rglob("*.html")
        if path.relative_to(html).parts[0] not in _SKIPPED_FOLDERS
    }


# --- objects.inv ---


def inventory(html: Path) -> list[str]:
    """``objects.inv``'s header lines and decoded entries; none if the build has none."""
    path = html / "objects.inv"
    if not path.is_file():
        return []
    *header, rest = path.read_bytes().split(b"\n", 4)
    lines = zlib.decompress(rest).decode("utf-8").splitlines()
    return [*(line.decode("utf-8") for line in header), *sorted(lines)]


# --- the whole ---


def compare(before: Path, after: Path, checkouts: tuple[Path | None, Path | None]) -> Report:
    """Compare two built HTML folders.

    Raises:
        BadBuild: if either folder is not a built site.
    """
    for html in (before, after):
        if not (html / "index.html").is_file():
            raise BadBuild(f"{html}: no index.html; is it a built site's HTML folder?")
    norm = Normaliser(checkouts[0]), Normaliser(checkouts[1])
    report = Report()
    data = load_errors(before), load_errors(after)
    report.entries = (len(data[0].get("entries", [])), len(data[1].get("entries", [])))
    report.json_differences, volatile = compare_data(data[0], data[1], "", norm)
    if volatile:
        shown = ", ".join(volatile[:3]) + (", ..." if len(volatile) > 3 else "")
        report.notes.append(
            f"errors.json: {len(volatile)} volatile values differ, not counted ({shown})"
        )
    pages = pages_of(before), pages_of(after)
    for page in sorted(pages[0] ^ pages[1]):
        side = "before" if page in pages[0] else "after"
        report.page_differences.append(Difference(page, (f"page only {side}",)))
    for page in sorted(pages[0] & pages[1]):
        report.pages_compared += 1
        old, new = (
            body_lines(page_body((html / page).read_text("utf-8", "replace")), n)
            for html, n in zip((before, after), norm, strict=True)
        )
        if old == new:
            report.pages_identical += 1
        else:
            report.page_differences.append(Difference(page, _capped(old, new)))
    entries = inventory(before), inventory(after)
    report.inventory_entries = max(len(entries[1]) - 4, 0)
    if entries[0] != entries[1]:
        report.inventory_differences.append(
            Difference("objects.inv", _capped(entries[0], entries[1]))
        )
    return report


def main(argv: list[str] | None = None) -> int:
    """Compare two builds; exit status 0 if the same, 1 if not, 2 on a bad folder."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path, help="the HTML folder of the build before")
    parser.add_argument("after", type=Path, help="the HTML folder of the build after")
    parser.add_argument(
        "--checkouts",
        nargs=2,
        type=Path,
        metavar=("BEFORE", "AFTER"),
        help="the folders each build was made from (by default X of X/docs/_build*/html)",
    )
    args = parser.parse_args(argv)
    checkouts: tuple[Path | None, Path | None] = (
        (args.checkouts[0], args.checkouts[1])
        if args.checkouts
        else (checkout_of(args.before), checkout_of(args.after))
    )
    try:
        report = compare(args.before, args.after, checkouts)
    except BadBuild as error:
        print(error, file=sys.stderr)
        return 2
    print(report.summary())
    for note in report.notes:
        print(f"note: {note}")
    for difference in report.differences:
        print(difference)
    return 1 if report.differences else 0


if __name__ == "__main__":
    sys.exit(main())
