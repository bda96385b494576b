"""What a command works on: the project's modules, and the entries a command picks."""

from __future__ import annotations

import dataclasses
import os
import sys
from typing import TYPE_CHECKING

from flax_errors_ext.cli.project import UsageError, find_conf, load_project
from flax_errors_ext.execution.catalogue.modules import DiscoveryError, load_module
from flax_errors_ext.model.lookup import find as lookup

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Sequence

    from flax_errors_ext.cli.project import Project
    from flax_errors_ext.model.catalogue.discover import ErrorModule
    from flax_errors_ext.model.catalogue.records import ErrorEntry
    from flax_errors_ext.model.config.module_spec import ModuleSpec

__all__ = ["Selection", "UsageError", "import_module", "load", "project", "select", "unknown"]


@dataclasses.dataclass(frozen=True)
class Selection:
    """The project's catalogued modules, each with the entries a command works on."""

    project: Project
    modules: tuple[ErrorModule, ...]

    @property
    def entries(self) -> list[ErrorEntry]:
        """Every entry, module by module, in source order."""
        return [entry for module in self.modules for entry in module.entries]

    def only(self, qualnames: set[str]) -> Selection:
        """The selection cut down to the named entries; modules left empty are dropped."""
        kept = (
            dataclasses.replace(m, entries=tuple(e for e in m.entries if e.qualname in qualnames))
            for m in self.modules
        )
        return Selection(self.project, tuple(m for m in kept if m.entries))


def project(args: argparse.Namespace) -> Project:
    """The project's config, from its ``conf.py`` and the flags that override it."""
    overrides = {
        # Folders given on the command line are relative to where the command runs.
        "catalogue_dirs": [os.path.abspath(d) for d in args.catalogue_dir or ()] or None,
        **{name: getattr(args, name, None) for name in ("timeout", "jobs", "strict")},
    }
    found = load_project(find_conf(args.conf), overrides)
    if args.modules:
        # A module the project lists keeps its settings (page, bases, ...).
        specs = tuple(found.config.spec(name) for name in dict.fromkeys(args.modules))
        found = dataclasses.replace(found, config=dataclasses.replace(found.config, modules=specs))
    return found


def import_module(chosen: Project, spec: ModuleSpec) -> ErrorModule:
    """The module ``spec`` names, imported and read (a UsageError if it cannot be imported)."""
    # As with `python -m`, a module in the current directory can be named: a
    # contributor's scratch module, or a project's own errors.
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        return load_module(
            spec, chosen.catalogue_folders, layout=chosen.config.layout, project=chosen.folder
        )
    except DiscoveryError as error:
        raise UsageError(f"{error} (modules from {chosen.described()})") from None


def load(
    args: argparse.Namespace,
    read: Callable[[Project, ModuleSpec], ErrorModule] = import_module,
) -> Selection:
    """The modules of the project (or those the command line names), each as ``read`` reads it."""
    chosen = project(args)
    modules = tuple(read(chosen, spec) for spec in chosen.config.modules)
    if chosen.config.upstream == "off":
        modules = tuple(module.without_upstream() for module in modules)
    return Selection(chosen, modules)


def select(selection: Selection, names: Sequence[str]) -> Selection:
    """The entries ``names`` call for (all of them when there are none).

    A name is a short or dotted class name, in any case, or an entry's URL; an
    unknown or ambiguous one is a UsageError.
    """
    if not names:
        return selection
    entries = selection.entries
    chosen: set[str] = set()
    for name in names:
        found = [m for m in lookup.find(entries, name) if m.how in ("name", "url")]
        if not found:
            raise UsageError(unknown(entries, name))
        if len(found) > 1:
            options = ", ".join(m.entry.qualname for m in found)
            raise UsageError(f"{name!r} is ambiguous: it could be {options}; use the dotted name")
        chosen.add(found[0].entry.qualname)
    return selection.only(chosen)


def unknown(entries: Sequence[ErrorEntry], query: str) -> str:
    """The message for a query that names no entry, with the closest ones."""
    close = lookup.suggest(entries, query)
    shown = query if len(query) <= 80 else query[:77] + "..."
    message = f"no catalogued error matches {shown!r}"
    if close:
        message += "; did you mean " + " or ".join(close) + "?"
    return message
