"""flax-errors: an executable error catalogue for Flax.

:func:`install` turns JAX's errors about Linen Modules in transformations into
:class:`~flax_errors_ext.errors.JitPytreeError`, and ends a catalogued uncaught error in
its fix and URL (``%load_ext flax_errors_ext`` in IPython). As a Sphinx extension it builds
the catalogue, executes every documented example and fails the build on drift.
"""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING, Any

from flax_errors_ext import help as _help
from flax_errors_ext import jit_hook
from flax_errors_ext.version import __version__

if TYPE_CHECKING:
    from sphinx.application import Sphinx

__all__ = ["__version__", "install", "load_ipython_extension", "setup", "uninstall"]


def install() -> None:
    """Give Modules in JAX transformations a Flax error, and catalogued errors their help.

    Idempotent. Undo with :func:`uninstall`. See :func:`flax_errors_ext.jit_hook.install`
    and :func:`flax_errors_ext.help.install`.
    """
    jit_hook.install()
    _help.install()


def uninstall() -> None:
    """Remove every hook :func:`install` set; idempotent."""
    _help.uninstall()
    jit_hook.uninstall()


def load_ipython_extension(shell: Any) -> None:
    """``%load_ext flax_errors_ext``: :func:`install` in this shell (without Flax: the help)."""
    if importlib.util.find_spec("flax") is not None:
        jit_hook.install()
    _help.install(shell)


def unload_ipython_extension(shell: Any) -> None:
    """``%unload_ext flax_errors_ext``: :func:`uninstall`."""
    uninstall()


def setup(app: Sphinx) -> dict[str, Any]:
    """Sphinx entry point; the extension lives in :mod:`flax_errors_ext.sphinx`."""
    # Imported here so that the runtime hook never pulls in Sphinx.
    from flax_errors_ext.sphinx import setup as setup_sphinx

    return setup_sphinx(app)
