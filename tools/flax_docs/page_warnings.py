"""The warnings of two builds of Flax's docs, page by page: none added, none hidden.

A build's warnings file holds lines; a warning is the line that opens it (``...:
WARNING: ...``) and the lines that follow it (a title, a traceback). Each is put on
the page it was given for: a source file of the tree is that page; a docstring is
the page its object is documented on, as the build's ``objects.inv`` lists it.
A warning that the adopted build gives and the released one does not is *added*;
one the released build gives and the adopted one does not is *fixed* if the patch
series rewrote the file it came from (the page itself, or the page its docstring
was shown on), and *hidden* otherwise. Pure: the caller reads the files.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

LEVEL = re.compile(r"\b(WARNING|ERROR|SEVERE|CRITICAL):")
NO_PAGE = "(no page)"
"""Where a warning without a location (a setting, the theme) is counted."""
_SOURCE = re.compile(r"^<tree>/(?P<docs>[\w.-]+)/(?P<page>[^:]+?)\.(?:rst|md|ipynb|txt)(?::|$)")
_DOCSTRING = re.compile(r"^(?P<file>[^:]+):docstring of (?P<name>[\w.]+)")
_DIRECTIVE = re.compile(r"^\[':module: (?P<module>[\w.]+)', ':class: (?P<name>\w+)'\]:")
"""The content of a directive naming a module and a class (Flax's ``flax_module``)."""


@dataclasses.dataclass(frozen=True)
class PageWarnings:
    """One page's warnings in both builds, and what became of each difference."""

    page: str
    released: int
    adopted: int
    added: tuple[str, ...]
    fixed: tuple[str, ...]
    hidden: tuple[str, ...]


def warnings(lines: Iterable[str]) -> list[str]:
    """The warnings of a build's lines: each opening line with those that follow it."""
    found: list[str] = []
    for line in lines:
        if LEVEL.search(line) or not found:
            found.append(line)
        else:
            found[-1] += "\n" + line
    return found


def object_pages(inventory: Mapping[tuple[str, str], tuple[str, str]]) -> dict[str, str]:
    """``{dotted name: page}`` of the Python objects an inventory lists."""
    return {
        name: location.partition("#")[0].removesuffix(".html")
        for (role, name), (location, _) in inventory.items()
        if role.startswith("py:")
    }


def page_of(warning: str, docs: str, objects: Mapping[str, str]) -> str:
    """The page a warning was given for (:data:`NO_PAGE` if it names none).

    A docstring's object (or the one a directive names by module and class) is
    looked up by its dotted name, then by its trailing names (a class documented
    where its package exports it: ``flax.nnx.Module`` for ``flax.nnx.module.Module``),
    the longest that one page alone has.
    """
    line = warning.partition("\n")[0]
    source = _SOURCE.match(line)
    if source and source["docs"] == docs:
        return source["page"]
    directive = _DIRECTIVE.match(line)
    if directive:
        return objects.get(f"{directive['module']}.{directive['name']}", NO_PAGE)
    docstring = _DOCSTRING.match(line)
    if docstring is None:
        return NO_PAGE
    parts = docstring["name"].split(".")
    for start in range(len(parts)):
        tail = ".".join(parts[start:])
        pages = {
            page for name, page in objects.items() if name == tail or name.endswith("." + tail)
        }
        if len(pages) == 1:
            return pages.pop()
        if pages:
            break
    return f"(docstrings of {docstring['file']})"


def by_page(
    found: Iterable[str], docs: str, objects: Mapping[str, str]
) -> dict[str, Counter[str]]:
    """Each page's warnings, counted."""
    pages: dict[str, Counter[str]] = {}
    for warning in found:
        pages.setdefault(page_of(warning, docs, objects), Counter())[warning] += 1
    return pages


def beyond(
    pages: Mapping[str, Counter[str]], given: Mapping[str, Counter[str]]
) -> dict[str, Counter[str]]:
    """Each page's warnings, less as many of each as ``given`` holds for that page."""
    return {page: found - given.get(page, Counter()) for page, found in pages.items()}


def compare(
    released: Mapping[str, Counter[str]],
    adopted: Mapping[str, Counter[str]],
    rewritten: Iterable[str],
) -> list[PageWarnings]:
    """Page by page, the warnings added, and those gone: fixed where ``rewritten``.

    Args:
        released: The released build's warnings by page.
        adopted: The adopted build's warnings by page.
        rewritten: The pages whose sources the patch series changes.
    """
    changed = set(rewritten)
    rows = []
    for page in sorted(set(released) | set(adopted)):
        before, after = released.get(page, Counter()), adopted.get(page, Counter())
        gone = sorted((before - after).elements())
        rows.append(
            PageWarnings(
                page=page,
                released=before.total(),
                adopted=after.total(),
                added=tuple(sorted((after - before).elements())),
                fixed=tuple(gone if page in changed else ()),
                hidden=tuple(() if page in changed else gone),
            )
        )
    return rows


def rewritten_pages(files: Iterable[str], docs: str) -> list[str]:
    """The pages of the tree ``docs`` among the files a patch series changes."""
    prefix = docs.rstrip("/") + "/"
    return sorted(
        re.sub(r"\.(rst|md|ipynb)$", "", name.removeprefix(prefix))
        for name in files
        if name.startswith(prefix) and name.endswith((".rst", ".md", ".ipynb"))
    )


def table(rows: Sequence[PageWarnings]) -> list[str]:
    """The rows as a table a reader scans: pages with a warning in either build."""
    shown = [row for row in rows if row.released or row.adopted]
    width = max([len("page"), *(len(row.page) for row in shown)])
    lines = [f"{'page':<{width}}  released  adopted  added  fixed  hidden"]
    for row in shown:
        lines.append(
            f"{row.page:<{width}}  {row.released:>8}  {row.adopted:>7}  {len(row.added):>5}  "
            f"{len(row.fixed):>5}  {len(row.hidden):>6}"
        )
    total = [sum(getattr(r, f) for r in rows) for f in ("released", "adopted")]
    counts = [sum(len(getattr(r, f)) for r in rows) for f in ("added", "fixed", "hidden")]
    lines.append(
        f"{'(all ' + str(len(shown)) + ' pages)':<{width}}  {total[0]:>8}  {total[1]:>7}  "
        f"{counts[0]:>5}  {counts[1]:>5}  {counts[2]:>6}"
    )
    return lines
