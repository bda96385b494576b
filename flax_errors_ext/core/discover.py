"""Find the error classes a module defines and read each into an entry."""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
from pathlib import Path
from typing import TYPE_CHECKING

from flax_errors_ext.core.parse import parse_docstring
from flax_errors_ext.core.records import ErrorEntry, Location

if TYPE_CHECKING:
    from types import ModuleType


@dataclasses.dataclass(frozen=True)
class CatalogueModule:
    """A catalogued module: its source file and the entries it defines."""

    name: str
    path: Path
    import_path: str
    """The ``sys.path`` entry the module was imported from."""
    entries: tuple[ErrorEntry, ...]


class DiscoveryError(Exception):
    """A module listed for the catalogue that cannot be read."""


def discover(module_name: str) -> CatalogueModule:
    """Import ``module_name`` and read every public ``FlaxError`` subclass it defines.

    Classes come in source order. An error Flax adds later shows up here as an
    entry without examples, never silently missing.

    Raises:
        DiscoveryError: if the module cannot be imported or has no source file.
    """
    try:
        module = importlib.import_module(module_name)
        path = _source_path(module)
        stamp = path.stat().st_mtime_ns
        if _import_stamps.setdefault(module_name, stamp) != stamp:
            # Edited since this process imported it (a second build in one process):
            # read the docstrings the file holds now.
            module = importlib.reload(module)
            _import_stamps[module_name] = stamp
    except DiscoveryError:
        raise
    except Exception as error:
        raise DiscoveryError(f"cannot import {module_name!r}: {error!r}") from error
    docstring_lines = _docstring_lines(path)
    entries = []
    for cls in _error_classes(module):
        docstring = cls.__dict__.get("__doc__") or ""
        line = docstring_lines.get(cls.__qualname__) or _class_line(cls)
        qualname = f"{module_name}.{cls.__qualname__}"
        if docstring:
            entries.append(parse_docstring(docstring, qualname, str(path), line))
        else:
            entries.append(ErrorEntry(qualname, "", "", (), (), (), Location(str(path), line)))
    depth = module_name.count(".") + (1 if path.name == "__init__.py" else 0)
    import_path = path.parents[depth]
    return CatalogueModule(module_name, path, str(import_path), tuple(entries))


_import_stamps: dict[str, int] = {}
"""Each discovered module's source mtime when this process last imported it."""


def _source_path(module: ModuleType) -> Path:
    source_file = inspect.getsourcefile(module)
    if source_file is None:
        raise DiscoveryError(f"{module.__name__!r} has no Python source file")
    return Path(source_file).resolve()


def _error_classes(module: ModuleType) -> list[type]:
    from flax.errors import FlaxError

    found = [
        value
        for name, value in vars(module).items()
        if isinstance(value, type)
        and issubclass(value, FlaxError)
        and value is not FlaxError
        and value.__module__ == module.__name__
        and not name.startswith("_")
    ]
    return sorted(found, key=_class_line)


def _class_line(cls: type) -> int:
    try:
        return inspect.getsourcelines(cls)[1]
    except (OSError, TypeError):
        return 1


def _docstring_lines(path: Path) -> dict[str, int]:
    """The line each class's docstring starts on, by class name."""
    lines: dict[str, int] = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.ClassDef)
            and node.body
            and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)
        ):
            lines[node.name] = node.body[0].lineno
    return lines
