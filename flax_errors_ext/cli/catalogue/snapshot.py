"""The catalogue as ``explain`` reads it: from a snapshot while nothing it came from changed.

Reading a module's entries imports it, and a library's errors module imports the
library (``flax.errors`` imports JAX): seconds, for a command that answers one
question. So the entries read are kept in the user's cache folder, one snapshot
per module and settings, stamped with every file they were read from (the
library's ``__init__.py`` too, which an upgrade rewrites). While those files are
as they were, the snapshot is the module. A snapshot is a pickle of this package's
own frozen records, only read back by the version of this package that wrote it.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import pickle
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from flax_errors_ext.cli.selection import import_module, load
from flax_errors_ext.execution.catalogue.modules import ModulePages
from flax_errors_ext.version import __version__

if TYPE_CHECKING:
    import argparse

    from flax_errors_ext.cli.project import Project
    from flax_errors_ext.cli.selection import Selection
    from flax_errors_ext.model.catalogue.discover import ErrorModule
    from flax_errors_ext.model.config.values import ModuleSpec

CACHE_ENV = "FLAX_ERRORS_CATALOGUE_CACHE"
"""Where snapshots are kept, if set; else ``$XDG_CACHE_HOME/flax-errors/catalogue``."""


def load_read_only(args: argparse.Namespace) -> Selection:
    """The project's modules as :func:`.selection.load` reads them, from current snapshots."""
    return load(args, _snapshot)


def _snapshot(chosen: Project, spec: ModuleSpec) -> ErrorModule:
    """The module from its snapshot while every file is as it was; else imported anew."""
    path = cache_folder() / f"{_key(chosen, spec)}.pickle"
    snapshot: tuple[ErrorModule, tuple[tuple[str, int], ...]]
    # Absent, truncated, or of classes since moved (ImportError): read anew.
    with contextlib.suppress(Exception):
        snapshot = pickle.loads(path.read_bytes())  # our own cache, see above
        if all(_stamp(file) == stamp for file, stamp in snapshot[1]):
            return snapshot[0]
    module = import_module(chosen, spec)
    _write(path, (module, _files(module, chosen)))
    return module


def cache_folder() -> Path:
    """Where snapshots are kept (:data:`CACHE_ENV`, else the user's cache folder)."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "flax-errors" / "catalogue"


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
