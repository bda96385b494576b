"""The URLs the landing check opens (tools/flax_docs/landing.py), and where each must land.

Collecting them and mapping them to files is pure; no browser starts here.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from tools.flax_docs import landing

if TYPE_CHECKING:
    from pathlib import Path

SITE = "https://flax.readthedocs.io/en/latest/"
PAGE = f"{SITE}api_reference/flax.errors.html"
ERRORS_PY = f"""
class FlaxError(Exception):
  def __init__(self, message):
    error_page = (
      '{PAGE}'
    )
    message = f'{{message}} ({{error_page}}#{{module_name}}.{{class_name}})'
"""


def test_flax_prints_its_page_at_each_error() -> None:
    other = "see https://flax.readthedocs.io/en/latest/guides/filters_guide.html here"

    urls = landing.printed_urls([ERRORS_PY, other], ["flax.errors.B", "flax.errors.A"])

    assert urls == [f"{PAGE}#flax.errors.A", f"{PAGE}#flax.errors.B"]


def test_a_url_written_whole_in_the_source_is_kept() -> None:
    source = f"raise E('... {SITE}api_reference/flax.errors.html#flax.errors.C')"

    assert landing.printed_urls([source], []) == [f"{PAGE}#flax.errors.C"]


def test_a_notebooks_urls_are_read_from_cells_and_coloured_outputs() -> None:
    notebook = {
        "cells": [
            {"cell_type": "markdown", "source": [f"The [page]({PAGE}#flax.errors.A)."]},
            {
                "cell_type": "code",
                "source": ["model(x)"],
                "outputs": [
                    {
                        "output_type": "error",
                        "ename": "TraceContextError",
                        # The URL split by colour codes, as IPython prints it.
                        "traceback": [
                            f"\x1b[0;31mError\x1b[0m: ({SITE}api_reference/"
                            "flax.errors.html#\x1b[0mflax.errors.B)"
                        ],
                    },
                    {"output_type": "stream", "text": [f"({PAGE}", "#flax.errors.C)\n"]},
                ],
            },
            {"cell_type": "markdown", "source": [f"The page alone: {PAGE}."]},
        ],
        "metadata": {},
    }

    assert landing.notebook_urls(json.dumps(notebook)) == [
        f"{PAGE}#flax.errors.A",
        f"{PAGE}#flax.errors.B",
        f"{PAGE}#flax.errors.C",
    ]


def test_a_url_lands_on_its_entrys_own_page_on_the_same_host() -> None:
    other_host = "https://flax-linen.readthedocs.io/en/latest/api_reference/flax.errors.html"

    assert landing.landing(f"{PAGE}#flax.errors.LazyInitError") == (
        f"{SITE}api_reference/flax.errors/LazyInitError.html#flax.errors.LazyInitError",
        "LazyInitError",
    )
    assert landing.landing(f"{other_host}#flax.errors.A")[0].startswith(
        "https://flax-linen.readthedocs.io/en/latest/api_reference/flax.errors/A.html"
    )
    with pytest.raises(ValueError, match=r"names no error of flax\.errors"):
        landing.landing(f"{PAGE}#top")


def test_requests_to_the_site_are_its_built_files_and_others_none(tmp_path: Path) -> None:
    (tmp_path / "api_reference").mkdir()

    assert landing.site_file(f"{PAGE}#x", SITE, tmp_path) == (
        tmp_path / "api_reference" / "flax.errors.html"
    )
    assert landing.site_file(f"{SITE}_static/a.css?v=1", SITE, tmp_path) == (
        tmp_path / "_static" / "a.css"
    )
    assert landing.site_file(f"{SITE}api_reference/", SITE, tmp_path) == (
        tmp_path / "api_reference" / "index.html"
    )
    assert landing.site_file("https://cdn.example.org/x.js", SITE, tmp_path) is None
    assert landing.site_file(f"{SITE}../../etc/passwd", SITE, tmp_path) is None
