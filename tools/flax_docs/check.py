"""Check Flax's docs built as released and with flax_errors_ext adopted (``nox -s flax_docs``).

::

    python -m tools.flax_docs.check adopted PLAIN PATCHED
    python -m tools.flax_docs.check exported PATCHED EXPORT

Each argument is a tree the session built: ``docs/`` (Flax's sources, patched or
not), ``_build/html``, ``_build/doctest`` and each build's warnings
(``warnings-html.txt``, ``warnings-doctest.txt``). ``adopted`` holds the build with
tools/flax_docs/adopt.patch to its promises: (a) no warning that the released docs
do not give, paths aside; (b) every error Flax's page documented is an entry, run in
this build and passed (or unreachable on this flax), at the anchor Flax's errors
print; (c) the same inventory but for ``flax.errors`` and what lives under it, and
labels the page gains; (d) ``-b doctest`` of the page passes. ``exported`` holds the
build from a flax patched by ``flax-errors export``, whose docstrings now hold the
examples (the extension then reads no catalogue file for them), to the same
status for every entry (an unreachable one's exported good example passes), one bad
and one good example each, all passed, read from the docstrings, no warning added,
and (with ``--doctest-junit``) Flax's docstring doctests of the exported
flax/errors.py each passed or skipped. Each prints its figures, and the
problems it finds; 1 if there are any.
"""

from __future__ import annotations

import argparse
import json
import posixpath
import re
import sys
import sysconfig
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tools.flax_docs import page_warnings
from tools.flax_docs.page_warnings import rewritten_pages
from tools.flax_docs.series import SERIES, read_series

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

MODULE = "flax.errors"
PAGE = "api_reference/flax.errors.html"
"""Where Flax's errors link to, on Flax's site and on this build's alike."""
ENTRY_PAGES = PAGE.removesuffix(".html")
"""The folder of the errors' own pages, ``<ENTRY_PAGES>/<Name>.html`` (the default layout)."""
FLAX_SITE = "https://flax.readthedocs.io/en/latest/"
SETTLED = ("passed", "unreachable")
ANSI = re.compile(r"\x1b\[[0-9;]*m")
LEVEL = re.compile(r"\b(WARNING|ERROR|SEVERE|CRITICAL):")
"""What opens a warning; the lines that follow some (a title, a traceback) are compared too."""
PRINTED_LINK = re.compile(re.escape(FLAX_SITE) + r"(" + re.escape(PAGE) + r"#[\w.]+)")

Inventory = dict[tuple[str, str], tuple[str, str]]
"""``(role, name)`` to ``(location, display name)``, as objects.inv lists them."""

Verdicts = dict[str, tuple[str, tuple[tuple[str, str], ...]]]
"""Each entry's status, and each of its examples' kind and status, in order."""


def warning_lines(tree: Path, builder: str = "html") -> list[str]:
    """The lines of a build's warnings file, in order, paths aside.

    The tree's folder is written ``<tree>``, flax's, installed or the tree's own (the
    export mode's), ``<flax>``, and the other installed packages' folder ``<site>``.
    """
    path = tree / f"warnings-{builder}.txt"
    if not path.is_file():  # not built: docs_nnx as released has no errors page to test
        return []
    text = ANSI.sub("", path.read_text("utf-8"))
    root = str(tree.resolve())
    purelib = sysconfig.get_paths()["purelib"]
    places = {f"{root}/flax/": "<flax>/", f"{purelib}/flax/": "<flax>/", purelib: "<site>"}
    lines: list[str] = []
    for raw in text.splitlines():
        if raw.strip():
            line = raw
            for place, name in places.items():
                line = line.replace(place, name)
            lines.append(line.replace(root, "<tree>").rstrip())
    return lines


def warnings_of(tree: Path, builder: str = "html") -> Counter[str]:
    """The lines of a build's warnings file, paths aside, counted."""
    return Counter(warning_lines(tree, builder))


def count(lines: Counter[str]) -> int:
    """How many warnings (or errors) the lines hold."""
    return sum(n for line, n in lines.items() if LEVEL.search(line))


def added(before: Counter[str], after: Counter[str]) -> list[str]:
    """The lines ``after`` has more often than ``before``, each as often as it is added."""
    return sorted((after - before).elements())


def anchors(html: str) -> set[str]:
    """The ids of a page that name a class of the module: ``flax.errors.<Name>``."""
    return set(re.findall(r'\bid="(' + re.escape(MODULE) + r'\.\w+)"', html))


def check_entries(document: dict[str, Any], documented: set[str], page_ids: set[str]) -> list[str]:
    """Every class Flax's page documented is an entry, run, settled, at its anchor.

    Args:
        document: The patched build's errors.json.
        documented: The anchors of the classes on Flax's own page.
        page_ids: The anchors on the patched page.
    """
    problems = []
    entries = {e["qualname"]: e for e in document["entries"] if e["qualname"].startswith(MODULE)}
    for qualname in sorted(documented - set(entries)):
        problems.append(f"{qualname}: documented on Flax's page, but no entry")
    for qualname, entry in sorted(entries.items()):
        if entry["status"] not in SETTLED:
            problems.append(f"{qualname}: {entry['status']}, not {' or '.join(SETTLED)}")
        if not entry["executed"]:
            problems.append(f"{qualname}: not run in this build")
        if entry["url"] not in entry_urls(qualname) or qualname not in page_ids:
            problems.append(
                f"{qualname}: not at {PAGE}#{qualname} and its own page (its url: {entry['url']})"
            )
        for example in entry["examples"]:
            for link in PRINTED_LINK.findall(example["actual"]):
                if link.partition("#")[2] not in page_ids:
                    problems.append(f"{example['source']}: prints {link}, no such anchor")
    return problems


def entry_urls(qualname: str) -> set[str]:
    """Where an entry may be: on Flax's page at its anchor, or on its own page beside it.

    Either way the printed anchor must be on Flax's page (``check_entries``).
    """
    name = qualname.rpartition(".")[2]
    return {f"{PAGE}#{qualname}", f"{ENTRY_PAGES}/{name}.html#{qualname}"}


def printed_links(document: dict[str, Any]) -> Counter[str]:
    """How many examples print a link to their own entry, and to another one."""
    counts: Counter[str] = Counter()
    for entry in document["entries"]:
        for example in entry["examples"]:
            for link in PRINTED_LINK.findall(example["actual"]):
                own = link == f"{PAGE}#{entry['qualname']}"
                counts["own entry" if own else "another entry"] += 1
    return counts


def read_inventory(path: Path) -> Inventory:
    """An objects.inv, read with Sphinx's own reader."""
    from sphinx.util.inventory import InventoryFile

    with path.open("rb") as stream:
        inventory = InventoryFile.load(stream, "", posixpath.join)
    return {
        (role, name): _target(item)
        for role, items in inventory.items()
        for name, item in items.items()
    }


def _target(item: Any) -> tuple[str, str]:
    if isinstance(item, tuple):  # before Sphinx 8.2: (project, version, location, display)
        return str(item[2]), str(item[3])
    return str(item.uri), str(item.display_name)


def compare_inventories(plain: Inventory, patched: Inventory) -> tuple[list[str], Counter[str]]:
    """Differences that break a link, and a count of those that the adoption may make.

    The module and what lives under it may change; the page and the entries' pages
    may gain labels (Flax's autosectionlabel makes one of each heading). Anything
    else is a problem.
    """
    problems: list[str] = []
    allowed: Counter[str] = Counter()
    for key in sorted(set(plain) | set(patched)):
        before, after = plain.get(key), patched.get(key)
        if before == after:
            continue
        role, name = key
        change = "removed" if after is None else "added" if before is None else "changed"
        if name == MODULE or name.startswith(MODULE + "."):
            allowed[f"{change} {role} of {MODULE}"] += 1
        elif (
            before is None
            and after is not None
            and (after[0].partition("#")[0] == PAGE or after[0].startswith(ENTRY_PAGES + "/"))
        ):
            allowed[f"added {role} on {PAGE} or an entry's page"] += 1
        else:
            problems.append(f"{role} {name}: {change} ({before} -> {after})")
    return problems, allowed


def doctest_summary(tree: Path) -> dict[str, int]:
    """The figures of ``-b doctest``'s output.txt: tests, and failures of each kind."""
    path = tree / "_build" / "doctest" / "output.txt"
    if not path.is_file():
        return {}
    text = path.read_text("utf-8")
    return {
        label: int(number)
        for number, label in re.findall(r"^\s*(\d+) (tests|failures in \w+(?: \w+)?)$", text, re.M)
    }


def verdicts(document: dict[str, Any]) -> Verdicts:
    """Each entry's status, and each of its examples' kind and status, in order."""
    return {
        entry["qualname"]: (
            entry["status"],
            tuple((example["kind"], example["status"]) for example in entry["examples"]),
        )
        for entry in document["entries"]
    }


def exported_verdicts(adopted: Verdicts, exported: Verdicts) -> list[str]:
    """Where the exported docstrings' verdicts break the adopted build's.

    A docstring keeps at most one bad and one good example of an entry (the site
    keeps the rest), so the example lists differ by design. Each entry keeps its
    status, but for an unreachable one: its evidence stays on the site, and its
    exported good example alone passes. Every exported example passes.
    """
    problems: list[str] = []
    for qualname in sorted(set(adopted) | set(exported)):
        if qualname not in exported or qualname not in adopted:
            problems.append(
                f"{qualname}: only in the {'adopted' if qualname in adopted else 'exported'} build"
            )
            continue
        (was, _), (now, examples) = adopted[qualname], exported[qualname]
        if now != was and (was, now) != ("unreachable", "passed"):
            problems.append(f"{qualname}: {was} adopted, {now} exported")
        kinds = Counter(kind for kind, _ in examples)
        if not examples or any(n > 1 for n in kinds.values()):
            problems.append(f"{qualname}: {_counted(kinds)} exported, not one bad and one good")
        problems += [
            f"{qualname}: its exported {kind} example {status}"
            for kind, status in examples
            if status != "passed"
        ]
    return problems


def example_sources(document: dict[str, Any]) -> Counter[str]:
    """How many examples were read from each kind of file (a docstring, a catalogue file)."""
    return Counter(
        "catalogue files" if ".txt:" in example["source"] else example["source"].split(":")[0]
        for entry in document["entries"]
        for example in entry["examples"]
    )


def released_errors(plain: Path) -> set[str]:
    """The errors Flax documents: its page's classes, else every class its errors link for.

    docs_nnx has no page of its errors as released; the errors whose messages link to
    it are then :mod:`flax.errors`' public exception classes.
    """
    if (plain / "_build" / "html" / PAGE).is_file():
        return anchors(_page(plain))
    from tools.flax_docs.landing import flax_errors

    return set(flax_errors())


def _by_page(tree: Path, builder: str, docs: str, inventory: Inventory) -> dict[str, Counter[str]]:
    found = page_warnings.warnings(warning_lines(tree, builder))
    return page_warnings.by_page(found, docs, page_warnings.object_pages(inventory))


def _errors_json(tree: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(
        (tree / "_build" / "html" / "errors.json").read_text("utf-8")
    )
    return document


def _page(tree: Path) -> str:
    return (tree / "_build" / "html" / PAGE).read_text("utf-8")


def _report(title: str, problems: Sequence[str], *, lines: bool = False) -> None:
    """Print a check's verdict and its problems; of warning lines, those that open one."""
    print(f"{title}: {'ok' if not problems else f'{len(problems)} problem(s)'}")
    shown = [p for p in problems if LEVEL.search(p)] if lines else problems
    for problem in shown:
        print(f"    {problem}")
    if len(shown) < len(problems):
        print(f"    (and {len(problems) - len(shown)} more lines of those warnings)")


def _counted(counts: Counter[str] | dict[str, int]) -> str:
    return ", ".join(f"{number} {label}" for label, number in sorted(counts.items())) or "none"


def adopted(plain: Path, patched: Path, docs: str = "docs") -> list[str]:
    """Checks (a) to (d) of the patched build against the released one; their problems."""
    before_inventory = read_inventory(plain / "_build" / "html" / "objects.inv")
    after_inventory = read_inventory(patched / "_build" / "html" / "objects.inv")
    problems = _warnings_by_page(plain, patched, docs, before_inventory, after_inventory)
    problems += _entries_at_anchors(plain, patched)
    # (c) the inventories
    broken, allowed = compare_inventories(before_inventory, after_inventory)
    print(
        f"(c) objects.inv: {len(before_inventory)} entries as released, "
        f"{len(after_inventory)} adopted; differences allowed: {_counted(allowed)}"
    )
    _report(f"    the same but for {MODULE} and labels on its page", broken)
    return problems + broken + _doctest_of_the_page(plain, patched)


def _warnings_by_page(
    plain: Path, patched: Path, docs: str, before: Inventory, after: Inventory
) -> list[str]:
    """(a) warnings added or hidden, paths aside, page by page, for html and doctest."""
    problems: list[str] = []
    rewritten = rewritten_pages((f for p in read_series(SERIES) for f in p.files), docs)
    released = _by_page(plain, "html", docs, before)
    adopted = _by_page(patched, "html", docs, after)
    for builder in ("html", "doctest"):
        if builder == "html":
            rows = page_warnings.compare(released, adopted, rewritten)
        else:
            # A page the extension reads again (one with an entry not passed) makes
            # Sphinx check the environment again, and repeat the html build's warnings
            # of it: those are the html build's, compared above, not the doctest's.
            rows = page_warnings.compare(
                page_warnings.beyond(_by_page(plain, builder, docs, before), released),
                page_warnings.beyond(_by_page(patched, builder, docs, after), adopted),
                rewritten,
            )
        new = [f"{row.page}: {w}" for row in rows for w in row.added]
        hidden = [f"{row.page}: {w}" for row in rows for w in row.hidden]
        print(f"(a) {builder} warnings by page (fixed: gone from a page the series rewrites)")
        for line in page_warnings.table(rows):
            print(f"    {line}")
        _report(f"    no {builder} warning added", new)
        _report(f"    no {builder} warning hidden", hidden)
        problems += new + hidden
    return problems


def _entries_at_anchors(plain: Path, patched: Path) -> list[str]:
    """(b) every error an entry, run and settled, at the anchor Flax prints."""
    document = _errors_json(patched)
    documented, page_ids = released_errors(plain), anchors(_page(patched))
    entries = [e for e in document["entries"] if e["qualname"].startswith(MODULE)]
    statuses = Counter(e["status"] for e in entries)
    examples = Counter(x["status"] for e in entries for x in e["examples"])
    print(
        f"(b) {len(documented)} classes on Flax's page; {len(entries)} entries "
        f"({_counted(statuses)}), {sum(e['executed'] for e in entries)} run in this build; "
        f"examples: {_counted(examples)}; links printed to {_counted(printed_links(document))}"
    )
    found = check_entries(document, documented, page_ids)
    _report("    every error an entry, settled, at its anchor", found)
    return found


def _doctest_of_the_page(plain: Path, patched: Path) -> list[str]:
    """(d) ``-b doctest`` of the page passes."""
    summary, as_released = doctest_summary(patched), doctest_summary(plain)
    failing = [f"{n} {label}" for label, n in summary.items() if label != "tests" and n]
    if "tests" not in summary:
        failing.append("no doctest summary in output.txt")
    print(
        f"(d) -b doctest of {PAGE}: {summary.get('tests', 0)} tests, {len(failing)} failing "
        f"(as released: {as_released.get('tests', 0)} tests)"
    )
    _report("    doctest passes", failing)
    return failing


def exported(patched: Path, export: Path, doctest_junit: Path | None = None) -> list[str]:
    """The export build's verdicts against the adopted build's; their differences.

    With ``doctest_junit``, also the outcomes of Flax's docstring doctests (``pytest
    --doctest-modules``) on the exported flax/errors.py: each must pass or be skipped.
    """
    before, after = _errors_json(patched), _errors_json(export)
    print(
        f"examples read from: {_counted(example_sources(before))} (adopted); "
        f"{_counted(example_sources(after))} (exported, catalogue files unread)"
    )
    problems = [
        f"{entry['qualname']}: an example read from {example['source']}"
        for entry in after["entries"]
        for example in entry["examples"]
        if ".txt:" in example["source"]
    ]
    old, new = verdicts(before), verdicts(after)
    problems += exported_verdicts(old, new)
    same = sum(old[q][0] == new[q][0] for q in old if q in new)
    print(
        f"verdicts: {same} of {len(old)} entries the same, with "
        f"{sum(len(v[1]) for v in new.values())} examples exported of "
        f"{sum(len(v[1]) for v in old.values())} "
        f"({_counted(Counter(v[0] for v in new.values()))})"
    )
    adopted_warnings, export_warnings = warnings_of(patched), warnings_of(export)
    new_warnings = added(adopted_warnings, export_warnings)
    print(
        f"html warnings: {count(adopted_warnings)} adopted, {count(export_warnings)} exported; "
        f"lines {len(new_warnings)} added, {len(added(export_warnings, adopted_warnings))} gone"
    )
    _report("    same verdicts, from the docstrings", problems)
    _report("    no html warning added", new_warnings, lines=True)
    problems += new_warnings
    if doctest_junit is not None:
        from tools.flax_suite.compare import read_junit, summary

        report = read_junit(doctest_junit)
        failing = [
            f"{test}: {result.outcome}"
            for test, result in sorted(report.items())
            if result.outcome not in ("passed", "skipped")
        ]
        print(f"Flax's docstring doctests of the exported flax/errors.py: {summary(report)}")
        _report("    each passes or is skipped", failing)
        problems += failing
    return problems


def main(argv: Iterable[str] | None = None) -> int:
    """Run the chosen checks; print figures and problems; 1 if there are any."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("mode", choices=("adopted", "exported"))
    parser.add_argument("before", type=Path, help="PLAIN for adopted, PATCHED for exported")
    parser.add_argument("after", type=Path, help="PATCHED for adopted, EXPORT for exported")
    parser.add_argument(
        "--docs", choices=("docs", "docs_nnx"), default="docs", help="adopted: the tree built"
    )
    parser.add_argument(
        "--doctest-junit",
        type=Path,
        help="exported: JUnit XML of pytest --doctest-modules on the exported flax/errors.py",
    )
    args = parser.parse_args(None if argv is None else list(argv))
    if args.mode == "adopted":
        problems = adopted(args.before, args.after, args.docs)
    else:
        problems = exported(args.before, args.after, args.doctest_junit)
    print(f"{args.mode}: {'FAILED, ' + str(len(problems)) + ' problem(s)' if problems else 'ok'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
