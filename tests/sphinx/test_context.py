"""The build context: made once, moved onto the environment, pickled without its session."""

from __future__ import annotations

import ast
import pickle
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, cast

import pytest

from flax_errors_ext.model.config import CatalogueConfig
from flax_errors_ext.model.warning_subtypes import WarningSubtype
from flax_errors_ext.sphinx.context import (
    BuildContext,
    build_context,
    hold,
    settle,
)

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

    from flax_errors_ext.execution.runs.run import RunSettings
    from flax_errors_ext.execution.session import Session

PACKAGE = Path(__file__).parents[2] / "flax_errors_ext"


class FakeSession:
    """What the context asks of a session: its settings, and to close."""

    def __init__(self, fingerprint: str) -> None:
        self.fingerprint = fingerprint
        self.closed = False

    def settings(self) -> RunSettings:
        return cast("RunSettings", SimpleNamespace(fingerprint=self.fingerprint))

    def close(self) -> None:
        self.closed = True


def _context() -> BuildContext:
    return BuildContext(
        config=CatalogueConfig.from_values({}),
        catalogue_folders=(Path("catalogue"),),
        histories={},
    )


def _started(fingerprint: str, last: BuildContext | None = None) -> BuildContext:
    context = _context()
    context.start(cast("Session", FakeSession(fingerprint)), ("/project",), last)
    return context


def _app(**env: object) -> Sphinx:
    """An application with an environment that has the attributes ``env``."""
    return cast("Sphinx", SimpleNamespace(env=SimpleNamespace(**env)))


def test_the_context_is_pickled_without_its_live_session() -> None:
    context = _started("cpu")

    again = pickle.loads(pickle.dumps(context))

    assert context.session is not None  # the live one keeps it
    assert again.session is None
    assert again.config == context.config
    assert again.catalogue_folders == (Path("catalogue"),)
    assert again.published_roots[0] == "/project"


def test_the_run_settings_are_there_once_the_session_is_open() -> None:
    context = _context()
    with pytest.raises(LookupError, match="builder-inited"):
        _ = context.run
    context.start(cast("Session", FakeSession("cpu")), ("/project",), None)
    assert cast("object", context.run.fingerprint) == "cpu"


def test_every_page_is_read_again_when_the_fingerprint_changed() -> None:
    assert _started("cpu").changed  # no last build
    last = pickle.loads(pickle.dumps(_started("cpu")))
    assert not _started("cpu", last).changed
    assert _started("gpu", last).changed


def test_closing_closes_the_session() -> None:
    context = _started("cpu")
    context.close()
    assert cast("FakeSession", context.session).closed
    _context().close()  # none open: nothing to do


def test_deferred_warnings_are_handed_out_once_in_order() -> None:
    context = _context()
    context.defer("first", WarningSubtype.HISTORY, "conf.py:3")
    context.defer("second", WarningSubtype.DEVICE_RUNS, "conf.py:4")

    assert context.take_deferred() == [
        ("first", WarningSubtype.HISTORY, "conf.py:3"),
        ("second", WarningSubtype.DEVICE_RUNS, "conf.py:4"),
    ]
    assert context.take_deferred() == []


def test_the_application_holds_the_context_until_it_settles_on_the_environment() -> None:
    app = _app()
    with pytest.raises(LookupError):
        build_context(app.env)
    context = _context()
    hold(app, context)

    settled, last = settle(app)

    assert settled is context
    assert last is None
    assert build_context(app.env) is context
    assert not hasattr(app, "flax_errors_context")


def test_settling_hands_back_the_context_the_last_build_pickled() -> None:
    previous = pickle.loads(pickle.dumps(_started("cpu")))
    app = _app(flax_errors_context=previous)
    hold(app, _context())

    _, last = settle(app)

    assert last is previous


def test_something_else_under_the_name_is_no_context() -> None:
    env = cast("BuildEnvironment", SimpleNamespace(flax_errors_context="stale"))
    with pytest.raises(LookupError):
        build_context(env)


def _imports(path: Path) -> set[str]:
    """The package's modules ``path`` imports, wherever in it (late and type-only too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in found if name.startswith("flax_errors_ext.")}


def test_the_sphinx_layer_has_no_import_circle() -> None:
    # compat once imported build late, for WORK_DIR: build -> compat -> build.
    modules = {
        ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts): path
        for path in (PACKAGE / "sphinx").rglob("*.py")
    }
    graph = {name: _imports(path) & set(modules) for name, path in modules.items()}

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        for name in graph[start] - seen:
            seen.add(name)
            if name == goal or reaches(name, goal, seen):
                return True
        return False

    circles = sorted(name for name in graph if reaches(name, name, set()))
    assert circles == []
