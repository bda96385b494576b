"""pytest plugin for the hooked run of ``nox -s flax_suite``: the jit hook, live throughout.

Loaded with ``-p tools.flax_suite.plugin`` (the repository on ``PYTHONPATH``), it

* calls :func:`flax_errors_ext.install` before any test module is imported;
* after every test, checks that JAX's table still holds the entry ``install()`` made:
  a test that removed or replaced it gets a teardown error naming it, and the hook
  is put back so that the tests after it still run under it;
* appends the tests of ``sentinel.py`` to the run, last, whatever was selected: they
  pass only if ``jax.jit`` on a Linen Module raises ``JitPytreeError`` at that point.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import flax_errors_ext

if TYPE_CHECKING:
    from collections.abc import Generator

SENTINEL = Path(__file__).with_name("sentinel.py")
SENTINEL_NODEID = "tools/flax_suite/sentinel.py"
"""Its path in this repository. pytest would name a file outside the rootdir (Flax's
source tree) by an empty path, and JUnit XML would lose which file it was."""

_installed: object = None
"""The entry ``install()`` put in ``pytype_aval_mappings`` for Module."""


def _module_entry() -> object:
    from flax import linen as nn
    from jax._src import core

    return core.pytype_aval_mappings.get(nn.Module)


def pytest_configure() -> None:
    """Install the hook before collection, so that test modules import under it too."""
    global _installed  # noqa: PLW0603 - one hook per process, like the hook itself
    flax_errors_ext.install()
    _installed = _module_entry()
    if _installed is None:
        raise pytest.UsageError("flax_suite: install() left no entry for flax.linen.Module")


def pytest_unconfigure() -> None:
    """Leave the process as it was found."""
    flax_errors_ext.uninstall()


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session: pytest.Session, items: list[pytest.Item]) -> None:
    """Append the sentinel's tests after every other plugin has selected and ordered."""
    sentinel = pytest.Module.from_parent(session, path=SENTINEL, nodeid=SENTINEL_NODEID)
    items.extend(session.genitems(sentinel))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Generator[None, None, None]:
    """After the test's own teardown, fail it if the hook is no longer JAX's entry."""
    # A finally, so that a test whose own teardown fails is checked as well; the
    # check's error then carries the teardown's as its context.
    try:
        return (yield)
    finally:
        _require_hook(item.nodeid)


def _require_hook(nodeid: str) -> None:
    found = _module_entry()
    if found is _installed:
        return
    # Reinstalled so that the tests after this one still run under the hook.
    flax_errors_ext.uninstall()
    flax_errors_ext.install()
    raise RuntimeError(
        f"flax_suite: the jit hook is no longer installed after {nodeid}: JAX's entry for "
        f"flax.linen.Module is {found!r}, not the one install() made ({_installed!r})"
    )
