"""The catalogue a command works on: the modules it reads and the entries it picks."""

from __future__ import annotations

import dataclasses
import os
import sys
from typing import TYPE_CHECKING

from flax_errors_ext.cli.parser import DEFAULT_MODULES
from flax_errors_ext.core import lookup
from flax_errors_ext.core.discover import DiscoveryError, discover

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

    from flax_errors_ext.core.discover import CatalogueModule
    from flax_errors_ext.core.records import ErrorEntry


class UsageError(Exception):
    """The command cannot run as asked (exit status 2); the message says why."""


@dataclasses.dataclass(frozen=True)
class Catalogue:
    """The catalogued modules, each with the entries a command works on."""

    modules: tuple[CatalogueModule, ...]

    @property
    def entries(self) -> list[ErrorEntry]:
        """Every entry, module by module, in source order."""
        return [entry for module in self.modules for entry in module.entries]

    def only(self, qualnames: set[str]) -> Catalogue:
        """The catalogue cut down to the named entries; modules left empty are dropped."""
        kept = (
            dataclasses.replace(m, entries=tuple(e for e in m.entries if e.qualname in qualnames))
            for m in self.modules
        )
        return Catalogue(tuple(m for m in kept if m.entries))


def load(args: argparse.Namespace) -> Catalogue:
    """Discover the modules the command line names (or the site's, by default).

    Raises:
        UsageError: if a module cannot be imported.
    """
    # As with `python -m`, a module in the current directory can be named: a
    # contributor's scratch module, or a project's own errors.
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    names = list(dict.fromkeys(args.modules or DEFAULT_MODULES))
    try:
        modules = tuple(discover(name, args.catalogue_dir) for name in names)
    except DiscoveryError as error:
        raise UsageError(str(error)) from None
    return Catalogue(modules)


def select(catalogue: Catalogue, names: Sequence[str]) -> Catalogue:
    """The entries ``names`` call for (all of them when there are none).

    A name is a short or dotted class name, in any case, or an entry's URL.

    Raises:
        UsageError: naming an unknown or ambiguous name, with the closest matches.
    """
    if not names:
        return catalogue
    entries = catalogue.entries
    chosen: set[str] = set()
    for name in names:
        found = [m for m in lookup.find(entries, name) if m.how in ("name", "url")]
        if not found:
            raise UsageError(unknown(entries, name))
        if len(found) > 1:
            options = ", ".join(m.entry.qualname for m in found)
            raise UsageError(f"{name!r} is ambiguous: it could be {options}; use the dotted name")
        chosen.add(found[0].entry.qualname)
    return catalogue.only(chosen)


def unknown(entries: Sequence[ErrorEntry], query: str) -> str:
    """The message for a query that names no entry, with the closest ones."""
    close = lookup.suggest(entries, query)
    shown = query if len(query) <= 80 else query[:77] + "..."
    message = f"no catalogued error matches {shown!r}"
    if close:
        message += "; did you mean " + " or ".join(close) + "?"
    return message
