"""What a command works on: the project's settings and modules, and the entries it picks.

The project's ``conf.py`` (the one the site is built with) is read into the same
:class:`~flax_errors_ext.model.config.CatalogueConfig` the Sphinx extension
validates, so that a command checks what the site checks; flags override it.

Reading a module's entries imports it, and a library's errors module imports the
library (``flax.errors`` imports JAX): seconds, for a command that answers one
question. So the commands that only read keep the entries in the user's cache
folder, one snapshot per module and settings, stamped with every file they were
read from (the library's ``__init__.py`` too, which an upgrade rewrites). While
those files are as they were, the snapshot is the module. A snapshot is a pickle
of this package's own frozen records, only read back by the version that wrote it.
"""

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
"""What is catalogued when no ``conf.py`` is found: this package's errors, Flax's and JAX's,
and the errors Flax and JAX raise as builtin exceptions (their message entries)."""
NOTEBOOK_TIMEOUT = "nb_execution_timeout"
"""myst-nb's limit on a cell, which an example's follows where flax_errors_timeout is unset."""
CACHE_ENV = "FLAX_ERRORS_CATALOGUE_CACHE"
"""Where snapshots are kept, if set; else ``$XDG_CACHE_HOME/flax-errors/catalogue``."""


@dataclasses.dataclass(frozen=True)
class Project:
    """A project's catalogue settings, and the ``conf.py`` they came from (if any)."""

    config: CatalogueConfig
    conf: Path | None
    notebook_timeout: int | None = None
    """``nb_execution_timeout`` as ``conf.py`` sets it."""

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
    """The project's config, from its ``conf.py`` and the flags that override it.

    A ``--conf`` that is no file, a ``conf.py`` that fails to run, or an invalid
    value, is a UsageError.
    """
    conf = args.conf
    if conf is not None and not conf.is_file():
        raise UsageError(f"--conf {conf}: no such file")
    candidates = [conf] if conf is not None else [Path(p) for p in CONF_PLACES]
    conf = next((path.resolve() for path in candidates if path.is_file()), None)
    values: dict[str, Any] = {PREFIX + "modules": list(DEFAULT_MODULES)}
    notebook_timeout = None
    if conf is not None:
        found = _run_conf(conf)
        values = {k: v for k, v in found.items() if k.startswith(PREFIX)}
        notebook_timeout = found.get(NOTEBOOK_TIMEOUT)
        if notebook_timeout is not None and (
            not isinstance(notebook_timeout, int) or isinstance(notebook_timeout, bool)
        ):
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
    # As with `python -m`, a module in the current directory can be named: a
    # contributor's scratch module, or a project's own errors.
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
    args: argparse.Namespace,
    read: Callable[[Project, ModuleSpec], ErrorModule] = import_module,
) -> Selection:
    """The modules of the project (or those the command line names), each as ``read`` reads it."""
    chosen = project(args)
    modules = tuple(read(chosen, spec) for spec in chosen.config.modules)
    if chosen.config.upstream == "off":
        modules = tuple(module.without_upstream() for module in modules)
    return Selection(chosen, modules)


def snapshot(chosen: Project, spec: ModuleSpec) -> ErrorModule:
    """The module from its snapshot while every file is as it was; else imported anew."""
    folder = os.environ.get(CACHE_ENV) or Path(
        os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache", "flax-errors", "catalogue"
    )
    path = Path(folder) / f"{_key(chosen, spec)}.pickle"
    kept: tuple[ErrorModule, tuple[tuple[str, int], ...]]
    # Absent, truncated, or of classes since moved (ImportError): read anew.
    with contextlib.suppress(Exception):
        kept = pickle.loads(path.read_bytes())  # our own cache, see above
        if all(_stamp(file) == stamp for file, stamp in kept[1]):
            return kept[0]
    module = import_module(chosen, spec)
    _write(path, (module, _files(module, chosen)))
    return module


def _key(chosen: Project, spec: ModuleSpec) -> str:
    """What a snapshot depends on besides its files: the settings, this package, Python."""
    parts = (
        __version__,
        sys.version,
        repr(spec),
        repr(chosen.config),
        repr(chosen.catalogue_folders),
        os.getcwd(),
    )
    digest = hashlib.sha256("\0".join(parts).encode()).hexdigest()[:24]
    return f"{spec.name}-{digest}"


def _files(module: ErrorModule, chosen: Project) -> tuple[tuple[str, int], ...]:
    """Each file the module was read from, with its ``st_mtime_ns`` (-1: absent)."""
    paths = {path for path, _ in ModulePages.of(module, chosen.config.layout).files}
    # A catalogue file added later (an error documented since) changes the entries.
    paths.update(str(folder / module.name) for folder in chosen.catalogue_folders)
    top = importlib.util.find_spec(module.name.partition(".")[0])
    if top is not None and top.origin:
        paths.add(top.origin)
    return tuple((path, _stamp(path)) for path in sorted(paths))


def _stamp(path: str) -> int:
    try:
        return Path(path).stat().st_mtime_ns
    except OSError:
        return -1


def _write(path: Path, snapshot: object) -> None:
    """Write atomically; a cache that cannot be written only costs the next run time."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            temporary.write_bytes(pickle.dumps(snapshot, protocol=pickle.HIGHEST_PROTOCOL))
            temporary.replace(path)
        finally:
            temporary.unlink(missing_ok=True)


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
