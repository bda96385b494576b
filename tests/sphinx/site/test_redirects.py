"""sphinx-reredirects, loaded only where a page moved: ``tests/roots/test-moved-pages``."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from flax_errors_ext.sphinx.build import REDIRECTS, REDIRECTS_EXTRA

if TYPE_CHECKING:
    from sphinx.testing.util import SphinxTestApp


@pytest.fixture
def without_reredirects(monkeypatch: pytest.MonkeyPatch) -> None:
    """sphinx-reredirects as if not installed: importing it fails (before the app starts)."""
    monkeypatch.setitem(sys.modules, REDIRECTS, None)


@pytest.mark.sphinx("html", testroot="moved-pages")
def test_a_moved_page_loads_sphinx_reredirects_and_forwards(app: SphinxTestApp) -> None:
    assert REDIRECTS in app.extensions
    assert app.config.redirects == {"moved_errors": "api_reference/moved_errors.html"}
    app.build()

    assert app.statuscode == 0
    assert "WARNING" not in app.warning.getvalue()
    forward = (Path(app.outdir) / "moved_errors.html").read_text()
    assert "api_reference/moved_errors.html" in forward
    assert "window.location.hash" in forward  # the printed URL's anchor kept


@pytest.mark.sphinx("html", testroot="moved-pages", confoverrides={"flax_errors_history": []})
def test_a_project_with_no_moved_page_never_loads_it(app: SphinxTestApp) -> None:
    assert REDIRECTS not in app.extensions
    assert "redirects" not in app.config
    assert "WARNING" not in app.warning.getvalue()


@pytest.mark.sphinx("html", testroot="moved-pages")
def test_moved_pages_without_sphinx_reredirects_are_one_located_warning(
    without_reredirects: None, app: SphinxTestApp
) -> None:
    assert REDIRECTS not in app.extensions
    warnings = re.sub(r"\x1b\[[0-9;]*m", "", app.warning.getvalue())
    found = re.findall(r"^(.*?conf\.py:\d+): WARNING: (.*)$", warnings, re.M)
    assert len(found) == 1, warnings
    location, message = found[0]
    assert Path(location.rsplit(":", 1)[0]) == Path(app.confdir, "conf.py")
    assert location.endswith(":5")  # the line that sets extensions
    assert "(moved_errors)" in message
    assert f"pip install {REDIRECTS_EXTRA}" in message
    assert "[flax-errors.redirects]" in message
