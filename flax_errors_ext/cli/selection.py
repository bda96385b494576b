"""What a command works on: the project's settings and modules, and the entries it picks."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import importlib.util
import os
import pickle
import runpy
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flax_errors_ext.cli import CONF_PLACES, UsageError
from flax_errors_ext.execution.catalogue.modules import DiscoveryError, ModulePages, load_module
from flax_errors_ext.model.catalogue.discover import catalogue_folders
from flax_errors_ext.model.config import PREFIX, CatalogueConfig
from flax_errors_ext.model.lookup import find as lookup
from flax_errors_ext.version import __version__

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Sequence

    from flax_errors_ext.model.catalogue.discover import ErrorModule
    from flax_errors_ext.model.catalogue.records import ErrorEntry
    from flax_errors_ext.model.config.values import ModuleSpec

DEFAULT_MODULES = (
    "flax_errors_ext.errors",
    "flax.errors",
    "jax.errors",
    "flax.messages",
    "jax.messages",
)
"""Catalogued where no ``conf.py`` is found (``*.messages``: what is raised as a builtin)."""
NOTEBOOK_TIMEOUT = "nb_execution_timeout"
"""myst-nb's limit on a cell, which an example's follows where flax_errors_timeout is unset."""
CACHE_ENV = "FLAX_ERRORS_CATALOGUE_CACHE"


@dataclasses.dataclass(frozen=True)
class Project:
    """A project's catalogue settings, and the ``conf.py`` they came from (if any)."""

    config: CatalogueConfig
    conf: Path | None
    notebook_timeout: int | None = None

    @property
    def catalogue_folders(self) -> tuple[Path, ...]:
        """The project's catalogue folders, then the shipped one."""
        return catalogue_folders([(self.folder / d).resolve() for d in self.config.catalogue_dirs])

    @property
    def folder(self) -> Path:
        """What the project's settings name files relative to: ``conf.py``'s folder."""
        return self.conf.parent if self.conf is not None else Path.cwd()


def _run_conf(conf: Path) -> dict[str, Any]:
    """Run ``conf.py`` as Sphinx does: from its own folder, with ``__file__`` set."""
    with contextlib.chdir(conf.parent):
        try:
            return runpy.run_path(str(conf), run_name="__sphinx_conf__")
        except BaseException as error:  # a conf.py may sys.exit(); never let it end us
            if isinstance(error, KeyboardInterrupt):
                raise
            raise UsageError(f"{conf} failed to run: {type(error).__name__}: {error}") from None


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
    """The project's config, validated as the site's, from ``conf.py`` and the flags."""
    if args.conf is not None and not args.conf.is_file():
        raise UsageError(f"--conf {args.conf}: no such file")
    candidates = [args.conf] if args.conf is not None else [Path(p) for p in CONF_PLACES]
    conf = next((path.resolve() for path in candidates if path.is_file()), None)
    found = _run_conf(conf) if conf is not None else {PREFIX + "modules": list(DEFAULT_MODULES)}
    values = {k: v for k, v in found.items() if k.startswith(PREFIX)}
    notebook_timeout = found.get(NOTEBOOK_TIMEOUT)
    if isinstance(notebook_timeout, bool) or not isinstance(notebook_timeout, int | None):
        raise UsageError(
            f"{conf}: {NOTEBOOK_TIMEOUT} must be a whole number of seconds; "
            f"got {notebook_timeout!r}"
        )
    overrides = {
        # Folders given on the command line are relative to where the command runs.
        "catalogue_dirs": [os.path.abspath(d) for d in args.catalogue_dir or ()] or None,
        **{name: getattr(args, name, None) for name in ("timeout", "jobs", "strict")},
    }
    values.update({PREFIX + name: v for name, v in overrides.items() if v is not None})
    try:
        config = CatalogueConfig.from_values(values)
    except ValueError as error:
        raise UsageError(f"{conf or 'command line'}: {error}") from None
    if args.modules:
        # A module the project lists keeps its settings (page, bases, ...).
        specs = tuple(config.spec(name) for name in dict.fromkeys(args.modules))
        config = dataclasses.replace(config, modules=specs)
    return Project(config, conf, notebook_timeout)


def import_module(chosen: Project, spec: ModuleSpec) -> ErrorModule:
    """The module ``spec`` names, imported and read (a UsageError if it cannot be imported)."""
    # As with `python -m`, a module in the current directory can be named.
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        return load_module(
            spec, chosen.catalogue_folders, layout=chosen.config.layout, project=chosen.folder
        )
    except DiscoveryError as error:
        where = chosen.conf or "defaults (no conf.py found)"
        raise UsageError(f"{error} (modules from {where})") from None


def load(
    args: argparse.Namespace, read: Callable[[Project, ModuleSpec], ErrorModule] = import_module
) -> Selection:
    """The modules of the project (or those the command line names), each as ``read`` reads it."""
    chosen = project(args)
    modules = tuple(read(chosen, spec) for spec in chosen.config.modules)
    if chosen.config.upstream == "off":
        modules = tuple(module.without_upstream() for module in modules)
    return Selection(chosen, modules)


def snapshot(chosen: Project, spec: ModuleSpec) -> ErrorModule:
    """The module from its pickled snapshot while every file read is as it was; else imported."""
    cache = os.environ.get(CACHE_ENV) or Path(
        os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache", "flax-errors", "catalogue"
    )
    # Besides its files, a snapshot depends on the settings, this package and Python.
    parts = (__version__, sys.version, spec, chosen.config, chosen.catalogue_folders, os.getcwd())
    digest = hashlib.sha256(repr(parts).encode()).hexdigest()[:24]
    path = Path(cache) / f"{spec.name}-{digest}.pickle"
    kept: tuple[ErrorModule, tuple[tuple[str, int], ...]]
    # Absent, truncated, or of classes since moved (ImportError): read anew.
    with contextlib.suppress(Exception):
        kept = pickle.loads(path.read_bytes())  # our own cache, read by the version that wrote it
        if all(stamp(file) == seen for file, seen in kept[1]):
            return kept[0]
    module = import_module(chosen, spec)
    paths = {path for path, _ in ModulePages.of(module, chosen.config.layout).files}
    # A catalogue file added later (an error documented since) changes the entries; an
    # upgrade of the library rewrites its __init__.py.
    paths.update(str(folder / module.name) for folder in chosen.catalogue_folders)
    top = importlib.util.find_spec(module.name.partition(".")[0])
    if top is not None and top.origin:
        paths.add(top.origin)
    stamps = tuple((path, stamp(path)) for path in sorted(paths))
    data = pickle.dumps((module, stamps), protocol=pickle.HIGHEST_PROTOCOL)
    # Atomic; a cache that cannot be written only costs the next run time.
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            temporary.write_bytes(data)
            temporary.replace(path)
        finally:
            temporary.unlink(missing_ok=True)
    return module


def stamp(path: str) -> int:
    """The file's ``st_mtime_ns``; -1 where it cannot be read (gone, say)."""
    try:
        return Path(path).stat().st_mtime_ns
    except OSError:
        return -1


def select(selection: Selection, names: Sequence[str]) -> Selection:
    """The entries ``names`` (class names, in any case, or URLs) call for; all if none."""
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
    close = " or ".join(lookup.suggest(entries, query))
    shown = query if len(query) <= 80 else query[:77] + "..."
    return f"no catalogued error matches {shown!r}" + (f"; did you mean {close}?" if close else "")
