"""tools/compare_builds.py on tiny hand-made builds: what it reports, and what it lets pass."""

from __future__ import annotations

import copy
import json
import zlib
from pathlib import Path
from typing import Any

import pytest

from tools.compare_builds import VOLATILE_TEXT, Normaliser, main

ENTRY: dict[str, Any] = {
    "name": "Boom",
    "qualname": "pkg.errors.Boom",
    "url": "api_reference/pkg.errors.html#pkg.errors.Boom",
    "source": "pkg/errors.py:10",
    "status": "passed",
    "executed": True,
    "versions": {"jax": "0.12.0", "flax": "0.12.12"},
    "examples": [
        {
            "kind": "bad",
            "status": "passed",
            "expected": 'pkg.errors.Boom: cannot write ".../out.json"\n',
            "actual": 'pkg.errors.Boom: cannot write "/tmp/tmp64dqtndk/out.json"\n',
            "seconds": 0.0622,
        }
    ],
}
OTHER: dict[str, Any] = {**ENTRY, "name": "Bang", "qualname": "pkg.errors.Bang"}

ARTICLE = """
<section id="boom"><h1>Boom<a class="headerlink" href="#boom">#</a></h1>
<p>Raised when   the thing
   goes boom.</p>
<pre>Traceback (most recent call last):
  File "/tmp/ipykernel_4242/31337.py", line 3
pkg.errors.Boom: cannot write "/tmp/tmp64dqtndk/out.json"</pre>
<p class="verified">Last verified 2026-12-02 13:34 UTC, in 1.25 s.</p>
</section>
"""


def page(
    article: str = ARTICLE, *, updated: str = "2026-12-02 13:34", digest: str = "5d1f"
) -> str:
    """A page laid out as sphinx-book-theme lays one out, with its chrome around the article."""
    return f"""<!DOCTYPE html>
<html><head><title>Boom</title>
<link rel="stylesheet" href="_static/theme.css?digest={digest}" />
<script src="_static/theme.js?digest={digest}"></script></head>
<body><div class="bd-sidebar-primary"><a href="index.html">Home</a></div>
<main id="main-content" class="bd-main" role="main"><div class="bd-content">
<div class="bd-article-container"><article class="bd-article">{article}</article>
<footer class="bd-footer-content"><p class="last-updated">Last updated on {updated} UTC.
</p></footer></div></div></main></body></html>
"""


def build(
    folder: Path,
    entries: list[dict[str, Any]] | None = None,
    pages: dict[str, str] | None = None,
    inventory: str = "pkg.errors.Boom py:exception 1 api_reference/pkg.errors.html#$ -",
) -> Path:
    """A built site's HTML folder: errors.json, pages, objects.inv."""
    html = folder / "docs" / "_build" / "html"
    html.mkdir(parents=True)
    entries = copy.deepcopy([ENTRY] if entries is None else entries)
    document = {"schema": 1, "executed": [e["qualname"] for e in entries], "entries": entries}
    (html / "errors.json").write_text(json.dumps(document, indent=1), encoding="utf-8")
    pages = {"index.html": page(), "api_reference/pkg.errors.html": page()} | (pages or {})
    for name, text in pages.items():
        (html / name).parent.mkdir(parents=True, exist_ok=True)
        (html / name).write_text(text, encoding="utf-8")
    (html / "_static").mkdir()
    (html / "_static" / "theme.html").write_text("<p>a theme template, not a page</p>")
    header = b"# Sphinx inventory version 2\n# Project: x\n# Version: \n# zlib\n"
    (html / "objects.inv").write_bytes(header + zlib.compress(inventory.encode() + b"\n"))
    return html


def run(before: Path, after: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    status = main([str(before), str(after)])
    captured = capsys.readouterr()
    return status, captured.out + captured.err


def test_identical_builds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run(build(tmp_path / "a"), build(tmp_path / "b"), capsys)
    assert status == 0
    assert out.splitlines() == [
        "2 pages compared, 2 identical; errors.json: 1 entries, identical; "
        "objects.inv: 1 entries, identical"
    ]


def test_changed_entry_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    changed = copy.deepcopy(ENTRY)
    changed["examples"][0]["actual"] = "pkg.errors.Boom: cannot overwrite a file\n"
    status, out = run(build(tmp_path / "a"), build(tmp_path / "b", [changed]), capsys)
    assert status == 1
    assert "errors.json: 1 entries, 1 differences" in out
    assert "--- entries[pkg.errors.Boom].examples[0].actual" in out
    assert '\n-pkg.errors.Boom: cannot write "<tmp>/out.json"\n' in out
    assert "\n+pkg.errors.Boom: cannot overwrite a file\n" in out


def test_changed_status_and_entry_only_in_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    failed = {**copy.deepcopy(ENTRY), "status": "drifted"}
    # Entries are matched by qualname: the new one comes first and moves nothing.
    status, out = run(build(tmp_path / "a"), build(tmp_path / "b", [OTHER, failed]), capsys)
    assert status == 1
    assert "errors.json: 1 -> 2 entries, 2 differences" in out
    assert "--- entries[pkg.errors.Bang]\nonly after" in out
    assert "--- entries[pkg.errors.Boom].status\n- passed\n+ drifted\n" in out


def test_page_only_in_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    after = build(tmp_path / "b", pages={"api_reference/pkg.more.html": page()})
    status, out = run(build(tmp_path / "a"), after, capsys)
    assert status == 1
    assert out.startswith("2 pages compared, 2 identical;")
    assert "--- api_reference/pkg.more.html\npage only after" in out


def test_volatile_values_are_left_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rerun = copy.deepcopy(ENTRY)
    example = rerun["examples"][0]
    example["seconds"] = 3.5
    example["actual"] = example["actual"].replace("tmp64dqtndk", "tmpq_9x2b7a")
    rerun["executed"] = False  # the cache answered
    rerun["versions"] = {"flax": "0.12.12", "jax": "0.12.0"}  # key order is not data
    article = (
        ARTICLE.replace("ipykernel_4242/31337", "ipykernel_977/80211")
        .replace("tmp64dqtndk", "tmpq_9x2b7a")
        .replace("2026-12-02 13:34", "2026-12-03 09:01")
        .replace("1.25 s", "0.97 s")
    )
    after = build(tmp_path / "b", [rerun], {"index.html": page(article)})
    status, out = run(build(tmp_path / "a"), after, capsys)
    assert status == 0, out
    assert out.startswith("2 pages compared, 2 identical; errors.json: 1 entries, identical;")
    # The cache's part is said, never silently dropped.
    assert "note: errors.json: 2 volatile values differ, not counted" in out
    assert "entries[pkg.errors.Boom].executed" in out


def test_changed_page_body(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    article = ARTICLE.replace("goes boom", "goes bang").replace('id="boom"', 'id="bang"')
    after = build(tmp_path / "b", pages={"api_reference/pkg.errors.html": page(article)})
    status, out = run(build(tmp_path / "a"), after, capsys)
    assert status == 1
    assert out.startswith("2 pages compared, 1 identical;")
    diff = out.split("--- api_reference/pkg.errors.html\n", 1)[1]
    assert '-<section id="boom">' in diff
    assert '+<section id="bang">' in diff
    assert "-Raised when the thing goes boom." in diff
    assert "+Raised when the thing goes bang." in diff


def test_redirect_page_is_compared_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def redirect(target: str) -> str:
        return f'<html><head><meta http-equiv="refresh" content="0; url={target}"></head></html>'

    before = build(tmp_path / "a", pages={"old.html": redirect("api_reference/pkg.errors.html")})
    after = build(tmp_path / "b", pages={"old.html": redirect("api_reference/pkg.boom.html")})
    status, out = run(before, after, capsys)
    assert status == 1
    assert '+<meta content="0; url=api_reference/pkg.boom.html" http-equiv="refresh">' in out


def test_long_diffs_are_capped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = "".join(f"<p>line {n}</p>" for n in range(200))
    before = build(tmp_path / "a", pages={"index.html": page(lines)})
    after = build(tmp_path / "b", pages={"index.html": page(lines.replace("line", "row"))})
    status, out = run(before, after, capsys)
    assert status == 1
    assert len(out.splitlines()) < 50
    assert "more lines of diff" in out


def test_theme_chrome_is_ignored(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    chrome = page(updated="2027-01-01 00:00", digest="9e2c").replace("Home", "Start")
    after = build(tmp_path / "b", pages={"index.html": chrome})
    status, out = run(build(tmp_path / "a"), after, capsys)
    assert status == 0, out
    # The same change inside the article is not chrome.
    inside = page(ARTICLE + "<p>Home</p>")
    again = build(tmp_path / "c", pages={"index.html": inside})
    status, out = run(build(tmp_path / "d"), again, capsys)
    assert status == 1
    assert "+<p>\n+Home\n+</p>" in out


def test_checkout_folders_are_left_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def traceback(checkout: Path) -> str:
        return f"<pre>File {checkout.resolve()}/pkg/errors.py:10</pre>"

    before = build(tmp_path / "a", pages={"index.html": page(traceback(tmp_path / "a"))})
    after = build(tmp_path / "b", pages={"index.html": page(traceback(tmp_path / "b"))})
    status, out = run(before, after, capsys)
    assert status == 0, out
    # Another folder is not the checkout.
    elsewhere = build(tmp_path / "c", pages={"index.html": page(traceback(tmp_path / "x"))})
    status, out = run(before, elsewhere, capsys)
    assert status == 1
    assert "x/pkg/errors.py:10" in out


def test_changed_inventory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    moved = "pkg.errors.Boom py:exception 1 api_reference/pkg.boom.html#$ -"
    status, out = run(build(tmp_path / "a"), build(tmp_path / "b", inventory=moved), capsys)
    assert status == 1
    assert "objects.inv: 1 entries, 1 differences" in out
    assert f"+{moved}" in out


@pytest.mark.parametrize("missing", ["errors.json", "index.html"])
def test_not_a_build(tmp_path: Path, capsys: pytest.CaptureFixture[str], missing: str) -> None:
    broken = build(tmp_path / "b")
    (broken / missing).unlink()
    status, out = run(build(tmp_path / "a"), broken, capsys)
    assert status == 2
    assert out.startswith(f"{broken}: no {missing}")


@pytest.mark.parametrize(
    ("text", "normalised"),
    [
        ("Last updated on 2026-12-02 13:34 UTC.", "Last updated on <time>."),
        ("at 2026-12-02T13:45:07.123+00:00", "at <time>"),
        ("ran in 12.3 s, then 0.42 seconds", "ran in <duration>, then <duration>"),
        ("<function f at 0x7f3a2c1b0d30>", "<function f at 0x<address>>"),
        ('"/tmp/tmp64dqtndk/out.json"', '"<tmp>/out.json"'),
        ("File /tmp/ipykernel_4242/31337.py:3", "File /tmp/ipykernel_<pid>/<cell>.py:3"),
        ("worker (pid 81234) died", "worker (pid <pid>) died"),
        (
            "File /w/.nox/docs-3-13/lib/python3.13/site-packages/flax/errors.py:9",
            "File <site-packages>/flax/errors.py:9",
        ),
        ("theme.css?digest=5d1f0a", "theme.css?digest=<hash>"),
        (
            "File /home/me/repo/.nox/docs/lib/python3.13/site-packages/flax/errors.py:9",
            "File <site-packages>/flax/errors.py:9",
        ),
        # Content that merely looks like it is kept.
        ("released 2026-12-02", "released 2026-12-02"),
        ("mask 0xff, 3 s, 12 errors", "mask 0xff, 3 s, 12 errors"),
        ("/tmp/data/tmp.json", "/tmp/data/tmp.json"),
    ],
)
def test_volatile_text(text: str, normalised: str) -> None:
    assert Normaliser(Path("/home/me/repo"))(text) == normalised


def test_every_volatile_pattern_is_tested() -> None:
    tested = [
        "2026-12-02 13:34 UTC",
        "12.3 s",
        "0x7f3a2c1b0d30",
        "/tmp/tmp64dqtndk",
        "ipykernel_4242/31337.py",
        "pid 81234",
        "/w/lib/python3.13/site-packages/",
        "?digest=5d1f0a",
    ]
    assert len(tested) == len(VOLATILE_TEXT)
    for (pattern, _), sample in zip(VOLATILE_TEXT, tested, strict=True):
        assert pattern.search(sample), pattern.pattern
