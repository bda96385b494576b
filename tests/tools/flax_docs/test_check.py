"""The checks of ``nox -s flax_docs`` (tools/flax_docs/check.py), on trees made here.

Each tree is what the session leaves of one build of Flax's docs: the errors page,
errors.json, objects.inv, the warnings and the doctest summary. No Sphinx build runs
and no kernel starts; objects.inv is read with the installed Sphinx's own reader.
"""

from __future__ import annotations

import json
import sysconfig
import zlib
from typing import TYPE_CHECKING, Any

import pytest

from tools.flax_docs import check

if TYPE_CHECKING:
    from pathlib import Path

PAGE = check.PAGE
SITE = check.FLAX_SITE
NAMES = ("AlreadyExistsError", "ScopeParamShapeError")


def example(kind: str, status: str, source: str, actual: str = "") -> dict[str, Any]:
    return {"kind": kind, "status": status, "source": source, "actual": actual}


def entry(name: str, status: str = "passed", source: str = "catalogue") -> dict[str, Any]:
    qualname = f"flax.errors.{name}"
    where = (
        f"flax_errors_ext/catalogue/flax.errors/{name}.txt:3"
        if source == "catalogue"
        else "flax/errors.py:40"
    )
    printed = f"flax.errors.{name}: oops. ({SITE}{PAGE}#{qualname})\n"
    return {
        "qualname": qualname,
        "url": f"{PAGE}#{qualname}",
        "status": status,
        "executed": True,
        "examples": [example("bad", "passed", where, printed), example("good", "passed", where)],
    }


def inventory_file(items: list[tuple[str, str, str, str]]) -> bytes:
    """An objects.inv (version 2) of ``(name, role, location, display name)`` items."""
    header = b"# Sphinx inventory version 2\n# Project: Flax\n# Version: \n"
    header += b"# The remainder of this file is compressed using zlib.\n"
    lines = "".join(f"{name} {role} 1 {uri} {display}\n" for name, role, uri, display in items)
    return header + zlib.compress(lines.encode())


BASE_INVENTORY = [
    ("flax.linen.Dense", "py:class", "api_reference/flax.linen/layers.html#$", "-"),
    ("flax.errors", "py:module", f"{PAGE}#module-$", "-"),
    *((f"flax.errors.{n}", "py:exception", f"{PAGE}#$", "-") for n in NAMES),
]


def make_tree(
    root: Path,
    *,
    warnings: str = "",
    entries: list[dict[str, Any]] | None = None,
    anchors: tuple[str, ...] = NAMES,
    inventory: list[tuple[str, str, str, str]] | None = None,
    doctest_failures: int = 0,
) -> Path:
    html = root / "_build" / "html"
    (html / "api_reference").mkdir(parents=True)
    (root / "warnings-html.txt").write_text(warnings)
    (root / "warnings-doctest.txt").write_text("")
    ids = "".join(f'<section id="flax.errors.{name}"></section>' for name in anchors)
    (html / PAGE).write_text(f'<html><section id="flax-errors-package">{ids}</section></html>')
    document = {"entries": [entry(n) for n in NAMES] if entries is None else entries}
    (html / "errors.json").write_text(json.dumps(document))
    (html / "objects.inv").write_bytes(
        inventory_file(BASE_INVENTORY if inventory is None else inventory)
    )
    doctest = root / "_build" / "doctest"
    doctest.mkdir()
    (doctest / "output.txt").write_text(
        "Doctest summary\n===============\n    2 tests\n"
        f"    {doctest_failures} failures in tests\n    0 failures in setup code\n"
        "    0 failures in cleanup code\n"
    )
    return root


@pytest.fixture
def plain(tmp_path: Path) -> Path:
    warning = f"{tmp_path}/plain/docs/index.rst:4: WARNING: x\n"
    return make_tree(tmp_path / "plain", warnings=warning)


def test_warnings_are_compared_without_their_trees_and_flaxs_folder(tmp_path: Path) -> None:
    installed = f"{sysconfig.get_paths()['purelib']}/flax/linen/module.py"
    one = make_tree(tmp_path / "one", warnings=f"{installed}:docstring of f:1: WARNING: a\n")
    other = tmp_path / "other"
    text = f"{other}/flax/linen/module.py:docstring of f:1: WARNING: a\n\n{other}/x.rst: y\n"
    make_tree(other, warnings=text)
    before, after = check.warnings_of(one), check.warnings_of(other)
    assert check.added(before, after) == ["<tree>/x.rst: y"]
    assert check.count(after) == 1


def test_the_adopted_build_passes_when_it_adds_only_labels_on_the_page(
    plain: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inventory = [*BASE_INVENTORY, ("scopes", "std:label", f"{PAGE}#group-scopes", "Scopes")]
    warning = f"{tmp_path}/patched/docs/index.rst:4: WARNING: x\n"
    patched = make_tree(tmp_path / "patched", warnings=warning, inventory=inventory)
    assert check.main(["adopted", str(plain), str(patched)]) == 0
    out = capsys.readouterr().out
    assert "2 entries (2 passed), 2 run in this build" in out
    assert (
        "differences allowed: 1 added std:label on api_reference/flax.errors.html "
        "or an entry's page" in out
    )
    assert out.rstrip().endswith("adopted: ok")


def test_each_broken_promise_of_the_adopted_build_is_named(
    plain: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    failed, unrun = entry(NAMES[0], status="failed"), entry(NAMES[1])
    unrun["executed"] = False
    unrun["examples"][0]["actual"] += f"see {SITE}{PAGE}#flax.errors.Gone\n"
    inventory = [item for item in BASE_INVENTORY if item[1] != "py:class"]
    patched = make_tree(
        tmp_path / "patched",
        warnings=f"{tmp_path}/patched/docs/index.rst:4: WARNING: x\nWARNING: new one\n",
        entries=[failed, unrun],
        anchors=NAMES[1:],
        inventory=inventory,
        doctest_failures=1,
    )
    assert check.main(["adopted", str(plain), str(patched)]) == 1
    out = capsys.readouterr().out
    for problem in (
        "    (no page): WARNING: new one",
        "flax.errors.AlreadyExistsError: failed, not passed or unreachable",
        f"flax.errors.AlreadyExistsError: not at {PAGE}#flax.errors.AlreadyExistsError and its "
        "own page",
        "flax.errors.ScopeParamShapeError: not run in this build",
        f"prints {PAGE}#flax.errors.Gone, no such anchor",
        "py:class flax.linen.Dense: removed",
        "1 failures in tests",
    ):
        assert problem in out
    assert "adopted: FAILED, 8 problem(s)" in out


def test_a_warning_gone_from_a_page_the_series_keeps_is_hidden(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    errors = "<flax>/errors.py:docstring of flax.errors.AlreadyExistsError:3: WARNING: e\n"
    kept = "docs/api_reference/flax.linen/layers.rst:7: WARNING: k\n"
    released = make_tree(
        tmp_path / "plain", warnings=f"{tmp_path}/plain/{kept}".replace("<flax>", "") + errors
    )
    # The errors page is rewritten by the series: its docstrings' warning is fixed.
    patched = make_tree(tmp_path / "patched", warnings="")
    assert check.main(["adopted", str(released), str(patched)]) == 1
    out = capsys.readouterr().out
    assert "no html warning hidden: 1 problem(s)" in out
    assert "    api_reference/flax.linen/layers: <tree>/docs/api_reference/flax.linen/" in out
    table = out[out.index("page ") : out.index("no html warning added")]
    assert "api_reference/flax.errors" in table
    assert table.split("(all 2 pages)")[1].split()[:5] == ["2", "0", "0", "1", "1"]


def test_an_entry_on_its_own_page_passes_where_its_anchor_is_on_flaxs_page() -> None:
    qualname = f"flax.errors.{NAMES[0]}"
    on_its_page = entry(NAMES[0])
    on_its_page["url"] = f"api_reference/flax.errors/{NAMES[0]}.html#{qualname}"
    document = {"entries": [on_its_page]}

    assert check.check_entries(document, {qualname}, {qualname}) == []
    # The printed anchor must still be on Flax's page, where the printed URL lands.
    assert (
        f"{qualname}: not at {PAGE}#{qualname} and its own page (its url: {on_its_page['url']})"
        in check.check_entries(document, {qualname}, set())
    )
    elsewhere = {**on_its_page, "url": f"api_reference/other/{NAMES[0]}.html#{qualname}"}
    assert check.check_entries({"entries": [elsewhere]}, {qualname}, {qualname}) != []


def test_inventory_changes_of_the_module_are_allowed_and_counted() -> None:
    before = {("py:module", "flax.errors"): (f"{PAGE}#module-flax.errors", "-")}
    after = {("py:class", "flax.errors.New"): (f"{PAGE}#flax.errors.New", "-")}
    problems, allowed = check.compare_inventories(before, after)
    assert problems == []
    assert allowed == {
        "removed py:module of flax.errors": 1,
        "added py:class of flax.errors": 1,
    }
    elsewhere = {("std:label", "intro"): ("index.html#intro", "Intro")}
    assert check.compare_inventories({}, elsewhere)[0] == [
        "std:label intro: added (None -> ('index.html#intro', 'Intro'))"
    ]


def test_the_export_build_must_read_every_example_from_flaxs_docstrings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    patched = make_tree(tmp_path / "patched")
    docstrings = [entry(n, source="docstring") for n in NAMES]
    export = make_tree(tmp_path / "export", entries=docstrings)
    assert check.main(["exported", str(patched), str(export)]) == 0
    assert "4 flax/errors.py (exported, catalogue files unread)" in capsys.readouterr().out

    again = make_tree(tmp_path / "again", entries=[entry(n) for n in NAMES])
    assert check.main(["exported", str(patched), str(again)]) == 1
    assert "an example read from flax_errors_ext/catalogue" in capsys.readouterr().out


def test_a_verdict_that_differs_in_the_export_build_fails_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    patched = make_tree(tmp_path / "patched")
    docstrings = [entry(n, source="docstring") for n in NAMES]
    docstrings[1]["status"] = "failed"
    docstrings[1]["examples"][0]["status"] = "drifted"
    export = make_tree(tmp_path / "export", entries=docstrings)
    junit = tmp_path / "doctest.xml"
    junit.write_text(
        '<testsuites><testsuite name="pytest">'
        '<testcase classname="flax.errors" name="flax.errors.AlreadyExistsError"/>'
        '<testcase classname="flax.errors" name="flax.errors.ScopeParamShapeError">'
        '<failure message="drifted">Expected: x Got: y</failure></testcase>'
        "</testsuite></testsuites>"
    )
    args = ["exported", str(patched), str(export), "--doctest-junit", str(junit)]
    assert check.main(args) == 1
    out = capsys.readouterr().out
    assert "verdicts: 1 of 2 entries the same" in out
    assert "flax.errors.ScopeParamShapeError: passed adopted, failed exported" in out
    assert "flax.errors.ScopeParamShapeError: its exported bad example drifted" in out
    assert "2 tests: 1 failed, 1 passed" in out
    assert "flax.errors::flax.errors.ScopeParamShapeError: failed" in out


def test_an_exported_entry_keeps_its_status_with_one_bad_and_one_good_example() -> None:
    many = ("passed", (("bad", "passed"), ("bad", "passed"), ("good", "passed")))
    one_each = ("passed", (("bad", "passed"), ("good", "passed")))
    assert check.exported_verdicts({"flax.errors.A": many}, {"flax.errors.A": one_each}) == []
    # Unreachable on the site (its evidence stays there): its good example alone passes.
    unreachable = ("unreachable", (("good", "passed"), ("unreachable", "passed")))
    good_only = ("passed", (("good", "passed"),))
    assert (
        check.exported_verdicts({"flax.errors.U": unreachable}, {"flax.errors.U": good_only}) == []
    )
    # But a passed entry may not turn unreachable, nor keep two bad examples, nor lose one.
    assert check.exported_verdicts(
        {"flax.errors.A": one_each}, {"flax.errors.A": unreachable}
    ) == ["flax.errors.A: passed adopted, unreachable exported"]
    assert check.exported_verdicts({"flax.errors.A": many}, {"flax.errors.A": many}) == [
        "flax.errors.A: 2 bad, 1 good exported, not one bad and one good"
    ]
    assert check.exported_verdicts({"flax.errors.A": many}, {}) == [
        "flax.errors.A: only in the adopted build"
    ]
