"""Import the modules a project lists and read their sources and catalogue files.

The reading side of discovery: everything that touches the import system and the
file system. What counts as an entry is decided in
:mod:`flax_errors_ext.model.discover`.
"""

from __future__ import annotations

import importlib
import inspect
import tokenize
from pathlib import Path
from typing import TYPE_CHECKING

from flax_errors_ext.model.discover import CatalogueFile, ErrorModule, module_entries

if TYPE_CHECKING:
    from types import ModuleType


class DiscoveryError(Exception):
    """A module listed for the catalogue that cannot be read."""


_import_stamps: dict[str, int] = {}
"""Each discovered module's source mtime when this process last imported it."""


def load_module(module_name: str, catalogue_dir: Path | None = None) -> ErrorModule:
    """Import ``module_name`` and read every error class it defines into an entry.

    A module imported before and edited since (a second build in one process) is
    imported again, so that its entries are the docstrings the file holds now. If
    ``catalogue_dir`` holds a folder named after the module, its docstrings are
    another project's and its examples come from the ``<Class>.txt`` files there.

    Raises:
        DiscoveryError: if the module cannot be imported or has no source file.
    """
    try:
        module = importlib.import_module(module_name)
        path = _source_path(module)
        stamp = path.stat().st_mtime_ns
        if _import_stamps.setdefault(module_name, stamp) != stamp:
            module = importlib.reload(module)
            _import_stamps[module_name] = stamp
    except DiscoveryError:
        raise
    except Exception as error:
        raise DiscoveryError(f"cannot import {module_name!r}: {error!r}") from error
    source = read_source(path)
    folder = catalogue_dir / module_name if catalogue_dir is not None else None
    files = _catalogue_files(folder) if folder is not None and folder.is_dir() else None
    entries = module_entries(module, str(path), source, files)
    depth = module_name.count(".") + (1 if path.name == "__init__.py" else 0)
    return ErrorModule(module_name, path, str(path.parents[depth]), entries)


def read_source(path: Path) -> str:
    """A Python file's text, decoded as Python does (coding cookie, BOM, else UTF-8).

    Raises:
        DiscoveryError: naming the file, if it cannot be read or decoded.
    """
    try:
        with tokenize.open(path) as file:
            return file.read()
    except (OSError, SyntaxError, UnicodeDecodeError) as error:
        raise DiscoveryError(f"{path}: cannot read it as Python source: {error}") from None


def _catalogue_files(folder: Path) -> dict[str, CatalogueFile]:
    files = {}
    for path in sorted(folder.glob("*.txt")):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise DiscoveryError(f"{path}: cannot read it as UTF-8 text: {error}") from None
        files[path.stem] = CatalogueFile(str(path), text)
    return files


def _source_path(module: ModuleType) -> Path:
    source_file = inspect.getsourcefile(module)
    if source_file is None:
        raise DiscoveryError(f"{module.__name__!r} has no Python source file")
    return Path(source_file).resolve()
