"""Read the error classes of an imported module into entries, in source order.

Pure: the module is already imported and its source and catalogue files already
read (by :mod:`flax_errors_ext.execution.modules`); this decides which classes
are entries and where each one's documentation comes from.
"""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING

from flax_errors_ext.model.parse import parse_docstring, parse_prose
from flax_errors_ext.model.records import ErrorEntry, Location

if TYPE_CHECKING:
    from collections.abc import Mapping
    from types import ModuleType


SHIPPED_CATALOGUE = Path(__file__).resolve().parents[1] / "catalogue"
"""The catalogue files shipped with this package: ``<module>/<Class>.txt`` (Flax's errors)."""


def catalogue_file(catalogue_dir: Path, qualname: str) -> Path:
    """Where the examples of an error whose docstring is not ours live."""
    module, _, name = qualname.rpartition(".")
    return catalogue_dir / module / f"{name}.txt"


@dataclasses.dataclass(frozen=True)
class ErrorModule:
    """A catalogued module: its source file and the entries it defines."""

    name: str
    """The module's dotted name, as listed in ``flax_errors_modules``."""
    path: Path
    """Its source file."""
    import_path: str
    """The ``sys.path`` entry the module was imported from."""
    entries: tuple[ErrorEntry, ...]


@dataclasses.dataclass(frozen=True)
class CatalogueFile:
    """The examples of one error whose docstring is not ours, as read from its file."""

    path: str
    text: str


def module_entries(
    module: ModuleType,
    path: str,
    source: str,
    catalogue_files: Mapping[str, CatalogueFile] | None,
) -> tuple[ErrorEntry, ...]:
    """Every public ``FlaxError`` subclass ``module`` defines, as an entry.

    Classes come in source order. An error Flax adds later shows up here as an
    entry without examples, never silently missing.

    Args:
        module: The imported module.
        path: Its source file.
        source: The text of that file.
        catalogue_files: None when the module's docstrings are ours, in the
            catalogue format. Otherwise they are another project's prose (Flax's),
            shown as they are, and each class's examples come from its catalogue
            file, by class name (a class without one has no examples yet).
    """
    classes = _class_lines(source)
    entries = []
    for cls in _error_classes(module, classes):
        docstring = cls.__dict__.get("__doc__") or ""
        line, docstring_line = classes.get(cls.__qualname__, (1, None))
        at = Location(path, docstring_line or line)
        qualname = f"{module.__name__}.{cls.__qualname__}"
        if catalogue_files is not None:
            entries.append(
                _supplemented(docstring, qualname, at, catalogue_files.get(cls.__name__))
            )
        elif docstring:
            entries.append(parse_docstring(docstring, qualname, at.path, at.line))
        else:
            entries.append(ErrorEntry(qualname, "", (), (), (), at))
    return tuple(entries)


def _supplemented(
    docstring: str, qualname: str, at: Location, ours: CatalogueFile | None
) -> ErrorEntry:
    summary, prose = parse_prose(docstring, at.path, at.line) if docstring else ("", ())
    if ours is None:
        return ErrorEntry(qualname, summary, prose, (), (), at)
    entry = parse_docstring(ours.text, qualname, ours.path, 1)
    # Our file's opening line summarises the error for this site (Flax's first
    # sentence is often not a summary); Flax's docstring, when there is one, is the
    # explanation readers expect to see first.
    return dataclasses.replace(
        entry, summary=entry.summary or summary, prose=prose + entry.prose, location=at
    )


def _error_classes(module: ModuleType, lines: Mapping[str, tuple[int, int | None]]) -> list[type]:
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
    return sorted(found, key=lambda cls: lines.get(cls.__qualname__, (1, None))[0])


def _class_lines(source: str) -> dict[str, tuple[int, int | None]]:
    """Each class's line and its docstring's first line (None without one), by name."""
    lines: dict[str, tuple[int, int | None]] = {}
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ClassDef):
            continue
        first = node.body[0] if node.body else None
        has_docstring = (
            isinstance(first, ast.Expr)
            and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)
        )
        line = node.decorator_list[0].lineno if node.decorator_list else node.lineno
        lines.setdefault(node.name, (line, first.lineno if has_docstring and first else None))
    return lines
