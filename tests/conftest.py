"""Shared fixtures: Sphinx's testing plugin over the roots in tests/roots/, the browser."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from flax_errors_ext.cli.selection import CACHE_ENV
from tests.root_modules import forget_root_modules

if TYPE_CHECKING:
    from collections.abc import Iterator

    from playwright.sync_api import Browser, Page

# The second gives an older Sphinx (nox -s tests_lowest) the fixtures of today's.
pytest_plugins = ("sphinx.testing.fixtures", "tests.old_sphinx_testing")

ROOTS = Path(__file__).parent / "roots"


@pytest.fixture(scope="session")
def rootdir() -> Path:
    return ROOTS


@pytest.fixture(autouse=True)
def _forget_root_modules() -> Iterator[None]:
    """Each test imports its root's error module afresh, as a new sphinx-build would."""
    before = set(sys.modules)
    yield
    forget_root_modules(before)


@pytest.fixture(scope="session")
def snapshot_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder of catalogue snapshots (``flax-errors explain``'s) for the session."""
    return tmp_path_factory.mktemp("catalogue-snapshots")


@pytest.fixture(autouse=True)
def _own_snapshots(snapshot_folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads or writes the user's own catalogue snapshots."""
    monkeypatch.setenv(CACHE_ENV, str(snapshot_folder))


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's chromium, headless, for the tests of one module (``NEEDS_CHROMIUM`` them)."""
    # Imported here, not above: playwright takes a third of a second to import, and
    # most runs open no browser.
    from tests.chromium import launched_chromium

    yield from launched_chromium()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A fresh tab that fails the test on any dialog (an ``alert`` means injected script).

    Or on any file the site lacks, or any request to the network (:func:`watched_tab`).
    """
    from tests.chromium import PAGE_HEIGHT, PAGE_WIDTH, watched_tab

    yield from watched_tab(browser, width=PAGE_WIDTH, height=PAGE_HEIGHT)


_RUNNING_FIXTURES = {"app", "make_app"}
"""Sphinx test apps: their builds run the root's examples."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that builds a Sphinx test root as one that runs examples.

    Modules and tests that run examples otherwise mark themselves; ``-m "not
    examples"`` then runs the fast unit tests alone.
    """
    for item in items:
        if _RUNNING_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.examples)
