"""Where an entry lives: the layout's answers, and every consumer agreeing with them.

The pure tests pin the layout (a page per error beside its module's page, where
printed URLs land; anchors by full dotted name; or every entry on its module's
page). The built tests build a copy of ``tests/roots/test-device-runs`` whose module
has a page of its own and an upstream site, with execution off, and checks that
the printed URL, the records, ``errors.json``, ``flax-errors list``, the pages'
ids, the error index, the search data, ``objects.inv`` and the redirects all say
what the layout says.
"""

from __future__ import annotations

import json
import re
import shutil
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sphinx.testing.util import SphinxTestApp

from flax_errors_ext.cli import main
from flax_errors_ext.errors import JitPytreeError
from flax_errors_ext.execution.catalogue.modules import load_module
from flax_errors_ext.ext.search.sphinx.search_page import DATA_FILE
from flax_errors_ext.layout import (
    BASE_URL_ENV_VAR,
    DEFAULT_LAYOUT,
    FLAX_BASE_URL,
    EntryLocation,
    SiteLayout,
    base_url,
    entry_url,
)
from flax_errors_ext.model.config import CatalogueConfig
from flax_errors_ext.model.config.values import ModuleSpec
from flax_errors_ext.model.runs.entry_record import entry_record
from flax_errors_ext.sphinx.context import build_context
from tests.utils import ROOTS, read_catalogue

if TYPE_CHECKING:
    import pytest

MakeApp = Callable[..., SphinxTestApp]
OURS = "flax_errors_ext.errors.JitPytreeError"


def test_an_entry_has_a_page_of_its_own_and_printed_links_land_on_its_modules_page() -> None:
    location = DEFAULT_LAYOUT.locate("pkg.errors.BoomError")

    assert location == EntryLocation(
        "pkg.errors.BoomError", "api_reference/pkg.errors/BoomError", location.qualname
    )
    assert location.path == "api_reference/pkg.errors/BoomError.html#pkg.errors.BoomError"
    assert location.url("https://x.org/en/") == f"https://x.org/en/{location.path}"
    assert DEFAULT_LAYOUT.printed("pkg.errors.BoomError") == EntryLocation(
        "pkg.errors.BoomError", "api_reference/pkg.errors", "pkg.errors.BoomError"
    )


def test_a_layout_of_module_pages_shows_each_entry_where_printed_links_land() -> None:
    layout = SiteLayout.of([ModuleSpec("jax.errors", page="errors")], per_error=False)

    assert layout.locate("jax.errors.KeyReuseError") == layout.printed("jax.errors.KeyReuseError")
    assert layout.locate("jax.errors.KeyReuseError").path == (
        "errors.html#jax.errors.KeyReuseError"
    )
    assert CatalogueConfig.from_values({"flax_errors_pages": "module"}).layout.per_error is False
    assert CatalogueConfig().layout.per_error is True


def test_a_module_page_is_the_configured_one_the_last_listed_winning() -> None:
    layout = SiteLayout.of(
        [ModuleSpec("jax.errors", page="errors"), ModuleSpec("a"), ModuleSpec("b", page="x/b")]
    )

    assert layout.module_page("jax.errors") == "errors"
    assert layout.module_page("a") == "api_reference/a"
    assert layout.locate("x.y.b.E").page == "api_reference/x.y.b/E"
    assert layout.printed("x.y.b.E").page == "api_reference/x.y.b"
    assert layout.locate("b.E").path == "x/b/E.html#b.E"
    assert layout.printed("b.E").path == "x/b.html#b.E"
    assert SiteLayout.of([ModuleSpec("b", page="x/b"), ModuleSpec("b")]).module_page("b") == (
        "api_reference/b"
    )


def test_linked_pages_read_back_the_urls_the_layout_prints() -> None:
    layout = SiteLayout.of([ModuleSpec("jax.errors", page="101/errors")])
    printed = layout.printed("jax.errors.KeyReuseError").url("https://up.org/en")
    text = (
        f"See {printed} and https://up.org/en/guide.html#sharp-bits, "
        "https://up.org/en/errors.html#jax.errors.X and again "
        "https://up.org/en/errors.html#jax.errors.Y"
    )

    # A guide of that site names no error of the module: not a page of its errors.
    assert layout.linked_pages("https://up.org/en/", "jax.errors", text) == [
        "101/errors",
        "errors",
    ]
    assert layout.linked_pages("https://other.org", "jax.errors", text) == []


def test_old_pages_forward_to_where_printed_links_land_now() -> None:
    layout = SiteLayout.of([ModuleSpec("jax.errors", page="errors")])
    linked = ["101/errors", "errors", "../escape", "a/../../b", "jax.errors"]

    assert layout.forwards("jax.errors", linked) == {
        "101/errors": "errors",
        "jax.errors": "errors",
    }
    assert SiteLayout.forward_uri("101/errors", "errors") == "../errors.html"
    assert SiteLayout.forward_uri("flax.errors", "api_reference/flax.errors") == (
        "api_reference/flax.errors.html"
    )


def test_the_runtime_prints_where_the_layout_places_its_errors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(BASE_URL_ENV_VAR, "https://mirror.example/errors/")
    message = str(JitPytreeError("Dense"))

    expected = DEFAULT_LAYOUT.printed(OURS).url("https://mirror.example/errors")
    assert message.endswith(f"See {expected}")
    assert entry_url(OURS) == expected
    # The URL as it was before the layout was an object, kept exactly.
    monkeypatch.delenv(BASE_URL_ENV_VAR)
    assert entry_url(OURS) == (
        "https://flax-errors.readthedocs.io/en/latest/api_reference/"
        "flax_errors_ext.errors.html#flax_errors_ext.errors.JitPytreeError"
    )


def test_discovered_entries_and_their_records_are_where_the_layout_says() -> None:
    config = CatalogueConfig.from_values(
        {"flax_errors_modules": ["flax_errors_ext.errors", "jax.errors"]}
    )
    layout = config.layout
    for name in ("flax_errors_ext.errors", "jax.errors"):
        for entry in load_module(config.spec(name)).entries:
            assert entry.site == layout.locate(entry.qualname)
            record = entry_record(entry, [], executed=False, device=None, versions={})
            assert record.url == layout.locate(entry.qualname).path
    assert layout.locate("jax.errors.KeyReuseError").page == "errors/KeyReuseError"
    # Printed by our own errors, documented in their bad examples: the module's page,
    # which takes the reader on to the entry's.
    (ours,) = (e for e in load_module("flax_errors_ext.errors").entries if e.qualname == OURS)
    assert layout.printed(ours.qualname).url(base_url()) == entry_url(OURS)
    assert ours.site.page == f"api_reference/flax_errors_ext.errors/{ours.name}"


# A site built with a page of the layout's choosing --------------------------------------


PAGE = "errors/device"
"""The module's page in the built project: not the default, so agreement is not luck."""


def _project(tmp_path: Path) -> Path:
    """The device-runs root, its module on :data:`PAGE` and its links into Flax's site.

    Its GPU run raised texts linking to ``api_reference/flax.errors.html``: a page of
    the upstream site that this site keeps elsewhere, so it forwards.
    """
    srcdir = tmp_path / "layout"
    shutil.copytree(ROOTS / "test-device-runs", srcdir)
    conf = srcdir / "conf.py"
    spec = {"module": "device_errors", "page": PAGE, "upstream": FLAX_BASE_URL}
    text = conf.read_text().replace('["device_errors"]', repr([spec]))
    # Its search data is one of the consumers.
    text = text.replace(
        '"flax_errors_ext.ext.other_runs"]',
        '"flax_errors_ext.ext.other_runs", "flax_errors_ext.ext.search"]',
    )
    conf.write_text(text + 'nb_execution_mode = "off"\n')
    (srcdir / "index.rst").write_text(
        "layout\n======\n\n.. toctree::\n   :glob:\n\n   errors/*\n\n.. flax-errors-index::\n"
    )
    return srcdir


def _inventory(html: Path) -> dict[str, str]:
    """``objects.inv``'s Python exceptions: the URI of each, by full name."""
    *_, compressed = (html / "objects.inv").read_bytes().split(b"\n", 4)
    found = {}
    for line in zlib.decompress(compressed).decode().splitlines():
        name, role, _, uri, _ = line.split(" ", 4)
        if role == "py:exception":
            found[name] = uri[:-1] + name if uri.endswith("$") else uri
    return found


def _search_items(html: Path) -> list[dict[str, Any]]:
    text = (html / "_static" / DATA_FILE).read_text()
    items: list[dict[str, Any]] = json.loads(text.partition(" = ")[2].rstrip().rstrip(";"))
    return items


def test_every_consumer_of_a_built_site_agrees_with_the_layout(
    make_app: MakeApp, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    srcdir = _project(tmp_path)
    app = make_app("html", srcdir=srcdir)
    app.build()
    assert app.statuscode == 0
    html = Path(app.outdir)
    layout = build_context(app.env).config.layout
    qualnames = sorted(e["qualname"] for e in read_catalogue(html)["entries"])
    assert len(qualnames) == 3
    located = {q: layout.locate(q) for q in qualnames}
    assert {location.page for location in located.values()} == {
        f"{PAGE}/{q.rpartition('.')[2]}" for q in qualnames
    }

    # errors.json, and `flax-errors list --json` on the same conf.py.
    assert {e["qualname"]: e["url"] for e in read_catalogue(html)["entries"]} == {
        q: location.path for q, location in located.items()
    }
    assert main(["list", "--json", "--conf", str(srcdir / "conf.py")]) == 0
    listed = json.loads(capsys.readouterr().out)["entries"]
    assert {e["qualname"]: e["url"] for e in listed} == {q: loc.path for q, loc in located.items()}
    # The page writer: each entry's section at its anchor, on its page; the inventory.
    for location in located.values():
        page = (html / f"{location.page}.html").read_text()
        assert re.search(rf'<section [^>]*id="{re.escape(location.anchor)}"', page)
    assert _inventory(html) == {q: location.path for q, location in located.items()}
    # The module's page: at each printed anchor, a summary linking to the entry's page.
    index_page = (html / f"{PAGE}.html").read_text()
    for qualname in located:
        printed = layout.printed(qualname)
        assert printed.page == PAGE
        summary = re.search(rf'id="{re.escape(printed.anchor)}">(.*?)</div>', index_page, re.S)
        assert summary, qualname
        assert f'href="device/{qualname.rpartition(".")[2]}.html"' in summary.group(1)
    # The error index (at the site's root, so its links are the site paths) and search.
    index = (html / "index.html").read_text()
    # (The toctree beside it lists the module page's sections: the printed anchors.)
    index = index[index.index("<table") :]
    links = re.findall(r'<a class="reference internal" href="([^"]+#device_errors\.\w+)"', index)
    assert sorted(set(links)) == sorted(location.path for location in located.values())
    assert {(i["qualname"], i["docname"], i["anchor"]) for i in _search_items(html)} == {
        (q, location.page, location.anchor) for q, location in located.items()
    }
    # The page the GPU run's texts link to forwards to where printed links land now.
    moved = "api_reference/flax.errors"
    assert app.config.redirects == {moved: SiteLayout.forward_uri(moved, PAGE)}
    assert layout.forwards("device_errors", [moved]) == {moved: PAGE}
    assert "../errors/device.html" in (html / f"{moved}.html").read_text()
