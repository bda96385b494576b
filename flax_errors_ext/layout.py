"""Where each error lives on the site, and the URLs that lead there.

A module's page, ``api_reference/<module>.html``, has an anchor per error named by its
dotted name, as Flax's own error links do: a URL either prints maps onto this site by
swapping the base. Each entry also has a page, ``<module page>/<Name>.html``. The errors
import this to print their URL, so it imports only the standard library.
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
    """``$FLAX_ERRORS_BASE_URL`` if set (the runtime reads no ``conf.py``), else ``configured``."""
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

        The anchor is the module page's, so that a fragment carried on still names the entry.
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
        """The pages at ``base`` that ``text`` links to at an error of ``module``, in order."""
        start = re.escape(base.rstrip("/") + "/")
        end = re.escape(f"{PAGE_SUFFIX}#{module}.")
        return list(dict.fromkeys(re.findall(rf"{start}([\w./-]+?){end}", text)))

    def forwards(self, module: str, linked: Iterable[str]) -> dict[str, str]:
        """``{old docname: docname}`` for the ``linked`` pages that must forward, anchor kept."""
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
