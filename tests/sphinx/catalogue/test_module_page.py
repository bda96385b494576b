"""A module's page and its entries' pages, as the default layout and the other write them.

Built from ``tests/roots/test-site`` (two modules, three errors) with execution off:
what is checked here is where things are, not what ran.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sphinx.testing.util import SphinxTestApp

from flax_errors_ext.execution.catalogue.modules import load_module
from flax_errors_ext.sphinx.catalogue import per_build
from flax_errors_ext.sphinx.catalogue.module_page import FORWARD_SCRIPT
from flax_errors_ext.sphinx.catalogue.per_build import STUB_MARKER
from tests.utils import read_catalogue

MakeApp = Callable[..., SphinxTestApp]
OFF = {"nb_execution_mode": "off"}


def _summary(html: str, anchor: str) -> str:
    """The summary at ``anchor`` on a module's page (a box of paragraphs, not a section)."""
    found = re.search(
        rf'<div class="flax-errors-summary[^"]*" id="{re.escape(anchor)}">(.*?)</div>', html, re.S
    )
    assert found, f"no summary at {anchor}"
    return found.group(1)


@pytest.mark.sphinx("html", testroot="site", confoverrides=OFF)
def test_each_error_has_its_page_and_its_modules_page_indexes_them(app: SphinxTestApp) -> None:
    app.build()
    assert app.statuscode == 0, app.warning.getvalue()
    html = Path(app.outdir)

    module_page = (html / "api_reference" / "site_a_errors.html").read_text()
    for name in ("LeakyError", "BareError"):
        entry_page = (html / "api_reference" / "site_a_errors" / f"{name}.html").read_text()
        # The entry in full on its own page, titled by the error's name.
        assert re.search(rf"<title>{name}\b", entry_page)
        assert f'<section class="flax-errors-entry" id="site_a_errors.{name}">' in entry_page
        # On the module's page, at the anchor printed URLs name: the summary and a link.
        summary = _summary(module_page, f"site_a_errors.{name}")
        assert f'<p class="flax-errors-summary-name rubric">{name}</p>' in summary
        assert f'href="site_a_errors/{name}.html"' in summary
        assert 'class="flax-errors-entry"' not in summary
    # The script that takes a printed URL's reader on, once, after the summaries.
    assert module_page.count(FORWARD_SCRIPT) == 1
    assert module_page.index(FORWARD_SCRIPT) > module_page.index('id="site_a_errors.BareError"')
    # The entries' pages are under the module's page in the navigation.
    entry_page = (html / "api_reference" / "site_a_errors" / "LeakyError.html").read_text()
    assert 'href="../site_a_errors.html"' in entry_page
    # Everything that points at an entry points at its page.
    urls = {e["qualname"]: e["url"] for e in read_catalogue(html)["entries"]}
    assert urls["site_b_errors.CalmError"] == (
        "api_reference/site_b_errors/CalmError.html#site_b_errors.CalmError"
    )
    index = (html / "errors.html").read_text()
    assert 'href="api_reference/site_b_errors/CalmError.html#site_b_errors.CalmError"' in index


@pytest.mark.sphinx(
    "html",
    testroot="site",
    srcdir="site_module_pages",
    confoverrides={**OFF, "flax_errors_pages": "module"},
)
def test_a_project_can_keep_every_entry_on_its_modules_page(app: SphinxTestApp) -> None:
    app.build()
    assert app.statuscode == 0, app.warning.getvalue()
    html = Path(app.outdir)

    module_page = (html / "api_reference" / "site_a_errors.html").read_text()
    assert '<section class="flax-errors-entry" id="site_a_errors.LeakyError">' in module_page
    assert FORWARD_SCRIPT not in module_page
    assert not (html / "api_reference" / "site_a_errors").exists()
    urls = {e["qualname"]: e["url"] for e in read_catalogue(html)["entries"]}
    assert urls["site_a_errors.LeakyError"] == (
        "api_reference/site_a_errors.html#site_a_errors.LeakyError"
    )


@pytest.mark.sphinx("html", testroot="site", srcdir="site_stale_pages", confoverrides=OFF)
def test_an_entrys_page_goes_with_its_error_and_a_projects_own_page_stays(
    app: SphinxTestApp, make_app: MakeApp
) -> None:
    srcdir = Path(app.srcdir)
    folder = srcdir / "api_reference" / "site_a_errors"
    own = folder / "Notes.rst"
    own.write_text(":orphan:\n\nNotes\n=====\n\nThe project's own page.\n")
    gone = folder / "RetiredError.rst"
    gone.write_text(f"{STUB_MARKER}\n\n:orphan:\n\n.. flax-errors-entry:: site_a_errors.Retired\n")

    # The pages are written when the build opens.
    again = make_app("html", srcdir=srcdir, confoverrides=OFF)
    again.build()

    assert again.statuscode == 0, again.warning.getvalue()
    assert not gone.exists()
    assert own.read_text().endswith("The project's own page.\n")
    assert (folder / "LeakyError.rst").read_text().startswith(STUB_MARKER)
    assert "Retired" not in again.warning.getvalue()


@pytest.mark.sphinx("html", testroot="site", srcdir="site_unknown_entry", confoverrides=OFF)
def test_an_entry_directive_naming_no_error_is_a_located_warning(app: SphinxTestApp) -> None:
    page = Path(app.srcdir) / "typo.rst"
    page.write_text(":orphan:\n\n.. flax-errors-entry:: site_a_errors.LeakyEror\n")

    app.build()

    warnings = app.warning.getvalue()
    assert "typo.rst:3: WARNING: site_a_errors.LeakyEror: site_a_errors has no catalogue " in (
        re.sub(r"\x1b\[[0-9;]*m", "", warnings)
    )
    assert "(its entries: LeakyError, BareError)" in warnings


@pytest.mark.sphinx("html", testroot="site", srcdir="site_unchanged", confoverrides=OFF)
def test_a_build_with_nothing_changed_reads_no_module(
    app: SphinxTestApp, make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    app.build()
    loaded: list[str] = []
    real = load_module

    def counted(spec: Any, *args: Any, **kwargs: Any) -> Any:
        loaded.append(spec.name)
        return real(spec, *args, **kwargs)

    monkeypatch.setattr(per_build, "load_module", counted)

    again = make_app("html", srcdir=app.srcdir, confoverrides=OFF)
    again.build()
    # Its pages are known from the last build: no library is imported to find them.
    assert loaded == []
    assert "0 added, 0 changed, 0 removed" in again.status.getvalue()

    module = Path(app.srcdir) / "site_b_errors.py"
    module.write_text(module.read_text() + "\n")
    edited = make_app("html", srcdir=app.srcdir, confoverrides=OFF)
    edited.build()
    assert loaded == ["site_b_errors"]  # the edited module only, found again
    assert edited.statuscode == 0


@pytest.mark.sphinx(
    "html",
    testroot="site",
    srcdir="site_unlisted",
    confoverrides={**OFF, "flax_errors_modules": ["site_a_errors"]},
)
def test_a_module_no_setting_lists_is_shown_in_full_where_its_directive_is(
    app: SphinxTestApp,
) -> None:
    (Path(app.srcdir) / "unlisted.rst").write_text(
        ":orphan:\n\nUnlisted\n========\n\n.. flax-errors-catalogue:: site_b_errors\n"
    )
    app.build()

    page = (Path(app.outdir) / "unlisted.html").read_text()
    assert '<section class="flax-errors-entry" id="site_b_errors.CalmError">' in page
    assert FORWARD_SCRIPT not in page
    assert not (Path(app.srcdir) / "api_reference" / "site_b_errors").exists()
