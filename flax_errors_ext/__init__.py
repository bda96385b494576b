"""flax-errors: an executable error catalogue for Flax.

Two things live here:

* the runtime hook that turns JAX's confusing errors about Linen Modules passed through
  transformations into :class:`flax_errors_ext.errors.JitPytreeError`
  (:func:`install` / :func:`uninstall`; importing this package changes nothing);
* the Sphinx extension (add ``"flax_errors_ext"`` to ``extensions``) that builds the
  catalogue, executes every documented example and fails the build on drift.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from flax_errors_ext.jit_hook import install, uninstall
from flax_errors_ext.version import __version__

if TYPE_CHECKING:
    from sphinx.application import Sphinx

__all__ = ["__version__", "install", "setup", "uninstall"]


def setup(app: Sphinx) -> dict[str, Any]:
    """Sphinx entry point; the extension lives in :mod:`flax_errors_ext.sphinx`."""
    # Imported here so that the runtime hook never pulls in Sphinx.
    from flax_errors_ext.sphinx import setup as setup_sphinx

    return setup_sphinx(app)
