"""The options page's generated tables: the settings, and the warnings to suppress by name."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from sphinx.testing.util import SphinxTestApp

from flax_errors_ext.model.config import CatalogueConfig
from flax_errors_ext.model.warning_subtypes import WarningSubtype

if TYPE_CHECKING:
    from pathlib import Path


def test_the_options_page_lists_every_setting_and_every_warning(tmp_path: Path) -> None:
    (tmp_path / "conf.py").write_text(
        'extensions = ["flax_errors_ext"]\nnb_execution_mode = "off"\nflax_errors_modules = []\n'
    )
    (tmp_path / "index.rst").write_text(
        "Options\n=======\n\n.. flax-errors-options::\n\n.. flax-errors-warnings::\n"
    )
    app = SphinxTestApp("html", srcdir=tmp_path)
    try:
        app.build()
        page = html.unescape((app.outdir / "index.html").read_text())
    finally:
        app.cleanup()

    assert app.statuscode == 0
    assert app.warning.getvalue() == ""
    for name, _, _ in CatalogueConfig.options():
        assert f'<span class="pre">{name}</span>' in page
    warnings_table = page[page.index('class="flax-errors-warnings') :]
    for subtype in WarningSubtype:
        assert f'<span class="pre">flax-errors.{subtype.value}</span>' in warnings_table
        # The description's text, its ``names`` as literals.
        first_words = subtype.description.split("``")[0][:20]
        assert first_words in warnings_table, subtype
    assert '<span class="pre">flax_errors_timeout</span>' in warnings_table
