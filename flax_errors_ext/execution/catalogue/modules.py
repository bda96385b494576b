"""Import the modules a project lists and read their sources, catalogue files and data.

What counts as an entry is decided in :mod:`flax_errors_ext.model.catalogue.discover`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import inspect
import re
import tokenize
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING

from flax_errors_ext.model.catalogue.discover import (
    SHIPPED_CATALOGUE,
    Candidate,
    CatalogueFile,
    ErrorModule,
    LeftOut,
    message_entries,
    module_entries,
    public_classes,
)
from flax_errors_ext.model.catalogue.module_data import MODULE_DATA, ModuleData, module_data
from flax_errors_ext.model.config.values import ModuleSpec

if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import ModuleType

    from flax_errors_ext.layout import SiteLayout


class DiscoveryError(Exception):
    """A module listed for the catalogue that cannot be read."""


_import_stamps: dict[str, int] = {}
"""Each discovered module's source mtime when this process last imported it."""


def load_module(
    spec: ModuleSpec | str,
    folders: Sequence[Path] = (SHIPPED_CATALOGUE,),
    *,
    layout: SiteLayout | None = None,
    project: Path | None = None,
) -> ErrorModule:
    """Import a listed module and read every error class it exposes into an entry.

    A module edited since this process imported it is imported again. A folder of
    ``folders`` named after the module holds its examples (``<Class>.txt``, an
    earlier folder's first) and data (``module.toml``). ``project``: the folder of
    ``conf.py``. Raises DiscoveryError, saying why, where it cannot be read or
    yields no entries.
    """
    if isinstance(spec, str):
        spec = ModuleSpec.from_value(spec)
    if spec.messages:
        return load_messages(spec, folders, layout, project)
    module, path = _imported(spec)
    classes, left_out = public_classes(module, spec, _bases(spec))
    sources: dict[Path, str] = {path: read_source(path)}
    candidates = []
    for name, cls in classes:
        defined_in = _defining_file(cls, path, sources)
        candidates.append(Candidate(name, cls, str(defined_in), sources[defined_in]))
    files = catalogue_files(spec.name, folders)
    data = read_module_data(spec.name, folders)
    entries, bases_left_out, problems = module_entries(spec, candidates, files, layout, data=data)
    left_out += bases_left_out
    if not entries:
        raise DiscoveryError(_no_entries(spec, module, left_out))
    depth = spec.name.count(".") + (1 if path.name == "__init__.py" else 0)
    return ErrorModule(
        spec.name,
        path,
        str(path.parents[depth]),
        entries,
        tuple(left_out),
        problems,
        _read_paths(files, data),
        data=data,
    )


def _imported(spec: ModuleSpec) -> tuple[ModuleType, Path]:
    """The module, imported again if its file changed since, and its source file."""
    try:
        module = importlib.import_module(spec.name)
        source_file = inspect.getsourcefile(module)
        if source_file is None:
            raise DiscoveryError(f"{module.__name__!r} has no Python source file")
        path = Path(source_file).resolve()
        stamp = path.stat().st_mtime_ns
        if _import_stamps.setdefault(spec.name, stamp) != stamp:
            module = importlib.reload(module)
            _import_stamps[spec.name] = stamp
    except DiscoveryError:
        raise
    except Exception as error:
        raise DiscoveryError(f"cannot import {spec.name!r}: {error!r}") from error
    return module, path


def load_messages(
    spec: ModuleSpec, folders: Sequence[Path], layout: SiteLayout | None, project: Path | None
) -> ErrorModule:
    """Read a group of message entries from its catalogue files, nothing imported.

    Its examples import from the ``project`` folder (on their ``sys.path``), else as
    installed. Raises DiscoveryError where no folder holds a file of the group.
    """
    files = catalogue_files(spec.name, folders)
    if not files:
        searched = ", ".join(str(folder / spec.name) for folder in folders)
        raise DiscoveryError(
            f"{spec.name} is a group of message entries, but no catalogue folder holds a "
            f"<Name>.txt file for it (looked in {searched})"
        )
    path = Path(next(iter(files.values())).path).parent
    data = read_module_data(spec.name, folders)
    return ErrorModule(
        spec.name,
        path,
        str(project) if project is not None else "",
        message_entries(spec, files, layout),
        catalogue_paths=_read_paths(files, data),
        messages=True,
        data=data,
    )


def _read_paths(files: dict[str, CatalogueFile] | None, data: ModuleData) -> tuple[str, ...]:
    return (*(f.path for f in (files or {}).values()), *((data.path,) if data.path else ()))


@dataclasses.dataclass(frozen=True)
class ModulePages:
    """The pages a module's entries get, and the state of the files that decided them.

    A build keeps it, so that the next one writes the same pages without importing
    the module (and its libraries) while none of those files changed.
    """

    module: str
    pages: tuple[tuple[str, str], ...]
    """``(docname, full dotted name)`` of each entry with a page of its own."""
    files: tuple[tuple[str, int], ...]
    """Each file the module and its entries were read from, with its ``st_mtime_ns``."""

    @classmethod
    def of(cls, module: ErrorModule, layout: SiteLayout) -> ModulePages:
        """The pages ``layout`` gives the module's entries, stamped with its files now."""
        pages = (
            tuple((layout.locate(e.qualname).page, e.qualname) for e in module.entries)
            if layout.per_error
            else ()
        )
        paths = {str(module.path), *module.catalogue_paths}
        for entry in module.entries:
            paths.add(entry.location.path)
            paths.update(passage.path for passage in entry.prose)
        return cls(module.name, pages, tuple((path, _stamp(path)) for path in sorted(paths)))

    def unchanged(self) -> bool:
        """Whether every file it was read from is as it was."""
        return all(_stamp(path) == stamp for path, stamp in self.files)


def _stamp(path: str) -> int:
    try:
        return Path(path).stat().st_mtime_ns
    except OSError:
        return -1


def _no_entries(spec: ModuleSpec, module: ModuleType, left_out: Sequence[LeftOut]) -> str:
    why = (
        "its public classes are all left out: " + "; ".join(map(str, left_out))
        if left_out
        else "it exposes no exception classes"
        + (" in __all__" if hasattr(module, "__all__") else " (and defines no __all__)")
    )
    return f"{spec.name} yields no catalogue entries: {why}"


def _bases(spec: ModuleSpec) -> tuple[type, ...]:
    found = []
    for dotted in spec.bases:
        module_name, _, name = dotted.rpartition(".")
        try:
            value = getattr(importlib.import_module(module_name), name)
        except (ImportError, AttributeError, ValueError) as error:
            raise DiscoveryError(
                f"{spec.name}: the base class {dotted!r} cannot be imported: {error}"
            ) from None
        if not isinstance(value, type):
            raise DiscoveryError(f"{spec.name}: the base {dotted!r} is not a class")
        found.append(value)
    return tuple(found)


def _defining_file(cls: type, module_path: Path, sources: dict[Path, str]) -> Path:
    """The source file whose text defines ``cls`` (read into ``sources``).

    A library may re-export a class under another module's name (JAX sets
    ``__module__ = "jax.errors"`` on classes defined in ``jax/_src/errors.py``), so
    the module's file is checked first and then the files of the class's methods.
    """
    places = [module_path]
    with contextlib.suppress(TypeError, OSError):
        places.append(Path(inspect.getsourcefile(cls) or module_path).resolve())
    for value in vars(cls).values():
        code = getattr(getattr(value, "__func__", value), "__code__", None)
        if code is not None and code.co_filename.endswith(".py"):
            places.append(Path(code.co_filename).resolve())
    pattern = re.compile(rf"^\s*class\s+{re.escape(cls.__name__)}\b", re.MULTILINE)
    for place in dict.fromkeys(places):
        if place not in sources:
            if not place.is_file():
                continue
            sources[place] = read_source(place)
        if pattern.search(sources[place]):
            return place
    return module_path


def read_source(path: Path) -> str:
    """A Python file's text, decoded as Python does; DiscoveryError naming it if it cannot."""
    try:
        with tokenize.open(path) as file:
            return file.read()
    except (OSError, SyntaxError, UnicodeDecodeError) as error:
        raise DiscoveryError(f"{path}: cannot read it as Python source: {error}") from None


def catalogue_files(module: str, folders: Sequence[Path]) -> dict[str, CatalogueFile] | None:
    """The module's catalogue files by class name, or None if no folder has the module.

    A folder that holds the module's ``module.toml`` alone says nothing of its
    docstrings: they may still be ours.
    """
    found = [
        folder / module
        for folder in folders
        if (folder / module).is_dir()
        and [path.name for path in (folder / module).iterdir()] != [MODULE_DATA]
    ]
    if not found:
        return None
    files: dict[str, CatalogueFile] = {}
    for folder in found:
        for path in sorted(folder.glob("*.txt")):
            if path.stem in files:
                continue
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as error:
                raise DiscoveryError(f"{path}: cannot read it as UTF-8 text: {error}") from None
            files[path.stem] = CatalogueFile(str(path), text)
    return files


def read_module_data(module: str, folders: Sequence[Path]) -> ModuleData:
    """The first folder's ``<module>/module.toml``, else none.

    Raises DiscoveryError naming the file (and the line, for broken TOML) where it
    cannot be read or holds what a module's data does not.
    """
    for folder in folders:
        path = folder / module / MODULE_DATA
        if path.is_file():
            try:
                table = tomllib.loads(path.read_text(encoding="utf-8"))
                return module_data(module, str(path), table)
            except (OSError, ValueError) as error:  # TOMLDecodeError, UnicodeDecodeError too
                raise DiscoveryError(
                    f"{path}: cannot read it as a module's data: {error}"
                ) from None
    return ModuleData()
