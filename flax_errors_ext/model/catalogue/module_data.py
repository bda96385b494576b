"""What a catalogue folder's ``module.toml`` says (docs/options.md, "A module's data")."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from flax_errors_ext.model.catalogue.parse import cleandoc_lines

if TYPE_CHECKING:
    from collections.abc import Sequence

MODULE_DATA = "module.toml"


@dataclasses.dataclass(frozen=True)
class DocstringFix:
    """One exact substitution in one class's docstring."""

    name: str
    """The class whose docstring it is made in."""
    old: str
    """Never a part of ``new``: a second export finds it made already."""
    new: str
    why: str
    path: str = ""
    """The ``module.toml`` that lists it, where a stale repair is to be reviewed."""

    def __post_init__(self) -> None:
        if not self.old or self.old in self.new:
            raise ValueError(f"a repair of {self.name} must replace text that it does not keep")
        if self.old.count("\n") != self.new.count("\n"):
            raise ValueError(
                f"a repair of {self.name} must keep the number of lines, so that the "
                "docstring's later lines keep their file:line"
            )

    def stale_message(self) -> str:
        """What a report says when the docstring holds neither text."""
        return (
            f"{self.name}: a repair is not made, its docstring no longer holds "
            f"{self.old!r}; review it in {self.path or 'its module.toml'}"
        )


def repaired(text: str, fixes: Sequence[DocstringFix]) -> tuple[str, tuple[DocstringFix, ...]]:
    """``text`` with every repair made, and the stale ones: neither text there (or no ``old``)."""
    stale = []
    for fix in fixes:
        if fix.old in text:
            text = text.replace(fix.old, fix.new)
        elif not fix.new or fix.new not in text:
            stale.append(fix)
    return text, tuple(stale)


def repaired_docstring(
    docstring: str, fixes: Sequence[DocstringFix]
) -> tuple[str, tuple[DocstringFix, ...]]:
    """A ``__doc__`` with the repairs made (dedented, every line kept), and the stale repairs."""
    cleaned = "\n".join(cleandoc_lines(docstring))
    text, stale = repaired(cleaned, fixes)
    return (docstring if text == cleaned else text), stale


@dataclasses.dataclass(frozen=True)
class ModuleData:
    """A module's data; empty where it has no ``module.toml``."""

    path: str = ""
    order: int | None = None
    """Where the module's areas come on the index (lower first; none: last, by name)."""
    area: str = ""
    areas: tuple[tuple[str, tuple[str, ...]], ...] = ()
    related: tuple[tuple[str, ...], ...] = ()
    """Groups of errors, by full dotted names."""
    notes: tuple[tuple[str, str, str], ...] = ()
    """``(class name, docname, link text)`` of each design note about an error."""
    repairs: tuple[DocstringFix, ...] = ()

    def names(self, module: str) -> list[tuple[str, str]]:
        """``(key, class name)`` of each class of ``module`` that the data names."""
        found = [("areas", name) for _, names in self.areas for name in names]
        found += [
            ("related", qualname.rpartition(".")[2])
            for group in self.related
            for qualname in group
            if qualname.rpartition(".")[0] == module
        ]
        found += [("notes", name) for name, _, _ in self.notes]
        return found + [("repair", fix.name) for fix in self.repairs]


def module_data(module: str, path: str, table: dict[str, Any]) -> ModuleData:
    """The data of ``module`` in its ``module.toml`` table; ValueError says which key is wrong."""
    _known(table, ("order", "area", "areas", "related", "notes", "repair"), "")
    order, area = table.get("order"), table.get("area", "")
    _require(order is None or type(order) is int, "order must be an integer")
    _require(isinstance(area, str), "area must be a string")
    areas = [(name, _names(names, f"areas.{name}")) for name, names in _table(table, "areas")]
    listed = [name for _, names in areas for name in names]
    twice = sorted({name for name in listed if listed.count(name) > 1})
    _require(not twice, f"an error is in one area at most: {', '.join(twice)} in two")
    groups = table.get("related", [])
    _require(isinstance(groups, list), "related must be a list of groups of class names")
    related = [_names(group, "each group of related") for group in groups]
    notes = []
    for name, note in _table(table, "notes"):
        doc, title = _strings(note, ("doc", "title"), f"notes.{name}")
        notes.append((name, doc, title))
    repairs = table.get("repair", [])
    _require(isinstance(repairs, list), "repair must be an array of tables ([[repair]])")
    fixes = []
    for repair in repairs:
        name, old, new, why = _strings(repair, ("error", "old", "new", "why"), "[[repair]]")
        fixes.append(DocstringFix(name, old, new, why, path))
    return ModuleData(
        path,
        order,
        area,
        tuple(areas),
        tuple(tuple(name if "." in name else f"{module}.{name}" for name in g) for g in related),
        tuple(notes),
        tuple(fixes),
    )


def _require(holds: bool, message: str) -> None:
    if not holds:
        raise ValueError(message)


def _known(table: dict[str, Any], keys: tuple[str, ...], where: str) -> None:
    unknown = [key for key in table if key not in keys]
    _require(
        not unknown,
        f"unknown key {where}{unknown[0] if unknown else ''} (known: {', '.join(keys)})",
    )


def _table(table: dict[str, Any], key: str) -> list[tuple[str, Any]]:
    found = table.get(key, {})
    _require(isinstance(found, dict), f"{key} must be a table ([{key}])")
    return list(found.items())


def _names(value: object, what: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(name, str) and name for name in value):
        raise ValueError(f"{what} must be a list of class names")
    return tuple(value)


def _strings(value: object, keys: tuple[str, ...], where: str) -> tuple[str, ...]:
    if not isinstance(value, dict):
        raise ValueError(f"{where} must be a table of {', '.join(keys)}")
    _known(value, keys, f"{where}.")
    _require(
        all(isinstance(value.get(key), str) for key in keys),
        f"{where} needs {', '.join(keys)}, each a string",
    )
    return tuple(value[key] for key in keys)
