"""What flax_errors_ext.sphinx.compat keeps the same on every Sphinx supported.

``nox -s tests`` runs these on the newest releases, ``nox -s tests_lowest`` on Sphinx
6.2.1 with sphinx-design 0.6.1 and sphinx-reredirects 0.1.4.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.utils import entry, module_html, read_catalogue

if TYPE_CHECKING:
    from sphinx.testing.util import SphinxTestApp


@pytest.mark.sphinx("html", testroot="compat")
def test_entries_build_alike_on_every_sphinx(app: SphinxTestApp) -> None:
    app.build()
    catalogue = read_catalogue(Path(app.outdir))
    page = module_html(Path(app.outdir), "api_reference/compat_errors")
    warnings = app.warning.getvalue()

    # The root's extension fails on every exception autodoc documents: the entries
    # leave their signatures out, say so, and the build goes on.
    assert app.statuscode == 0
    assert entry(catalogue, "CountError")["status"] == "passed"
    assert "flax-errors-signature" not in page
    assert "compat_errors.CountError: signature left out" in app.status.getvalue()
    assert "NoneType" not in warnings
    # The entry with no examples leads with its badge, its meaning as the tooltip.
    badge = re.search(r'<span class="[^"]*\bsd-badge\b[^"]*"([^>]*)>([^<]+)</span>', page)
    assert badge is not None
    assert re.fullmatch(r' title="[^"]+"', badge[1])
    # Each warning names its type, to suppress it by.
    assert "[flax-errors.undocumented]" in warnings
    # The moved page forwards to the new one with the URL's #anchor kept.
    forward = (Path(app.outdir) / "moved" / "compat.html").read_text()
    assert "../api_reference/compat_errors.html" in forward
    assert "window.location.hash" in forward
