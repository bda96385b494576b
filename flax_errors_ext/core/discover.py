"""Find the error classes a module defines and read each into an entry."""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
from pathlib import Path
from typing import TYPE_CHECKING

from flax_errors_ext.core.parse import parse_docstring, parse_prose
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


BUILTIN_CATALOGUE = Path(__file__).resolve().parents[1] / "catalogue"
"""The example files shipped with this package: ``<module>/<Class>.txt`` (Flax's errors)."""


class DiscoveryError(Exception):
    """A module listed for the catalogue that cannot be read."""


def discover(module_name: str, catalogue_dir: Path | None = None) -> CatalogueModule:
    """Import ``module_name`` and read every public ``FlaxError`` subclass it defines.

    Classes come in source order. An error Flax adds later shows up here as an
    entry without examples, never silently missing.

    If ``catalogue_dir`` holds a folder named after the module, the module's
    docstrings are another project's prose (Flax's, which this project cannot
    edit): they are shown as they are, and each class's examples come from
    ``<catalogue_dir>/<module>/<Class>.txt``, written in the catalogue format.

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
    supplements = catalogue_dir / module_name if catalogue_dir is not None else None
    if supplements is not None and not supplements.is_dir():
        supplements = None
    entries = []
    for cls in _error_classes(module):
        docstring = cls.__dict__.get("__doc__") or ""
        at = Location(str(path), docstring_lines.get(cls.__qualname__) or _class_line(cls))
        qualname = f"{module_name}.{cls.__qualname__}"
        if supplements is not None:
            entries.append(_supplemented(docstring, qualname, at, supplements))
        elif docstring:
            entries.append(parse_docstring(docstring, qualname, at.path, at.line))
        else:
            entries.append(ErrorEntry(qualname, "", (), (), (), at))
    depth = module_name.count(".") + (1 if path.name == "__init__.py" else 0)
    import_path = path.parents[depth]
    return CatalogueModule(module_name, path, str(import_path), tuple(entries))


def catalogue_file(catalogue_dir: Path, qualname: str) -> Path:
    """Where the examples of an error whose docstring is not ours live."""
    module, _, name = qualname.rpartition(".")
    return catalogue_dir / module / f"{name}.txt"


def _supplemented(docstring: str, qualname: str, at: Location, supplements: Path) -> ErrorEntry:
    summary, prose = parse_prose(docstring, at.path, at.line) if docstring else ("", ())
    path = catalogue_file(supplements.parent, qualname)
    if not path.is_file():
        return ErrorEntry(qualname, summary, prose, (), (), at)
    ours = parse_docstring(path.read_text(encoding="utf-8"), qualname, str(path), 1)
    # Our file's opening line summarises the error for this site (Flax's first
    # sentence is often not a summary); Flax's docstring, when there is one, is the
    # explanation readers expect to see first.
    return dataclasses.replace(
        ours, summary=ours.summary or summary, prose=prose + ours.prose, location=at
    )


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
