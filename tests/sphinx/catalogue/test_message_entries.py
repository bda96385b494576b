"""A group of message entries as the site shows it, and its drift caught warm."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.utils import entry, module_html, read_catalogue

if TYPE_CHECKING:
    from collections.abc import Callable

    from sphinx.testing.util import SphinxTestApp

pytestmark = pytest.mark.examples


def _modified_later(path: Path) -> None:
    """Move ``path``'s modification time on, so that a file system's coarse clock
    cannot hide the edit from the next build."""
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))


@pytest.mark.sphinx("html", testroot="messages")
def test_each_message_entry_has_a_page_its_class_and_where_the_library_raises_it(
    app: SphinxTestApp,
) -> None:
    app.build()

    assert app.statuscode == 0, app.warning.getvalue()
    outdir = Path(app.outdir)
    catalogue = read_catalogue(outdir)
    rate = entry(catalogue, "RateUnreadable")
    assert rate["status"] == "passed"
    assert rate["raised_as"] == ["ValueError"]
    assert (
        rate["url"]
        == "api_reference/demo.messages/RateUnreadable.html#demo.messages.RateUnreadable"
    )
    assert [e["raised_at"] for e in rate["examples"]] == ["demo_lib.py:9", ""]
    # Raised by the example's own code: no library frame to name.
    assert entry(catalogue, "KeyMissingFromMapping")["examples"][0]["raised_at"] == ""
    page = module_html(outdir, "api_reference/demo.messages")
    assert re.search(r"Raised as:</strong> <code[^>]*><span class=\"pre\">ValueError</span>", page)
    assert "demo_lib.py:9" in page
    # A message entry names no class: no constructor signature is shown.
    assert "flax-errors-signature" not in page


@pytest.mark.sphinx("html", testroot="messages")
def test_a_library_rewording_its_message_fails_the_build_however_warm_the_cache(
    app: SphinxTestApp, make_app: Callable[..., SphinxTestApp]
) -> None:
    app.build()
    assert app.statuscode == 0, app.warning.getvalue()
    library = Path(app.srcdir) / "demo_lib.py"
    library.write_text(library.read_text().replace("cannot read a learning rate", "bad rate"))
    _modified_later(library)

    again = make_app("html", srcdir=app.srcdir)
    again.build()

    text = again.warning.getvalue()
    assert again.statuscode == 1
    assert re.search(
        r"catalogue/demo\.messages/RateUnreadable\.txt:\d+: WARNING: "
        r"demo\.messages\.RateUnreadable: bad example drifted",
        text,
    ), text
    assert "+ValueError: bad rate from 'one tenth'" in text
    assert read_catalogue(Path(again.outdir))["executed"] == ["demo.messages.RateUnreadable"]


@pytest.mark.sphinx("html", testroot="messages")
def test_a_message_group_is_read_again_only_when_its_folder_gains_an_entry(
    app: SphinxTestApp, make_app: Callable[..., SphinxTestApp]
) -> None:
    app.build()
    assert app.statuscode == 0, app.warning.getvalue()

    unchanged = make_app("html", srcdir=app.srcdir)
    unchanged.build()
    assert "0 added, 0 changed, 0 removed" in unchanged.status.getvalue()

    folder = Path(app.srcdir) / "catalogue" / "demo.messages"
    (folder / "SettingMissing.txt").write_text((folder / "KeyMissingFromMapping.txt").read_text())
    _modified_later(folder)
    again = make_app("html", srcdir=app.srcdir)
    again.build()

    assert again.statuscode == 0, again.warning.getvalue()
    outdir = Path(again.outdir)
    assert entry(read_catalogue(outdir), "SettingMissing")["status"] == "passed"
    # The group's page is read again, and lists the entry its folder gained.
    group_page = (outdir / "api_reference" / "demo.messages.html").read_text()
    assert "SettingMissing" in group_page
