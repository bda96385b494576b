"""The pages that forward old page paths, written by sphinx-reredirects where pages moved.

Most projects have none, so sphinx-reredirects is an optional extra
(``flax-errors[redirects]``), loaded on ``config-inited`` only once a page is known
to have moved; where it is not installed, one warning names the extra and the
build goes on (the old URLs then land nowhere).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sphinx.errors import ExtensionError

from flax_errors_ext.layout import SiteLayout
from flax_errors_ext.model.warning_subtypes import WarningSubtype
from flax_errors_ext.sphinx import compat
from flax_errors_ext.sphinx.loggers import conf_location

if TYPE_CHECKING:
    from collections.abc import Mapping

    from sphinx.application import Sphinx
    from sphinx.config import Config

    from flax_errors_ext.sphinx.context import BuildContext

EXTENSION = "sphinx_reredirects"
EXTRA = "flax-errors[redirects]"


def forward(app: Sphinx, config: Config, moved: Mapping[str, str], context: BuildContext) -> None:
    """Add a redirect for each moved page, loading sphinx-reredirects if none is loaded.

    On ``config-inited``, so that the redirects count when the environment compares
    this configuration with the last build's. ``moved`` is ``{old docname: docname
    now}``; a page the project has itself is left to it, as are its own ``redirects``.
    """
    suffixes = tuple(config.source_suffix)
    pending = {
        old: SiteLayout.forward_uri(old, now)
        for old, now in moved.items()
        if not any(Path(app.srcdir, old + suffix).exists() for suffix in suffixes)
    }
    if not pending:
        return
    if EXTENSION not in app.extensions:
        try:
            app.setup_extension(EXTENSION)
        except ExtensionError:
            pages = ", ".join(sorted(pending))
            context.defer(
                f"errors link to pages this site keeps elsewhere ({pages}), and "
                f"{EXTENSION}, which would forward them, is not installed: "
                f"pip install {EXTRA}",
                WarningSubtype.REDIRECTS,
                conf_location(app, "extensions"),
            )
            return
        # Loaded after the project's own config-inited handlers ran.
        compat.keep_redirect_anchors(app, config)
    redirects = dict(config.redirects or {})
    for old, uri in pending.items():
        redirects.setdefault(old, uri)
    config.redirects = redirects
