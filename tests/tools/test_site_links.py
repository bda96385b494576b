"""The offline link check of a built site (tools/site_links.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tools.site_links import check_site

if TYPE_CHECKING:
    from pathlib import Path


def test_link_check_reports_missing_pages_and_anchors(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text(
        '<a id="top" href="#top">ok</a> <a href="other.html#nowhere">bad anchor</a>'
        ' <a href="missing.html">bad page</a> <a href="https://example.org/">external</a>'
    )
    (tmp_path / "other.html").write_text('<section id="here"></section>')
    report = check_site(tmp_path)
    assert [link.target for link in report.broken] == ["other.html#nowhere", "missing.html"]
    assert [link.target for link in report.external] == ["https://example.org/"]
