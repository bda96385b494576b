"""Which classes of an imported module are entries, and where each one's examples come from."""

from __future__ import annotations

import ast
import dataclasses
import difflib
from pathlib import Path
from typing import TYPE_CHECKING

from flax_errors_ext.layout import SiteLayout
from flax_errors_ext.model.catalogue.module_data import ModuleData, repaired_docstring
from flax_errors_ext.model.catalogue.parse import parse_docstring, parse_prose, parse_upstream
from flax_errors_ext.model.catalogue.records import ErrorEntry, FormatProblem, Location

if TYPE_CHECKING:
    from collections.abc import Collection, Mapping, Sequence
    from types import ModuleType

    from flax_errors_ext.model.config.values import ModuleSpec


SHIPPED_CATALOGUE = Path(__file__).resolve().parents[2] / "catalogue"
"""The shipped catalogue: ``<module>/<Class>.txt`` files and each module's ``module.toml``."""


def catalogue_folders(project_dirs: Sequence[Path]) -> tuple[Path, ...]:
    """Where catalogue files are looked for: the project's folders, then the shipped one."""
    return (*dict.fromkeys(project_dirs), SHIPPED_CATALOGUE)


def catalogue_paths(folders: Sequence[Path], qualname: str) -> tuple[Path, ...]:
    """Where the examples of an error whose docstring is not ours may live, first first."""
    module, _, name = qualname.rpartition(".")
    return tuple(folder / module / f"{name}.txt" for folder in folders)


@dataclasses.dataclass(frozen=True)
class LeftOut:
    """A public class of a listed module that is not an entry, and why."""

    name: str
    reason: str

    def __str__(self) -> str:
        return f"{self.name} ({self.reason})"


@dataclasses.dataclass(frozen=True)
class ErrorModule:
    """A catalogued module: its source file and the entries it defines."""

    name: str
    path: Path
    import_path: str
    """The ``sys.path`` entry it was imported from."""
    entries: tuple[ErrorEntry, ...]
    left_out: tuple[LeftOut, ...] = ()
    problems: tuple[FormatProblem, ...] = ()
    """Catalogue files and module data that name no class of the module, and repairs not made."""
    catalogue_paths: tuple[str, ...] = ()
    messages: bool = False
    """Whether it is a group of message entries (``path``: its folder, nothing imported)."""
    data: ModuleData = dataclasses.field(default_factory=ModuleData)

    def without_upstream(self) -> ErrorModule:
        """The module with no entry running another project's docstring examples."""
        entries = tuple(
            dataclasses.replace(e, examples=tuple(x for x in e.examples if x.kind.ours))
            for e in self.entries
        )
        return dataclasses.replace(self, entries=entries)


@dataclasses.dataclass(frozen=True)
class CatalogueFile:
    """The examples of one error whose docstring is not ours, as read from its file."""

    path: str
    text: str


@dataclasses.dataclass(frozen=True)
class Candidate:
    """A public exception class of a listed module, with the file that defines it."""

    name: str
    """The name the module exposes it under (its entry is ``<module>.<name>``)."""
    cls: type
    path: str
    source: str


def public_classes(
    module: ModuleType, spec: ModuleSpec, bases: tuple[type, ...]
) -> tuple[list[tuple[str, type]], list[LeftOut]]:
    """The exception classes ``module`` exposes (``__all__``) that may be entries, and the rest."""
    exported = getattr(module, "__all__", None)
    if exported is not None:
        named = [(n, getattr(module, n, None)) for n in exported if isinstance(n, str)]
    else:
        named = [(n, v) for n, v in vars(module).items() if not n.startswith("_")]
    kept: list[tuple[str, type]] = []
    left_out: list[LeftOut] = []
    seen: set[type] = set()
    for name, value in named:
        if not isinstance(value, type) or value in seen:
            continue
        seen.add(value)
        if exported is None and value.__module__ != module.__name__:
            if issubclass(value, BaseException):
                left_out.append(
                    LeftOut(name, f"imported from {value.__module__}; list it in __all__")
                )
            continue
        if not issubclass(value, BaseException):
            left_out.append(LeftOut(name, "not an exception class"))
        elif name in spec.exclude:
            left_out.append(LeftOut(name, "excluded in flax_errors_modules"))
        elif bases and not issubclass(value, bases):
            wanted = " or ".join(f"{b.__module__}.{b.__qualname__}" for b in bases)
            left_out.append(LeftOut(name, f"not a subclass of {wanted}"))
        else:
            kept.append((name, value))
    return kept, left_out


def module_entries(
    spec: ModuleSpec,
    candidates: Sequence[Candidate],
    catalogue_files: Mapping[str, CatalogueFile] | None,
    layout: SiteLayout | None = None,
    *,
    data: ModuleData | None = None,
) -> tuple[tuple[ErrorEntry, ...], tuple[LeftOut, ...], tuple[FormatProblem, ...]]:
    """A module's candidate classes' entries, in source order; ``catalogue_files`` None: ours.

    A class without examples is an entry (never silently missing) unless others subclass it.
    """
    layout = layout or SiteLayout.of([spec])
    data = data or ModuleData()
    fixes = () if catalogue_files is None else data.repairs
    problems: list[FormatProblem] = []
    entries: list[tuple[tuple[int, int], ErrorEntry]] = []
    left_out: list[LeftOut] = []
    # Source order within a file; files in the order the module exposes them.
    sources = {c.path: c.source for c in candidates}
    files = {path: (n, _class_lines(text)) for n, (path, text) in enumerate(sources.items())}
    for candidate in candidates:
        number, lines = files[candidate.path]
        line, docstring_line = lines.get(candidate.cls.__name__, (1, None))
        at = Location(candidate.path, docstring_line or line)
        # A library's docstring is repaired before it is read, whatever its format.
        mine = [fix for fix in fixes if fix.name == candidate.name]
        docstring, stale = repaired_docstring(candidate.cls.__dict__.get("__doc__") or "", mine)
        problems += [FormatProblem(fix.stale_message(), at) for fix in stale]
        qualname = f"{spec.name}.{candidate.name}"
        if catalogue_files is None:
            entry = parse_docstring(docstring, qualname, at.path, at.line)
        else:
            entry = _foreign_entry(docstring, qualname, at, catalogue_files.get(candidate.name))
        cls = candidate.cls
        subclasses = sum(1 for c in candidates if c.cls is not cls and issubclass(c.cls, cls))
        if subclasses and not entry.documented:
            reason = f"the base class of {subclasses} catalogued here, no examples of its own"
            left_out.append(LeftOut(candidate.name, reason))
            continue
        located = dataclasses.replace(entry, located=layout.locate(qualname))
        entries.append(((number, line), located))
    entries.sort(key=lambda pair: pair[0])
    problems += unmatched(spec.name, {c.name for c in candidates}, catalogue_files or {}, data)
    return tuple(e for _, e in entries), tuple(left_out), tuple(problems)


def message_entries(
    spec: ModuleSpec, files: Mapping[str, CatalogueFile], layout: SiteLayout | None = None
) -> tuple[ErrorEntry, ...]:
    """The entries of a group of message entries: one per catalogue file, named by it."""
    layout = layout or SiteLayout.of([spec])
    entries = []
    for stem, file in sorted(files.items()):
        qualname = f"{spec.name}.{stem}"
        entry = parse_docstring(file.text, qualname, file.path, 1, message=True)
        if not stem.isidentifier():
            problem = FormatProblem(
                f"a message entry's file name is its name: {stem!r} is not an identifier "
                "(CamelCase, such as StaticAttributeHoldsArrays.txt)",
                Location(file.path, 1),
            )
            entry = dataclasses.replace(entry, problems=(*entry.problems, problem))
        entries.append(dataclasses.replace(entry, located=layout.locate(qualname)))
    return tuple(entries)


def unmatched(
    module: str, classes: Collection[str], files: Mapping[str, CatalogueFile], data: ModuleData
) -> list[FormatProblem]:
    """The catalogue files, and names in the module's data, that name no class of ``module``."""
    names = sorted(classes)

    def hint(name: str, suffix: str) -> str:
        close = difflib.get_close_matches(name, names, n=1)
        return f"; did you mean {close[0]}{suffix}?" if close else ""

    problems = []
    for stem, file in files.items():
        if stem not in names:
            message = f"this catalogue file names no class of {module}: no {module}.{stem}"
            problems.append(FormatProblem(message + hint(stem, ".txt"), Location(file.path, 1)))
    for key, name in dict.fromkeys(data.names(module)):
        if name not in names:
            message = f"this file's {key} names no class of {module}: no {module}.{name}"
            problems.append(FormatProblem(message + hint(name, ""), Location(data.path, 1)))
    return problems


def _foreign_entry(
    docstring: str, qualname: str, at: Location, ours: CatalogueFile | None
) -> ErrorEntry:
    # A docstring that adopted the catalogue's examples (export's patch) is the entry alone.
    adopted = parse_docstring(docstring, qualname, at.path, at.line)
    if adopted.documented:
        return adopted
    summary, prose = parse_prose(docstring, at.path, at.line)
    upstream = parse_upstream(docstring, at.path, at.line)
    theirs = (upstream,) if upstream is not None else ()
    if ours is None:
        return ErrorEntry(qualname, summary, prose, theirs, (), at)
    entry = parse_docstring(ours.text, qualname, ours.path, 1)
    # Our file's opening line is the summary; the library's docstring, the explanation, first.
    return dataclasses.replace(
        entry,
        summary=entry.summary or summary,
        prose=prose + entry.prose,
        examples=entry.examples + theirs,
        location=at,
    )


def _class_lines(source: str) -> dict[str, tuple[int, int | None]]:
    lines: dict[str, tuple[int, int | None]] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef):
            has_docstring = ast.get_docstring(node, clean=False) is not None
            line = node.decorator_list[0].lineno if node.decorator_list else node.lineno
            lines.setdefault(node.name, (line, node.body[0].lineno if has_docstring else None))
    return lines
