"""Where this package's errors live on the site.

By default every error module gets one page, ``api_reference/<module>.html``, and
every error an anchor on it named by its full dotted name. This is the layout
Flax's own error links use (``api_reference/flax.errors.html#flax.errors.<Name>``),
so a URL printed by either maps onto this site by swapping the base. A project can
give a module another page (JAX's errors live at ``errors.html``): see
:class:`flax_errors_ext.model.config.ModuleSpec`.
"""

from __future__ import annotations

import os

DEFAULT_BASE_URL = "https://flax-errors.readthedocs.io/en/latest"
"""Where the published catalogue lives unless ``FLAX_ERRORS_BASE_URL`` says otherwise."""

BASE_URL_ENV_VAR = "FLAX_ERRORS_BASE_URL"
PAGE_DIR = "api_reference"
FLAX_BASE_URL = "https://flax.readthedocs.io/en/latest"


def base_url(configured: str = DEFAULT_BASE_URL) -> str:
    """The site's base URL: ``$FLAX_ERRORS_BASE_URL`` if set, else ``configured``.

    The runtime has no ``conf.py`` to read, so the errors this package raises print
    the default unless the environment says otherwise; a site built with another
    ``flax_errors_base_url`` (see the options page) sets the variable where it runs.
    """
    return (os.environ.get(BASE_URL_ENV_VAR) or configured).rstrip("/")


def page_docname(module: str) -> str:
    """The Sphinx docname of the page that holds a module's errors."""
    return f"{PAGE_DIR}/{module}"


def entry_path(qualname: str) -> str:
    """The site-relative path and fragment of an entry: ``api_reference/m.html#m.E``."""
    module, _, _ = qualname.rpartition(".")
    return f"{page_docname(module)}.html#{qualname}"


def entry_url(qualname: str) -> str:
    """The absolute URL of an error's entry on the configured site."""
    return f"{base_url()}/{entry_path(qualname)}"
