"""Library frames of the full tracebacks link to their source at the installed version's tag.

The pure part (which frames, which URL) is tested in ``tests/model/site/test_frame_links.py``;
here, the blocks the site renders and a real build of ``tests/roots/test-source-links``.
"""

from __future__ import annotations

import html
import importlib.metadata
import re
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from docutils import nodes

from flax_errors_ext.sphinx.catalogue.examples import (
    linked_traceback,
    source_links,
    traceback_block,
)
from tests.utils import module_html
from tools.site_links import check_site

if TYPE_CHECKING:
    from sphinx.testing.util import SphinxTestApp

TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "<doctest m.E[3]>", line 1, in <module>\n'
    "    MLP().init(x)\n"
    '  File "flax/linen/module.py", line 243, in init\n'
    "    return fn()\n"
    "flax.errors.E: x"
)


def test_a_block_with_links_is_one_node_that_keeps_its_text_and_where_each_link_goes() -> None:
    links = source_links({}, {"flax": "0.12.8"})

    block = traceback_block(TRACEBACK, links)

    assert isinstance(block, linked_traceback)
    assert block.astext() == TRACEBACK
    assert block["language"] == "pytb"
    # One node until it is written: no token nodes travel through the build.
    assert list(block.findall(nodes.Element)) == [block]
    (link,) = block["links"]
    assert TRACEBACK[link.start : link.end] == 'File "flax/linen/module.py", line 243'
    assert link.url == "https://github.com/google/flax/blob/v0.12.8/flax/linen/module.py#L243"


def test_a_block_without_links_is_left_to_sphinx() -> None:
    for links in (None, source_links({"flax": None}, {"flax": "0.12.8"})):
        block = traceback_block(TRACEBACK, links)
        assert type(block) is nodes.literal_block
        assert block["language"] == "pytb"
        assert block.astext() == TRACEBACK


def test_a_package_the_run_did_not_record_links_at_its_installed_version() -> None:
    links = source_links({"pytest": "https://example.org/{version}/{path}#L{line}"}, {})
    assert links.versions["pytest"] == importlib.metadata.version("pytest")
    # The run's own record wins over what is installed here.
    assert source_links({}, {"flax": "0.1.0"}).versions["flax"] == "0.1.0"


def test_the_setting_adds_and_overrides_repositories_and_none_takes_one_away() -> None:
    links = source_links(
        {"jax": None, "optax": "https://example.org/optax/{version}/{path}?line={line}"},
        {"optax": "0.2.6", "jax": "0.10.2"},
    )
    assert sorted(links.templates) == ["flax", "optax"]
    assert links.url("optax/_src/alias.py", 7) == (
        "https://example.org/optax/0.2.6/optax/_src/alias.py?line=7"
    )
    assert links.url("jax/_src/api.py", 7) == ""


def _frames(page: str) -> list[tuple[str, str]]:
    """(link or "", file) of every frame in the page's full tracebacks."""
    full = "".join(re.findall(r"Full traceback.*?</pre>", page, flags=re.DOTALL))
    return [
        (href or "", html.unescape(file))
        for href, file in re.findall(
            r'(?:<a class="reference external" href="([^"]+)">)?'
            r'File <span class="nb">(?:"|&quot;)(.+?)(?:"|&quot;)</span>',
            full,
        )
    ]


@pytest.mark.sphinx("html", testroot="source-links")
def test_flax_and_jax_frames_link_to_their_tags_and_the_readers_do_not(
    app: SphinxTestApp,
) -> None:
    app.build()
    page = module_html(Path(app.outdir), "api_reference/source_links_errors")
    assert "Checked: raises exactly this error, with the documented text." in page
    frames = _frames(page)
    flax, jax = importlib.metadata.version("flax"), importlib.metadata.version("jax")

    linked = [(href, file) for href, file in frames if href]
    assert any(file.startswith("flax/") for _, file in linked), frames
    assert any(file.startswith("jax/") for _, file in linked), frames
    for href, file in linked:
        if file.startswith("flax/"):
            pattern = rf"https://github\.com/google/flax/blob/v{re.escape(flax)}/{file}#L\d+"
        else:
            pattern = rf"https://github\.com/jax-ml/jax/blob/jax-v{re.escape(jax)}/{file}#L\d+"
        assert re.fullmatch(pattern, href), (href, file)
    # The reader's frames, and files of no known package, are not links.
    unlinked = {file for href, file in frames if not href}
    assert any(file.startswith("<doctest") for file in unlinked), frames
    assert all(not file.startswith(("flax/", "jax/")) for file in unlinked), frames
    # Out of the site's search: Sphinx leaves a "no-search" element out of its index.
    assert re.search(r'<details class="[^"]*flax-errors-full-traceback no-search"', page)
    # The offline link check lists them as external links, never as broken ones.
    report = check_site(Path(app.outdir))
    assert report.broken == []
    assert {link.target for link in report.external} >= {href for href, _ in linked}


@pytest.mark.sphinx("text", testroot="source-links")
def test_other_writers_write_a_linked_traceback_as_its_plain_text(app: SphinxTestApp) -> None:
    app.build()
    pages = sorted(Path(app.outdir).rglob("*.txt"))
    text = "\n".join(page.read_text() for page in pages)
    assert "Traceback (most recent call last):" in text, [p.name for p in pages]
    # Every frame as the traceback has it, the library's too, and no link markup.
    assert re.search(r'File "flax/[^"]+", line \d+', text)
    assert re.search(r'File "jax/[^"]+", line \d+', text)
    assert "https://github.com/" not in text
    assert "`__" not in text
