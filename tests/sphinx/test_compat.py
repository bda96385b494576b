"""What flax_errors_ext.sphinx.compat keeps the same on every Sphinx supported, and its warnings.

``nox -s tests`` runs these on the newest releases, ``nox -s tests_lowest`` on Sphinx
6.2.1 with sphinx-design 0.6.1 and sphinx-reredirects 0.1.4.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest
from sphinx.testing.util import SphinxTestApp

from flax_errors_ext.model.warning_subtypes import WarningSubtype
from flax_errors_ext.sphinx import compat
from tests.utils import entry, module_html, read_catalogue


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


PACKAGE = Path(__file__).parents[2] / "flax_errors_ext"
SUBTYPE_TAKERS = {"warn": 1, "defer": 1, "Failure": 1}
"""Calls that take a warning subtype, and the position of that argument."""


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def warning(self, message: str, **kwargs: Any) -> None:
        self.calls.append((message, kwargs))


@pytest.mark.parametrize("shows_types", [True, False])
def test_a_warning_is_logged_under_its_subtypes_name(
    monkeypatch: pytest.MonkeyPatch, shows_types: bool
) -> None:
    recorder = Recorder()
    monkeypatch.setattr(compat, "LOGGER", recorder)
    monkeypatch.setattr(compat, "SHOWS_WARNING_TYPES", shows_types)

    compat.warn("it drifted", WarningSubtype.DRIFTED, "errors.py:7")

    [(message, kwargs)] = recorder.calls
    assert kwargs == {"type": "flax-errors", "subtype": "drifted", "location": "errors.py:7"}
    assert type(kwargs["subtype"]) is str  # Sphinx matches suppress_warnings on text
    # Sphinx < 7.3 shows no type: the message names it, to suppress it by.
    assert message == ("it drifted" if shows_types else "it drifted [flax-errors.drifted]")


def _subtype_arguments(path: Path) -> list[tuple[int, ast.expr]]:
    """Where ``path`` passes a subtype to a call that takes one: line and expression."""
    found: list[tuple[int, ast.expr]] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name not in SUBTYPE_TAKERS:
            continue
        position = SUBTYPE_TAKERS[name]
        given = [k.value for k in node.keywords if k.arg == "subtype"]
        if len(node.args) > position:
            given.append(node.args[position])
        found.extend((node.lineno, expression) for expression in given)
    return found


def test_every_warning_the_extension_logs_names_an_enum_member() -> None:
    # cli/ reports on a terminal, not through Sphinx: its subtypes are still text.
    paths = [p for p in PACKAGE.rglob("*.py") if "cli" not in p.relative_to(PACKAGE).parts]
    literal = [
        f"{path.relative_to(PACKAGE)}:{line}"
        for path in paths
        for line, expression in _subtype_arguments(path)
        if isinstance(expression, ast.Constant)
    ]
    calls = [1 for path in paths for _ in _subtype_arguments(path)]
    assert len(calls) > 10  # the scan finds the calls
    assert literal == []


def _build_with_unreadable_files(tmp_path: Path, suppressed: list[str]) -> str:
    """The warnings of a build whose history and device run files are missing."""
    (tmp_path / "conf.py").write_text(
        'extensions = ["flax_errors_ext.ext.history", "flax_errors_ext.ext.other_runs"]\n'
        'nb_execution_mode = "off"\n'
        "flax_errors_modules = []\n"
        'flax_errors_history = ["missing-history.json"]\n'
        'flax_errors_device_runs = ["missing-run.json"]\n'
        f"suppress_warnings = {suppressed!r}\n"
    )
    (tmp_path / "index.rst").write_text("Home\n====\n")
    app = SphinxTestApp("html", srcdir=tmp_path)
    try:
        app.build()
    finally:
        app.cleanup()
    return app.warning.getvalue()


def test_what_config_inited_could_not_read_is_warned_of_at_its_setting(tmp_path: Path) -> None:
    warnings = _build_with_unreadable_files(tmp_path, [])

    conf = tmp_path / "conf.py"
    assert f"{conf}:4: WARNING: " in warnings  # flax_errors_history's line
    assert "missing-history.json" in warnings
    assert "[flax-errors.history]" in warnings
    assert f"{conf}:5: WARNING: device run missing-run.json not read" in warnings
    assert "[flax-errors.device-runs]" in warnings


def test_suppress_warnings_silences_one_subtype_by_name(tmp_path: Path) -> None:
    warnings = _build_with_unreadable_files(tmp_path, ["flax-errors.device-runs"])

    assert "missing-run.json" not in warnings
    assert "[flax-errors.history]" in warnings
