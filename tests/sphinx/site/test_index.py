"""The reader-facing site: landing figures, the error index, entries, search data and links.

Sphinx builds run the test root ``tests/roots/test-site`` (two error modules, an
index page and a landing page); the pure helpers behind them are tested directly.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from docutils import nodes
from sphinx.testing.util import SphinxTestApp

from flax_errors_ext.execution.catalogue.modules import load_module
from flax_errors_ext.model.catalogue.records import (
    Example,
    ExampleKind,
    ExampleResult,
    Location,
    Verdict,
)
from flax_errors_ext.model.lookup.wordings import Wording
from flax_errors_ext.model.runs.entry_record import EntryRecord
from flax_errors_ext.model.runs.judge import judge
from flax_errors_ext.model.runs.tracebacks import exception_lines, is_internal, trim_traceback
from flax_errors_ext.model.site import areas
from flax_errors_ext.model.site.texts import (
    badge,
    figures,
    inline_parts,
    plain_text,
    search_entries,
)
from flax_errors_ext.sphinx.catalogue.examples import entry_examples, full_tracebacks, transcript
from flax_errors_ext.sphinx.lookup.search import DATA_FILE
from tests.site_links import check_site
from tests.utils import run_in_process

MakeApp = Callable[..., SphinxTestApp]
SCRIPT = "<script>alert(1)</script>"
ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;"


def html(app: SphinxTestApp, page: str) -> str:
    return (Path(app.outdir) / page).read_text()


def search_data(app: SphinxTestApp) -> list[dict[str, Any]]:
    text = (Path(app.outdir) / "_static" / DATA_FILE).read_text()
    prefix = "window.FLAX_ERRORS_SEARCH = "
    assert text.startswith(prefix)
    data: list[dict[str, Any]] = json.loads(text[len(prefix) :].rstrip().rstrip(";"))
    return data


def _index_rows(page: str) -> list[tuple[str, str]]:
    """(link, badge) of every row of the error index."""
    return re.findall(
        r'<tr[^>]*>\s*<td[^>]*><p><a class="reference internal" href="([^"]+)">.*?'
        r'<span class="[^"]*\bsd-badge [^"]*"[^>]*>([^<]+)</span>',
        page,
        flags=re.DOTALL,
    )


@pytest.mark.sphinx("html", testroot="site")
def test_landing_page_counts_every_entry_and_says_where_it_was_verified(
    app: SphinxTestApp,
) -> None:
    app.build()
    assert app.statuscode == 0

    page = html(app, "index.html")
    assert "<strong>3</strong> errors catalogued" in page
    assert ">2 verified</span>" in page
    assert ">1 undocumented</span>" in page
    assert re.search(r"Last verified \d{4}-\d\d-\d\d \d\d:\d\d UTC on CPU, with jax ", page)


@pytest.mark.sphinx("html", testroot="site")
def test_index_lists_every_entry_with_its_status_and_link(app: SphinxTestApp) -> None:
    app.build()

    page = html(app, "errors.html")
    assert _index_rows(page) == [
        ("api_reference/site_a_errors.html#site_a_errors.BareError", "undocumented"),
        ("api_reference/site_a_errors.html#site_a_errors.LeakyError", "verified"),
        ("api_reference/site_b_errors.html#site_b_errors.CalmError", "verified"),
    ]
    # Another library's errors show up under their module's name.
    assert 'id="area-site-a-errors"' in page
    assert 'id="area-site-b-errors"' in page
    # The one-line summary, with its inline literal as code.
    assert "Raised for <code" in page


@pytest.mark.sphinx("html", testroot="site")
def test_error_text_is_in_sphinx_search_index_and_search_data(app: SphinxTestApp) -> None:
    app.build()
    text = html(app, "searchindex.js")
    index = json.loads(text[text.index("(") + 1 : text.rindex(")")])
    page = index["docnames"].index("api_reference/site_a_errors")
    # A word that occurs only in the error's message: literal blocks are indexed.
    found = index["terms"]["forest"]
    assert page in (found if isinstance(found, list) else [found])
    leaky = next(item for item in search_data(app) if item["name"] == "LeakyError")
    assert leaky["docname"] == "api_reference/site_a_errors"
    assert leaky["messages"][0].startswith("site_a_errors.LeakyError: leaf 1 leaked")


@pytest.mark.sphinx("html", testroot="site")
def test_error_text_is_escaped_on_index_landing_and_entries(app: SphinxTestApp) -> None:
    app.build()

    for name in ("index.html", "errors.html", "api_reference/site_a_errors.html", "search.html"):
        assert SCRIPT not in html(app, name), name
    assert ESCAPED in html(app, "errors.html")
    entry = html(app, "api_reference/site_a_errors.html")
    assert entry.count(ESCAPED) >= 3  # headline, short output and full traceback
    # The search data carries the text as JSON data, which the page never parses as HTML.
    leaky = next(item for item in search_data(app) if item["name"] == "LeakyError")
    assert any(SCRIPT in message for message in leaky["messages"])


@pytest.mark.sphinx("html", testroot="site")
def test_entry_shows_both_examples_open_trimmed_output_and_the_full_traceback(
    app: SphinxTestApp,
) -> None:
    app.build()
    page = html(app, "api_reference/site_a_errors.html")
    entry = page[
        page.index('id="site_a_errors.LeakyError"') : page.index('id="site_a_errors.BareError"')
    ]

    # The wrong code and the fixed code one after the other, open: no tabs to click.
    headings = re.findall(r'<p class="flax-errors-heading[^"]*">(.*?)</p>', entry)
    assert headings == ["What raises it", "The fix"]
    assert "sd-tab" not in entry
    assert entry.index('class="flax-errors-shown bad') < entry.index(
        'class="flax-errors-shown good'
    )
    # Verified, and where: a check mark instead of a badge, the device and versions.
    assert re.search(
        r"✓</span> Verified on CPU · flax [\d.]+ · jax [\d.]+ · jaxlib [\d.]+</p>", entry
    )
    assert "sd-badge" not in entry
    # Its good example has no caption: no fix line.
    assert "flax-errors-fix" not in entry
    short, _, full = entry.partition("Full traceback")
    assert full, "no dropdown with the full traceback"
    # The short view keeps the reader's frames and the exception, not JAX's internals.
    assert "&lt;doctest site_a_errors.LeakyError[2]&gt;" in short
    assert "tree_util.py" not in short
    assert "doctest.py" not in short
    assert "site_a_errors.LeakyError</span>" in short
    # The dropdown holds every frame but the doctest runner's, each file in its root.
    # JAX's frames link to their line at the installed jax's tag; the reader's do not.
    assert re.search(
        r'<a class="reference external" href="https://github\.com/jax-ml/jax/blob/jax-v[\d.]+'
        r'/jax/_src/tree_util\.py#L\d+">File <span class="nb">&quot;jax/_src/tree_util\.py&quot;',
        full,
    )
    assert '  File <span class="nb">&quot;&lt;doctest site_a_errors.LeakyError[2]&gt;' in full
    assert '">File <span class="nb">&quot;&lt;doctest' not in full
    assert "doctest.py" not in full
    assert "<details" in entry
    assert "Checked: raises exactly this error, with the documented text." in entry
    # The headline is not repeated as the explanation's first paragraph.
    assert entry.count("that leak") == 1
    # An entry without examples keeps its badge.
    bare = page[page.index('id="site_a_errors.BareError"') :]
    assert re.search(r">undocumented</span> No examples yet · flax ", bare)


@pytest.mark.sphinx("html", testroot="site")
def test_no_folder_of_the_build_machine_is_published(app: SphinxTestApp) -> None:
    app.build()
    out = Path(app.outdir)
    published = [
        *out.rglob("*.html"),
        out / "errors.json",
        out / "searchindex.js",
        out / "_static" / DATA_FILE,
    ]
    folders = {
        "the build's folder": Path(app.srcdir),
        "the virtual environment": Path(sys.prefix),
        "the home folder": Path.home(),
        "the repository": Path(__file__).parents[3],
    }
    names = {f"{path}/": what for what, path in folders.items()}
    names |= {f"{path.resolve()}/": what for what, path in folders.items()}
    found = [
        f"{file.relative_to(out)}: {what} ({name})"
        for file in published
        for name, what in names.items()
        if name in file.read_text(encoding="utf-8")
    ]
    assert found == []
    # What is shown instead: library files inside their import root.
    sources = {
        e["name"]: e["source"] for e in json.loads((out / "errors.json").read_text())["entries"]
    }
    assert sources["LeakyError"] == "site_a_errors.py:7"
    assert "&quot;jax/_src/tree_util.py&quot;" in html(app, "api_reference/site_a_errors.html")


@pytest.mark.sphinx("html", testroot="site", srcdir="site_see_also")
def test_see_also_links_go_both_ways(app: SphinxTestApp, monkeypatch: pytest.MonkeyPatch) -> None:
    leaky, calm = "site_a_errors.LeakyError", "site_b_errors.CalmError"
    monkeypatch.setattr(areas, "RELATED", {leaky: (calm,), calm: (leaky,)})
    app.build()

    page_a = html(app, "api_reference/site_a_errors.html")
    page_b = html(app, "api_reference/site_b_errors.html")
    assert f'href="site_b_errors.html#{calm}"' in page_a
    assert f'href="site_a_errors.html#{leaky}"' in page_b
    assert page_a.count("See also:") == 1  # BareError relates to nothing: no line


@pytest.mark.sphinx("html", testroot="site", srcdir="site_parallel", parallel=2)
def test_parallel_build_index_is_complete(app: SphinxTestApp) -> None:
    app.build()
    assert len(_index_rows(html(app, "errors.html"))) == 3
    assert "<strong>3</strong> errors catalogued" in html(app, "index.html")


@pytest.mark.sphinx("html", testroot="site", srcdir="site_edited")
def test_index_follows_the_catalogue_without_being_edited(
    app: SphinxTestApp, make_app: MakeApp
) -> None:
    app.build()
    module = Path(app.srcdir) / "site_b_errors.py"
    module.write_text(module.read_text().replace('("calm was lost")', '("calm is gone")'))

    again = make_app("html", srcdir=app.srcdir)
    again.build()

    assert again.statuscode == 1  # the drift fails the build, and the index says so
    rows = dict(_index_rows(html(again, "errors.html")))
    assert rows["api_reference/site_b_errors.html#site_b_errors.CalmError"] == "drifted"
    assert ">1 drifted</span>" in html(again, "index.html")
    # The entry says so too, where the reader lands, and marks the example that failed.
    calm = html(again, "api_reference/site_b_errors.html")
    assert ">drifted</span> An example no longer does what is documented (run on CPU)" in calm
    assert '<p class="flax-errors-heading flax-errors-failed rubric">What raises it</p>' in calm
    assert '<p class="flax-errors-heading rubric">The fix</p>' in calm
    assert "drifted: site_b_errors.CalmError was raised" in calm
    assert "calm is gone" in calm  # the diff


@pytest.mark.sphinx("html", testroot="site")
def test_every_local_link_and_anchor_resolves(app: SphinxTestApp) -> None:
    app.build()
    report = check_site(Path(app.outdir))
    assert report.checked > 50
    assert report.broken == []


def test_link_check_reports_missing_pages_and_anchors(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text(
        '<a id="top" href="#top">ok</a> <a href="other.html#nowhere">bad anchor</a>'
        ' <a href="missing.html">bad page</a> <a href="https://example.org/">external</a>'
    )
    (tmp_path / "other.html").write_text('<section id="here"></section>')
    report = check_site(tmp_path)
    assert [link.target for link in report.broken] == ["other.html#nowhere", "missing.html"]
    assert [link.target for link in report.external] == ["https://example.org/"]


# The examples' layout, from verdicts alone.


def _result(kind: ExampleKind, caption: str, verdict: Verdict = Verdict.PASSED) -> ExampleResult:
    example = Example(kind, (), caption, Location("m.py", 10))
    return ExampleResult(example, verdict, "", "", (), 0.0)


def _paragraphs(text: str, path: str, lines: Sequence[int]) -> list[nodes.Node]:
    return [nodes.paragraph(text, text)] if text.strip() else []


def _headings(found: list[nodes.Node]) -> list[tuple[str, bool]]:
    """(heading, marked failed) of each example shown open, then of each tab."""
    return [
        (rubric.astext(), "flax-errors-failed" in rubric["classes"])
        for node in found
        for rubric in node.findall(nodes.rubric)
    ]


def test_first_bad_and_good_examples_are_open_and_the_others_tabs() -> None:
    kinds = (ExampleKind.BAD, ExampleKind.GOOD, ExampleKind.BAD, ExampleKind.GOOD)
    results = [_result(kind, f"Caption {n}.") for n, kind in enumerate(kinds)]
    results[2] = _result(ExampleKind.BAD, "Caption 2.", Verdict.DRIFTED)
    results.append(_result(ExampleKind.UPSTREAM, "Theirs."))

    shown, other, tabs = _layout(results, fix_shown=True)

    assert _headings(shown) == [("What raises it", False), ("The fix", False)]
    assert "Caption 0." in shown[0].astext()
    # The fix's caption is the entry's fix line already.
    assert "Caption 1." not in shown[1].astext()
    assert other == []
    assert _headings(tabs) == [
        ("Bad example 2", True),
        ("Good example 2", False),
        ("The library's own examples", False),
    ]
    assert "Caption 3." in tabs[1].astext()  # a good example in a tab keeps its caption


def test_a_failed_example_shown_open_is_marked_failed() -> None:
    results = [
        _result(ExampleKind.BAD, "", Verdict.NO_RAISE),
        _result(ExampleKind.GOOD, "Caption."),
    ]
    shown, _, tabs = _layout(results, fix_shown=False)
    assert _headings(shown) == [("What raises it", True), ("The fix", False)]
    assert "Caption." in shown[1].astext()
    assert "no-raise" in shown[0].astext()  # the verdict line
    assert tabs == []


@pytest.mark.parametrize(
    ("kinds", "headings", "tabs"),
    [
        # The evidence is folded away; what to do is open.
        ((ExampleKind.UNREACHABLE,), [], []),
        ((ExampleKind.UNREACHABLE, ExampleKind.GOOD), ["Good example"], []),
        ((ExampleKind.UPSTREAM,), [], ["The library's own examples"]),
    ],
)
def test_entries_that_cannot_be_raised_fold_their_evidence(
    kinds: tuple[ExampleKind, ...], headings: list[str], tabs: list[str]
) -> None:
    results = [_result(kind, "Caption.") for kind in kinds]
    shown, other, in_tabs = _layout(results, fix_shown=False)
    assert [heading for heading, _ in _headings(shown)] == headings
    assert [heading for heading, _ in _headings(in_tabs)] == tabs
    folded = [
        node
        for node in other
        if isinstance(node, nodes.Element)
        and "flax-errors-evidence" in node.get("container_classes", [])
    ]
    assert len(folded) == (ExampleKind.UNREACHABLE in kinds)
    for dropdown in folded:
        assert dropdown.astext().startswith("How we know it cannot be raised")


def test_failing_evidence_says_so_on_its_dropdown() -> None:
    results = [_result(ExampleKind.UNREACHABLE, "Caption.", Verdict.DRIFTED)]
    _, (folded,), _ = _layout(results, fix_shown=False)
    assert folded.astext().startswith("How we know it cannot be raised: the evidence drifted")


def _classes(node: nodes.Node) -> list[str]:
    return list(node["classes"]) if isinstance(node, nodes.Element) else []


def _layout(
    results: list[ExampleResult], *, fix_shown: bool
) -> tuple[list[nodes.Node], list[nodes.Node], list[nodes.Node]]:
    """The examples shown open, anything else outside the tabs, and the tabs."""
    found = entry_examples(results, _paragraphs, captions_shown=fix_shown)
    shown = [node for node in found if "flax-errors-shown" in _classes(node)]
    tab_sets = [node for node in found if "flax-errors-examples" in _classes(node)]
    assert len(tab_sets) <= 1
    tabs = list(tab_sets[0].children) if tab_sets else []
    other = [node for node in found if node not in shown and node not in tab_sets]
    return shown, other, tabs


# The pure helpers.

_FULL = """\
Traceback (most recent call last):
  File "/usr/lib/python3.11/doctest.py", line 1353, in __run
    exec(compile(example.source, filename, "single",
  File "<doctest m.E[3]>", line 1, in <module>
    MLP().apply(variables, batch)
  File "/venv/lib/python3.11/site-packages/flax/linen/module.py", line 9, in apply
    return fn()
           ^^^^
  File "/home/me/project/model.py", line 4, in __call__
    x = layer(x)
flax.errors.ScopeParamShapeError: For parameter "kernel" ... (https://x)
  - a continuation line of the message
--------------------
For simplicity, JAX has removed its internal frames from the traceback of the following \
exception. Set JAX_TRACEBACK_FILTERING=off to include these.
"""


def test_trimmed_traceback_keeps_the_readers_frames_and_the_exception() -> None:
    assert trim_traceback(_FULL) == (
        "Traceback (most recent call last):\n"
        '  File "<doctest m.E[3]>", line 1, in <module>\n'
        "    MLP().apply(variables, batch)\n"
        '  File "/home/me/project/model.py", line 4, in __call__\n'
        "    x = layer(x)\n"
        'flax.errors.ScopeParamShapeError: For parameter "kernel" ... (https://x)\n'
        "  - a continuation line of the message\n"
    )
    assert exception_lines(_FULL) == (
        'flax.errors.ScopeParamShapeError: For parameter "kernel" ... (https://x)\n'
        "  - a continuation line of the message"
    )
    assert trim_traceback("(16, 2)\n") == "(16, 2)\n"


@pytest.mark.parametrize(
    ("path", "internal"),
    [
        ("<doctest m.E[0]>", False),
        ("/usr/lib/python3.11/doctest.py", True),
        ("C:\\Python311\\Lib\\site-packages\\jax\\api.py", True),
        ("/usr/lib/python3/dist-packages/numpy/core.py", True),
        ("/home/me/project/model.py", False),
    ],
)
def test_library_frames_are_told_from_the_readers(path: str, internal: bool) -> None:
    assert is_internal(path) is internal


def test_this_packages_own_frames_are_library_frames() -> None:
    hook = str(Path(areas.__file__).parents[2] / "jit_hook.py")
    assert trim_traceback(
        f'Traceback (most recent call last):\n  File "{hook}", line 1\nE: x\n'
    ) == ("Traceback (most recent call last):\nE: x\n")


def test_jit_pytree_errors_short_view_hides_the_hook_and_the_full_one_names_it() -> None:
    entry = next(e for e in OWN_ENTRIES if e.name == "JitPytreeError")
    bad = next(e for e in entry.examples if e.kind is ExampleKind.BAD)
    result = judge(bad, tuple(run_in_process(entry, bad)))
    assert result.verdict is Verdict.PASSED, result.diff

    short = transcript(result)
    (full,) = full_tracebacks(result)

    assert "jit_hook.py" not in short
    assert f"<doctest {entry.qualname}[" in short
    assert 'File "flax_errors_ext/jit_hook.py", line ' in full
    assert "doctest.py" not in full


FLAX_ENTRIES = load_module("flax.errors").entries
OWN_ENTRIES = load_module("flax_errors_ext.errors").entries
CATALOGUED = {entry.qualname for entry in FLAX_ENTRIES + OWN_ENTRIES}


@pytest.mark.parametrize("qualname", sorted(CATALOGUED))
def test_every_catalogued_error_has_an_area(qualname: str) -> None:
    # A new Flax error lands under "Other" on the site; this asks for a real area.
    assert areas.area_of(qualname) != areas.OTHER


def test_unknown_errors_are_listed_under_other() -> None:
    assert areas.area_of("flax.errors.ErrorFromTheFuture") == areas.OTHER
    assert areas.AREA_ORDER[-1] == areas.OTHER
    assert set(areas.AREAS.values()) < set(areas.AREA_ORDER)


def test_related_errors_exist_and_link_both_ways() -> None:
    named = set(areas.RELATED) | {n for others in areas.RELATED.values() for n in others}
    assert named <= CATALOGUED
    assert set(areas.AREAS) <= CATALOGUED
    for name, others in areas.RELATED.items():
        assert name not in others
        for other in others:
            assert name in areas.RELATED[other]


def test_badges_say_what_readers_need() -> None:
    labels = {status: badge(status).label for status in ("passed", "failed", "unreachable")}
    assert labels == {"passed": "verified", "failed": "drifted", "unreachable": "unreachable"}
    assert badge("undocumented").label == "undocumented"
    assert badge("something-new").label == "something-new"


def _record(name: str, status: str, **extra: Any) -> EntryRecord:
    data = {
        "name": name,
        "qualname": f"m.{name}",
        "url": f"api_reference/m.html#m.{name}",
        "source": "m.py:1",
        "summary": f"{name} summary.",
        "status": status,
        "executed": False,
        "device": {"platform": "gpu", "device_kind": "NVIDIA H200", "count": 1},
        "versions": {"jax": "1", "jaxlib": "1", "flax": "2"},
        "examples": [],
        **extra,
    }
    return EntryRecord.from_json(data)


def _example(kind: str, expected: str, actual: str) -> dict[str, Any]:
    return {
        "kind": kind,
        "source": "m.py:2",
        "status": "passed",
        "expected": expected,
        "actual": actual,
        "seconds": 0.0,
        "detail": "",
        "diff": "",
    }


def test_figures_count_statuses_and_name_the_device() -> None:
    shown = figures([_record("A", "passed"), _record("B", "passed"), _record("C", "failed")])
    assert shown.entries == 3
    assert shown.statuses == (("passed", 2), ("failed", 1))
    assert shown.device == "GPU (NVIDIA H200)"
    assert shown.versions == "jax 1, jaxlib 1, flax 2"
    assert not figures([_record("A", "not-run", device={})]).executed


def test_search_entries_hold_the_messages_of_bad_examples() -> None:
    note = "\n--------------------\nFor simplicity, JAX has removed its internal frames. Set X."
    record = _record(
        "A",
        "passed",
        summary="Uses ``apply``.",
        examples=[
            _example("bad", "m.A: documented (...)\n", "m.A: real" + note),
            _example("good", "(1, 2)\n", "(1, 2)\n"),
        ],
    )
    (item,) = search_entries([record], roots=())
    assert item["messages"] == ["m.A: documented (...)", "m.A: real"]
    assert item["seen_as"] == []
    assert item["older"] == []
    assert item["headline"] == "Uses apply."
    assert item["url"] == "api_reference/m.html#m.A"


def test_search_entries_tell_other_errors_and_old_wordings_apart() -> None:
    seen_as = dict(
        _example("seen-as", "TypeError: not a valid JAX type\n", "TypeError: not valid\n"),
        caption="Without ``install()``, JAX's own error.",
    )
    record = _record(
        "A", "passed", examples=[_example("bad", "m.A: today\n", "m.A: today\n"), seen_as]
    )
    wordings = [
        Wording("m.A", "m.A: the old words", "0.4.2-0.6.11"),
        Wording("m.A", "m.A: today", "0.7.5-0.12.8", current=True),
        Wording("m.B", "m.B: another entry's", "0.4.2"),
    ]

    (item,) = search_entries([record], roots=(), wordings=wordings)

    assert item["messages"] == ["m.A: today"]
    assert item["seen_as"] == [
        {"text": "TypeError: not a valid JAX type", "note": "Without install(), JAX's own error."},
        {"text": "TypeError: not valid", "note": "Without install(), JAX's own error."},
    ]
    # Today's wording is a message already; only the releases' older ones are added.
    assert item["older"] == [{"text": "m.A: the old words", "versions": "0.4.2-0.6.11"}]


def test_inline_markup_becomes_code_and_nothing_else() -> None:
    assert inline_parts(
        "Use ``jax.jit`` or :meth:`Module.apply() <flax.linen.Module.apply>`."
    ) == [
        ("Use ", False),
        ("jax.jit", True),
        (" or ", False),
        ("Module.apply()", True),
        (".", False),
    ]
    assert plain_text("*not* <b>bold</b>") == "*not* <b>bold</b>"
