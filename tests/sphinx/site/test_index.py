"""The reader-facing site: landing figures, the error index, entries, search data and links.

Sphinx builds run the test root ``tests/roots/test-site`` (two error modules, an
index page and a landing page); the pure helpers behind them are tested directly.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sphinx.testing.util import SphinxTestApp

from flax_errors_ext.ext.search.sphinx.search_page import DATA_FILE
from tools.site_links import check_site

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
    assert re.search(
        r"Last verified \d{4}-\d\d-\d\d \d\d:\d\d UTC on CPU, with flax [\d.]+, jax [\d.]+, "
        r"jaxlib [\d.]+\.",
        page,
    )


@pytest.mark.sphinx("html", testroot="site")
def test_index_lists_every_entry_with_its_status_and_link(app: SphinxTestApp) -> None:
    app.build()

    page = html(app, "errors.html")
    assert _index_rows(page) == [
        ("api_reference/site_a_errors/BareError.html#site_a_errors.BareError", "undocumented"),
        ("api_reference/site_a_errors/LeakyError.html#site_a_errors.LeakyError", "verified"),
        ("api_reference/site_b_errors/CalmError.html#site_b_errors.CalmError", "verified"),
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
    page = index["docnames"].index("api_reference/site_a_errors/LeakyError")
    # A word that occurs only in the error's message: literal blocks are indexed.
    found = index["terms"]["forest"]
    assert page in (found if isinstance(found, list) else [found])
    leaky = next(item for item in search_data(app) if item["name"] == "LeakyError")
    assert leaky["docname"] == "api_reference/site_a_errors/LeakyError"
    assert leaky["messages"][0].startswith("site_a_errors.LeakyError: leaf 1 leaked")


@pytest.mark.sphinx("html", testroot="site")
def test_error_text_is_escaped_on_index_landing_and_entries(app: SphinxTestApp) -> None:
    app.build()

    for name in ("index.html", "errors.html", "api_reference/site_a_errors.html", "search.html"):
        assert SCRIPT not in html(app, name), name
    assert ESCAPED in html(app, "errors.html")
    entry = html(app, "api_reference/site_a_errors/LeakyError.html")
    assert entry.count(ESCAPED) >= 3  # headline, short output and full traceback
    # The search data carries the text as JSON data, which the page never parses as HTML.
    leaky = next(item for item in search_data(app) if item["name"] == "LeakyError")
    assert any(SCRIPT in message for message in leaky["messages"])


@pytest.mark.sphinx("html", testroot="site")
def test_entry_shows_both_examples_open_trimmed_output_and_the_full_traceback(
    app: SphinxTestApp,
) -> None:
    app.build()
    page = html(app, "api_reference/site_a_errors/LeakyError.html")
    entry = page[page.index('id="site_a_errors.LeakyError"') :]

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
    bare = html(app, "api_reference/site_a_errors/BareError.html")
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
    assert "&quot;jax/_src/tree_util.py&quot;" in html(
        app, "api_reference/site_a_errors/LeakyError.html"
    )


@pytest.mark.sphinx("html", testroot="site", srcdir="site_see_also")
def test_see_also_links_go_both_ways(app: SphinxTestApp, make_app: MakeApp) -> None:
    leaky, calm = "site_a_errors.LeakyError", "site_b_errors.CalmError"
    # site_a_errors' data, in a folder that holds it alone: its docstrings stay its entries.
    folder = Path(app.srcdir) / "catalogue" / "site_a_errors"
    folder.mkdir(parents=True)
    data = f'area = "Leaks"\nrelated = [["LeakyError", "{calm}"]]\n'
    (folder / "module.toml").write_text(data)
    app = make_app(
        "html", srcdir=app.srcdir, confoverrides={"flax_errors_catalogue_dirs": ["catalogue"]}
    )
    app.build()

    page_a = html(app, "api_reference/site_a_errors/LeakyError.html")
    page_b = html(app, "api_reference/site_b_errors/CalmError.html")
    assert f'href="../site_b_errors/CalmError.html#{calm}"' in page_a
    assert f'href="../site_a_errors/LeakyError.html#{leaky}"' in page_b
    # BareError relates to nothing: no line.
    assert "See also:" not in html(app, "api_reference/site_a_errors/BareError.html")
    assert 'id="area-leaks"' in html(app, "errors.html")
    assert 'id="area-site-b-errors"' in html(app, "errors.html")


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
    assert rows["api_reference/site_b_errors/CalmError.html#site_b_errors.CalmError"] == "drifted"
    assert ">1 drifted</span>" in html(again, "index.html")
    # The entry says so too, where the reader lands, and marks the example that failed.
    calm = html(again, "api_reference/site_b_errors/CalmError.html")
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
