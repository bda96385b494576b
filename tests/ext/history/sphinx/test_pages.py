"""Each error's history on the site: a built ``tests/roots/test-history``."""

from __future__ import annotations

import importlib.metadata
import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sphinx.testing.util import SphinxTestApp

from flax_errors_ext.execution.catalogue.modules import load_module
from flax_errors_ext.ext.history.model.cells import entry_codes
from tests.utils import module_html
from tools.site_links import check_site

MakeApp = Callable[..., SphinxTestApp]
ROOT = Path(__file__).parents[3] / "roots" / "test-history"

STALE_TEXT = "STALE TEXT FROM OLD CODE"
RECORDED_TEXT = "RECORDED FOR THIS RELEASE"
REWRITTEN = {"old": "jax.random.key(", "new": "jax.random.PRNGKey("}


def _section(page: str, qualname: str) -> str:
    start = page.index(f'id="{qualname}"')
    end = page.find("<section", start + 1)
    return page[start : end if end > 0 else len(page)]


def _cells(html: str) -> list[tuple[str, str, str]]:
    """(classes, tooltip, text) of each cell."""
    return re.findall(
        r'<span class="flax-errors-cell ([^"]*)" title="([^"]*)">([^<]*)</span>', html
    )


def _project(tmp_path: Path, installed: str) -> Path:
    """The test root, with a record of the installed Flax that the build must replace."""
    srcdir = tmp_path / "history"
    shutil.copytree(ROOT, srcdir)
    path = srcdir / "history.json"
    data: dict[str, Any] = json.loads(path.read_text())
    kept = data["releases"][-1]["entries"]["KeptError"]
    text = f"history_errors.KeptError: {RECORDED_TEXT}"
    mine = dict(data["releases"][-1], flax=installed)
    mine["entries"] = {
        "KeptError": {"present": True, "examples": [dict(kept["examples"][0], exc_text=text)]}
    }
    # Its example ran rewritten for old APIs on the two oldest releases (rewrites.toml).
    for record in data["releases"][:2]:
        record["entries"]["KeptError"]["examples"][0]["rewritten"] = [REWRITTEN]
    data["releases"].append(mine)
    path.write_text(json.dumps(data))
    return srcdir


def test_the_site_shows_each_errors_history_and_flags_a_stale_one(
    make_app: MakeApp, tmp_path: Path
) -> None:
    installed = importlib.metadata.version("flax")
    app = make_app("html", srcdir=_project(tmp_path, installed), parallel=2)
    app.build()

    assert app.statuscode == 0
    warnings = app.warning.getvalue()
    out = Path(app.outdir)
    page = module_html(out, "api_reference/history_errors")
    index = (out / "errors.html").read_text()

    _assert_kept_entry_shows_its_history(page, index, installed)
    _assert_edited_entry_is_flagged_stale(page, index, warnings)
    _assert_retired_class_has_a_short_entry(page)
    _assert_index_shows_every_error_by_release(index)
    assert check_site(out).broken == []


def _assert_kept_entry_shows_its_history(page: str, index: str, installed: str) -> None:
    """The entry kept up to date: its strip, and its line under the verification line.

    The strip has one cell per release and the build's last.
    """
    kept = _section(page, "history_errors.KeptError")
    assert kept.index("flax-errors-status") < kept.index("flax-errors-history")
    cells = _cells(kept)
    assert [(c[0], c[2]) for c in cells] == [
        ("not-present", "0.1"),
        ("changed", "0.2"),
        ("same", "0.3"),
        ("same current", ".".join(installed.split(".")[:2])),
    ]
    assert cells[0][1] == (
        "flax 0.1.0: not in history_errors&#10;raised history_errors.OldError: kept went old"
        " (run as rewritten for this release: jax.random.key( → jax.random.PRNGKey()"
    )
    assert cells[-1][1].startswith(f"flax {installed} (this build): raised with the latest text")
    assert "«kept: dropped on the floor" in cells[-1][1]
    assert "Raised with this text since 0.3.0; before that: «kept: fell down» (0.2.0)." in kept
    assert "Run as rewritten for flax 0.1.0-0.2.0: jax.random.key( → jax.random.PRNGKey(." in kept
    # The build's own run of the installed release, never what the file recorded for it.
    assert RECORDED_TEXT not in page + index


def _assert_edited_entry_is_flagged_stale(page: str, index: str, warnings: str) -> None:
    """The entry whose example changed since: a warning that names it, and a note.

    The note stands instead of its records; none of what the old code raised is shown.
    """
    assert "[flax-errors.history-stale]" in warnings
    assert re.search(
        r"history_errors\.py:\d+: WARNING: history_errors\.EditedError: \S*history\.json has "
        r"no record of its bad examples as they are now on flax 0\.1\.0-0\.3\.0",
        warnings,
    )
    assert warnings.count("[flax-errors.history-stale]") == 1  # not KeptError
    edited = _section(page, "history_errors.EditedError")
    assert (
        "History of flax 0.1.0-0.3.0 not shown: history.json has no record of this entry's "
        "bad examples as they are now"
    ) in edited.replace("\u2019", "'")  # Sphinx's smart quotes
    assert [c[0] for c in _cells(edited)] == ["stale", "stale", "stale", "same current"]
    assert STALE_TEXT not in page + index
    assert "Raised with this text in every release shown" in edited


def _assert_retired_class_has_a_short_entry(page: str) -> None:
    """The retired class: its old anchor lands on a short entry at the end of the page."""
    assert page.index('id="retired-history-errors"') > page.index(
        'id="history_errors.EditedError"'
    )
    retired = _section(page, "history_errors.OldError")
    assert re.search(r'<p class="[^"]*\bflax-errors-retired-name\b[^"]*">OldError</p>', retired)
    assert (
        "In history_errors from 0.1.0 to 0.2.0; gone since 0.3.0. Last raised in 0.1.0 (by "
        "the example of KeptError, run as rewritten for that release: jax.random.key( → "
        "jax.random.PRNGKey(): «kept went old». The same code raises KeptError today."
    ) in retired


def _assert_index_shows_every_error_by_release(index: str) -> None:
    """The index: after the areas, every error by release, in a box of its own."""
    matrix = index[index.index('id="history-history-errors"') :]
    assert index.index('id="area-history-errors"') < index.index('id="history-history-errors"')
    assert 'href="#history-history-errors"' in index
    assert '<div class="flax-errors-matrix-box' in matrix
    rows = re.findall(r'<tr class="row-\w+"><td><p><a [^>]*href="([^"]+)"', matrix)
    assert rows == [
        "api_reference/history_errors/EditedError.html#history_errors.EditedError",
        "api_reference/history_errors/KeptError.html#history_errors.KeptError",
        "api_reference/history_errors.html#history_errors.OldError",
    ]
    assert "(retired)" in matrix


def test_a_history_recorded_again_is_shown_on_the_next_build(
    make_app: MakeApp, tmp_path: Path
) -> None:
    srcdir = tmp_path / "history"
    shutil.copytree(ROOT, srcdir)
    make_app("html", srcdir=srcdir).build()
    # nox -s history records the edited example again: its page is read again.
    path = srcdir / "history.json"
    data = json.loads(path.read_text())
    (code,) = entry_codes(load_module("history_errors").entries)["EditedError"]
    for record in data["releases"][:3]:
        record["entries"]["EditedError"]["examples"][0]["code"] = code
    path.write_text(json.dumps(data))

    again = make_app("html", srcdir=srcdir)
    again.build()

    assert "history-stale" not in again.warning.getvalue()
    page = module_html(Path(again.outdir), "api_reference/history_errors")
    edited = _section(page, "history_errors.EditedError")
    assert "not shown" not in edited
    assert STALE_TEXT in edited  # what the file now says that code raised


def test_a_history_file_that_cannot_be_read_is_a_warning_at_conf_py(
    make_app: MakeApp, tmp_path: Path
) -> None:
    srcdir = tmp_path / "history"
    shutil.copytree(ROOT, srcdir)
    (srcdir / "history.json").write_text("{not json", encoding="utf-8")
    app = make_app("html", srcdir=srcdir, confoverrides={"nb_execution_mode": "off"})
    app.build()

    warnings = app.warning.getvalue()
    assert "conf.py:8: WARNING: history file " in warnings, warnings  # where it is set
    assert "history.json not read:" in warnings
    assert "[flax-errors.history]" in warnings
