"""pytest plugin (loaded by conftest.py): older Sphinx's test fixtures, as the tests expect them.

``nox -s tests_lowest`` runs the Sphinx test roots on Sphinx 6.2.1. The tests are
written for the fixtures of Sphinx 8.2 and later, which differ from older ones in
three ways they meet; this plugin gives an older Sphinx each one it lacks:

* before 7.2, paths are Sphinx's own type (``sphinx.testing.path.path``, a ``str``
  with ``copytree`` and ``makedirs``), where the tests hand it ``pathlib`` paths;
* before 7.3, a test app keeps what it logged in ``_status`` and ``_warning``, where
  the tests read ``app.status`` and ``app.warning``;
* before 8.2, a test root is copied to its folder only when that folder is not there
  yet, so a test that edits the sources (tests/sphinx/test_build.py does) hands its
  edits to the next test of the same root; since then it is copied afresh each time.
"""

from __future__ import annotations

import importlib
import shutil
from typing import TYPE_CHECKING, Any

import pytest
import sphinx

if TYPE_CHECKING:
    from pathlib import Path
    from typing import IO

    from sphinx.testing.util import SphinxTestApp

OWN_PATHS = sphinx.version_info < (7, 2)
NO_LOG_PROPERTIES = sphinx.version_info < (7, 3)
KEEPS_EDITED_ROOTS = sphinx.version_info < (8, 2)


def _folder(value: Any) -> Any:
    """A folder as the test app takes it: Sphinx's own path type before 7.2."""
    if OWN_PATHS and value is not None:
        return importlib.import_module("sphinx.testing.path").path(value)
    return value


class _Fixtures:
    """Registered after sphinx.testing.fixtures, so that its fixture stands for theirs."""

    @pytest.fixture
    def app_params(
        self, request: pytest.FixtureRequest, sphinx_test_tempdir: Any, rootdir: Path
    ) -> tuple[list[Any], dict[str, Any]]:
        """The ``pytest.mark.sphinx`` arguments, the test root copied afresh to its folder."""
        positional: dict[int, Any] = {}
        kwargs: dict[str, Any] = {}
        for marker in reversed(list(request.node.iter_markers("sphinx"))):
            positional.update(enumerate(marker.args))
            kwargs.update(marker.kwargs)
        root = kwargs.pop("testroot", "root")
        srcdir = _folder(sphinx_test_tempdir / kwargs.get("srcdir", root))
        shutil.copytree(rootdir / f"test-{root}", srcdir, dirs_exist_ok=True)
        kwargs["srcdir"] = srcdir
        return [positional[i] for i in sorted(positional)], kwargs


def _status(app: SphinxTestApp) -> IO[str]:
    return app._status


def _warning(app: SphinxTestApp) -> IO[str]:
    return app._warning


def pytest_configure(config: pytest.Config) -> None:
    """Give this Sphinx's test fixtures and test app what they lack (nothing from 8.2 on)."""
    from sphinx.testing.util import SphinxTestApp

    if KEEPS_EDITED_ROOTS:
        # tests/conftest.py, loaded by now, has registered sphinx.testing.fixtures.
        config.pluginmanager.register(_Fixtures(), "old-sphinx-testing-fixtures")
    if OWN_PATHS:
        setup = SphinxTestApp.__init__

        def __init__(
            self: SphinxTestApp,
            buildername: str = "html",
            srcdir: object = None,
            builddir: object = None,
            *args: Any,
            **kwargs: Any,
        ) -> None:
            setup(self, buildername, _folder(srcdir), _folder(builddir), *args, **kwargs)

        SphinxTestApp.__init__ = __init__  # type: ignore[assignment]
    if NO_LOG_PROPERTIES:
        SphinxTestApp.status = property(_status)  # type: ignore[assignment,method-assign]
        SphinxTestApp.warning = property(_warning)  # type: ignore[assignment,method-assign]
