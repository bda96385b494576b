"""Where each error lives on the site, and the URLs that lead there.

Every error module has a page, ``api_reference/<module>.html``, with an anchor for
each of its errors named by the error's full dotted name: the layout of Flax's own
error links, so that a URL printed by either maps onto this site by swapping the
base. Each entry also has a page of its own, ``<module page>/<Name>.html`` (as
rustc's error index moved to when its one page grew); the module's page is the
index that printed URLs arrive at.

Part of the runtime: the errors import it to print their URL, so it imports only
the standard library.
"""

from __future__ import annotations

import dataclasses
import os
import posixpath
import re
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Iterable

DEFAULT_BASE_URL = "https://flax-errors.readthedocs.io/en/latest"
BASE_URL_ENV_VAR = "FLAX_ERRORS_BASE_URL"
PAGE_DIR = "api_reference"
FLAX_BASE_URL = "https://flax.readthedocs.io/en/latest"
PAGE_SUFFIX = ".html"
"""What a page's docname becomes in a URL (Sphinx's HTML builder)."""


def base_url(configured: str = DEFAULT_BASE_URL) -> str:
    """The site's base URL: ``$FLAX_ERRORS_BASE_URL`` if set, else ``configured``.

    The runtime has no ``conf.py`` to read, so a site built with another
    ``flax_errors_base_url`` sets the variable where its errors are raised.
    """
    return (os.environ.get(BASE_URL_ENV_VAR) or configured).rstrip("/")


@dataclasses.dataclass(frozen=True)
class EntryLocation:
    """Where one error is shown on the site: a Sphinx docname, and an anchor on it."""

    qualname: str
    page: str
    anchor: str

    @property
    def path(self) -> str:
        """Site-relative, fragment included: ``api_reference/m.html#m.E``."""
        return f"{self.page}{PAGE_SUFFIX}#{self.anchor}"

    def url(self, base: str) -> str:
        """The absolute URL on the site published at ``base``."""
        return f"{base.rstrip('/')}/{self.path}"


class ConfiguredModule(Protocol):
    """A module as configured (a ``ModuleSpec``, which the runtime cannot import)."""

    @property
    def name(self) -> str:
        """The module's dotted name."""

    @property
    def page(self) -> str:
        """The docname of the module's page, or empty (the layout's own)."""


@dataclasses.dataclass(frozen=True)
class SiteLayout:
    """A page per error module, and one per error unless the entries stay on it.

    Where an entry is shown (:meth:`locate`) and where the URL a library prints for
    the error lands (:meth:`printed`) are kept apart, so that every URL printed so
    far still arrives.
    """

    pages: tuple[tuple[str, str], ...] = ()
    """``(module, docname)`` for each module whose page is not ``api_reference/<module>``."""
    per_error: bool = True

    @classmethod
    def of(cls, modules: Iterable[ConfiguredModule], *, per_error: bool = True) -> SiteLayout:
        """The layout of these modules' pages; a later module of a name wins."""
        pages = {module.name: module.page for module in modules}
        return cls(tuple((name, page) for name, page in pages.items() if page), per_error)

    def module_page(self, module: str) -> str:
        """The docname of the page that holds a module's errors."""
        return dict(self.pages).get(module) or f"{PAGE_DIR}/{module}"

    def locate(self, qualname: str) -> EntryLocation:
        """Where the site shows an error's entry: ``<module page>/<Name>``, at its full name.

        The anchor is the module page's, so that a fragment carried on from there
        still names the entry.
        """
        if not self.per_error:
            return self.printed(qualname)
        module, _, name = qualname.rpartition(".")
        return EntryLocation(qualname, f"{self.module_page(module)}/{name}", qualname)

    def printed(self, qualname: str) -> EntryLocation:
        """Where the URL an error prints lands (and a retired error stays): its module's page."""
        module = qualname.rpartition(".")[0]
        return EntryLocation(qualname, self.module_page(module), qualname)

    def linked_pages(self, base: str, module: str, text: str) -> list[str]:
        """The pages of the site at ``base`` that URLs in ``text`` to ``module``'s errors name.

        Only an anchor that names an error of the module counts: a message may also
        link to a guide of that site, which this site neither has nor forwards.
        Each page once, in order.
        """
        link = re.compile(
            re.escape(base.rstrip("/") + "/")
            + r"([\w./-]+?)"
            + re.escape(PAGE_SUFFIX + "#" + module + ".")
        )
        return list(dict.fromkeys(link.findall(text)))

    def forwards(self, module: str, linked: Iterable[str]) -> dict[str, str]:
        """``{old docname: docname}`` for the ``linked`` pages that must forward, anchor kept.

        A path that climbs out of the site forwards nowhere.
        """
        now = self.module_page(module)
        return {old: now for old in linked if old != now and ".." not in old.split("/")}

    @staticmethod
    def forward_uri(old: str, page: str) -> str:
        """The URL by which the page ``old`` forwards to ``page``: relative, for any base."""
        return posixpath.relpath(f"{page}{PAGE_SUFFIX}", posixpath.dirname(old) or ".")


DEFAULT_LAYOUT = SiteLayout()
"""The layout of a site that gives no module a page of its own: this package's errors'."""


def entry_url(qualname: str) -> str:
    """The URL an error of this package prints, on the site its environment names."""
    return DEFAULT_LAYOUT.printed(qualname).url(base_url())
