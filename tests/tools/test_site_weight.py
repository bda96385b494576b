"""The weight budget of a built site's landing pages (tools/site_weight.py)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from tools.site_weight import BUDGET, landing_pages, main, weigh

if TYPE_CHECKING:
    from pathlib import Path

    import pytest


def _site(tmp_path: Path, entry_bytes: int) -> Path:
    entries = [
        {"url": "api_reference/m/LightError.html#m.LightError"},
        {"url": "api_reference/m/HeavyError.html#m.HeavyError"},
        {"url": "other.html#n.OnItsModulePageError"},
    ]
    (tmp_path / "errors.json").write_text(json.dumps({"entries": entries}))
    (tmp_path / "api_reference" / "m").mkdir(parents=True)
    (tmp_path / "api_reference" / "m.html").write_text("<p>index</p>")
    (tmp_path / "api_reference" / "m" / "LightError.html").write_text("<p>light</p>")
    # Random-looking text: it does not compress away.
    heavy = "".join(f"{n * 7919 % 100003:x}" for n in range(entry_bytes // 4))[:entry_bytes]
    (tmp_path / "api_reference" / "m" / "HeavyError.html").write_text(heavy)
    (tmp_path / "other.html").write_text("<p>other</p>")
    (tmp_path / "error_index.html").write_text("x" * (BUDGET.html * 2))  # not a landing page
    return tmp_path


def test_landing_pages_are_the_entries_pages_and_their_modules_pages(tmp_path: Path) -> None:
    assert landing_pages(_site(tmp_path, 100)) == [
        "api_reference/m.html",
        "api_reference/m/HeavyError.html",
        "api_reference/m/LightError.html",
        "other.html",
    ]


def test_a_page_over_the_budget_fails_and_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _site(tmp_path, BUDGET.html + 1)
    heavy = next(w for w in weigh(root) if w.page.endswith("HeavyError.html"))
    assert heavy.html == BUDGET.html + 1
    assert heavy.over(BUDGET)

    assert main([str(root)]) == 1
    out = capsys.readouterr().out
    assert "over the budget: api_reference/m/HeavyError.html: 128.0 KB" in out
    assert "4 landing pages weighed, 1 over the budget" in out


def test_pages_within_the_budget_pass(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(_site(tmp_path, 1000))]) == 0
    assert "0 over the budget (128 KB, 16 KB gzipped)" in capsys.readouterr().out
