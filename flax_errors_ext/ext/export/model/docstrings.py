"""The catalogue's examples put into the library's own docstrings, as a patch, each read back."""

from __future__ import annotations

import ast
import dataclasses
import difflib
import io
import re
import tokenize
from typing import TYPE_CHECKING

from flax_errors_ext.ext.export.model.style import (
    compose,
    examples_section,
    flax_prose,
    kept_examples,
    our_lines,
)
from flax_errors_ext.model.catalogue.discover import unmatched
from flax_errors_ext.model.catalogue.module_data import ModuleData
from flax_errors_ext.model.catalogue.parse import parse_docstring
from flax_errors_ext.model.catalogue.records import FormatProblem, Location

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from flax_errors_ext.ext.export.model.style import Section
    from flax_errors_ext.model.catalogue.discover import CatalogueFile
    from flax_errors_ext.model.catalogue.module_data import DocstringFix
    from flax_errors_ext.model.catalogue.records import ErrorEntry


_STRING_PREFIX = re.compile(r"([A-Za-z]*)('''|\"\"\"|'|\")")


class ExportError(Exception):
    """The source cannot be read as Python; the message names its ``file:line``."""


@dataclasses.dataclass(frozen=True)
class Exported:
    """The source with the catalogue's examples in its docstrings."""

    text: str
    changed: tuple[str, ...]
    """The classes whose docstrings the new text changes, in source order."""
    problems: tuple[FormatProblem, ...]
    """Catalogue files that name no class, entries left unchanged, repairs not made."""


@dataclasses.dataclass(frozen=True)
class _DocstringSite:
    start: int
    end: int
    indent: str
    prefix: str
    quote: str
    theirs: str | None
    own_line: bool
    """Whether the docstring goes on a line of its own, before a body it does not replace."""


def export_docstrings(
    source: str,
    catalogue: Mapping[str, CatalogueFile],
    *,
    module: str = "flax.errors",
    path: str = "flax/errors.py",
    fixes: Sequence[DocstringFix] = (),
) -> Exported:
    """``source`` with each class's ``catalogue`` file in its docstring; raises ExportError."""
    try:
        tree = ast.parse(source)
    except SyntaxError as error:
        raise ExportError(
            f"{path}:{error.lineno or 1}: cannot read it as Python: {error.msg}"
        ) from None
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    starts = [0, *(newline.end() for newline in re.finditer("\n", source))]
    newline = "\r\n" if "\r\n" in source else "\n"
    problems = _unmatched(catalogue, fixes, classes, module, path)
    edits: dict[str, tuple[int, int, str]] = {}
    for name, node in classes.items():
        if (file := catalogue.get(name)) is None:
            continue
        mine = [fix for fix in fixes if fix.name == name]
        edit, found = _export_class(source, starts, node, file, f"{module}.{name}", path, mine)
        problems += found
        if edit is not None:
            start, end, text = edit
            if source[start:end] != text.replace("\n", newline):
                edits[name] = (start, end, text.replace("\n", newline))
    text = source
    for start, end, new in sorted(edits.values(), reverse=True):
        text = text[:start] + new + text[end:]
    return Exported(text, tuple(edits), tuple(problems))


def _unmatched(
    catalogue: Mapping[str, CatalogueFile],
    fixes: Sequence[DocstringFix],
    classes: Mapping[str, ast.ClassDef],
    module: str,
    path: str,
) -> list[FormatProblem]:
    problems = unmatched(module, classes, catalogue, ModuleData())
    for fix in fixes:
        if fix.name in catalogue:
            continue
        if fix.name in classes:
            why, line = "it has no catalogue file", classes[fix.name].lineno
        else:
            why, line = f"{module} has no such class", 1
        message = f"a repair of {fix.name}'s docstring is not made: {why}"
        problems.append(FormatProblem(message, Location(path, line)))
    return problems


def unified_patch(old: str, new: str, label: str = "flax/errors.py") -> str:
    """A diff of the file ``label`` that ``patch -p1`` and ``git apply`` take; "" if none."""
    # Lines as ``patch`` counts them: each ends in a newline, but perhaps the last.
    old_lines, new_lines = (re.findall(r"[^\n]*\n|[^\n]+\Z", text) for text in (old, new))
    return "".join(
        line if line.endswith("\n") else f"{line}\n\\ No newline at end of file\n"
        for line in difflib.unified_diff(old_lines, new_lines, f"a/{label}", f"b/{label}")
    )


def _export_class(
    source: str,
    starts: list[int],
    node: ast.ClassDef,
    file: CatalogueFile,
    qualname: str,
    path: str,
    fixes: Sequence[DocstringFix],
) -> tuple[tuple[int, int, str] | None, list[FormatProblem]]:
    wanted, refused = _catalogue_entry(file, qualname)
    if refused:
        return None, refused
    at = Location(path, node.body[0].lineno)
    site = _docstring_site(source, starts, node.body[0], qualname, at)
    if isinstance(site, FormatProblem):
        return None, [site]
    section = examples_section(kept_examples(wanted), len(site.indent))
    opening = len(site.indent) + len(site.prefix) + len(site.quote)
    summary, ours = our_lines(file.text, section, len(site.indent), opening)
    held = [file.text, "\n".join(summary), "\n".join(ours)]
    flax_lines, problems = flax_prose(site.theirs or "", held, fixes, at)
    value = compose(summary, flax_lines, ours, site.indent)
    if not value:
        why = f"{qualname} is left unchanged: its file holds nothing for every release"
        return None, [*problems, FormatProblem(why, at)]
    flax_backslash = any("\\" in x for x in flax_lines)
    text = _string_literal(value, site.prefix, site.quote, flax_backslash=flax_backslash)
    if (unreadable := _read_back_problem(text, section, qualname, at)) is not None:
        return None, [*problems, unreadable]
    if site.own_line:
        text = f"{site.indent}{text}\n"
    return (site.start, site.end, text), problems


def _docstring_site(
    source: str, starts: list[int], first: ast.stmt, qualname: str, at: Location
) -> _DocstringSite | FormatProblem:
    start = _source_index(source, starts, first.lineno, first.col_offset)
    end = _source_index(
        source, starts, first.end_lineno or first.lineno, first.end_col_offset or 0
    )
    indent = source[starts[first.lineno - 1] : start]
    if indent.strip():
        return FormatProblem(f"{qualname}: its body shares a line with the class", at)
    constant = (
        first.value.value
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
        else None
    )
    if not isinstance(constant, str):
        if isinstance(first, ast.Pass) or constant is Ellipsis:
            # A body of only ``pass`` or ``...`` is replaced by the docstring.
            return _DocstringSite(start, end, indent, "", '"""', None, own_line=False)
        # A body without a docstring: the docstring goes on a line of its own before it.
        line = starts[first.lineno - 1]
        return _DocstringSite(line, line, indent, "", '"""', None, own_line=True)
    literal = source[start:end]
    # One string token, not implicitly joined ones.
    tokens = tokenize.generate_tokens(io.StringIO(literal).readline)
    kinds = [t.type for t in tokens if t.type not in (tokenize.NEWLINE, tokenize.ENDMARKER)]
    if kinds != [tokenize.STRING]:
        return FormatProblem(f"{qualname}: its docstring is not one string literal", at)
    match = _STRING_PREFIX.match(literal)
    prefix, quote = (match.group(1), match.group(2)) if match else ("", '"""')
    quote = quote if len(quote) == 3 else '"""'
    return _DocstringSite(start, end, indent, prefix, quote, constant, own_line=False)


def _read_back_problem(
    text: str, section: Section | None, qualname: str, at: Location
) -> FormatProblem | None:
    got = parse_docstring(ast.literal_eval(text), qualname, at.path, at.line)
    shape = tuple((e.kind, len(e.statements)) for e in got.examples)
    if not got.problems and shape == (section.shape if section else ()):
        return None
    why = got.problems[0].message if got.problems else "its examples would read otherwise"
    return FormatProblem(f"{qualname} is left unchanged: in its docstring, {why}", at)


def _catalogue_entry(file: CatalogueFile, qualname: str) -> tuple[ErrorEntry, list[FormatProblem]]:
    wanted = parse_docstring(file.text, qualname, file.path, 1)
    refused = [
        FormatProblem(
            f"{qualname} is not exported: its entry is malformed: {p.message}", p.location
        )
        for p in wanted.problems
    ]
    if not refused and not wanted.summary:
        why = f"{qualname} is not exported: its file has no summary"
        refused.append(FormatProblem(why, Location(file.path, 1)))
    return wanted, refused


def _string_literal(value: str, prefix: str, quote: str, *, flax_backslash: bool) -> str:
    letters = prefix.replace("r", "").replace("R", "")
    raw_ok = (
        quote not in value
        and not value.endswith(("\\", quote[0]))
        and "\r" not in value
        and "\x00" not in value
    )
    was_raw = prefix != letters
    if raw_ok and (was_raw or ("\\" in value and not flax_backslash)):
        return f"{prefix if was_raw else letters + 'r'}{quote}{value}{quote}"
    body = value.replace("\\", "\\\\").replace("\r", "\\r")
    # Every quote of a run that could close the string, and one that would touch the end.
    closing = re.compile(f"{quote[0]}{{2,}}|{quote[0]}\\Z")
    body = closing.sub(lambda run: f"\\{quote[0]}" * len(run.group()), body)
    return f"{letters}{quote}{body}{quote}"


def _source_index(source: str, starts: list[int], lineno: int, byte_offset: int) -> int:
    """The index in ``source`` of ``ast``'s (line, UTF-8 byte offset) position."""
    line = source[starts[lineno - 1] :].encode("utf-8")
    return starts[lineno - 1] + len(line[:byte_offset].decode("utf-8", "replace"))
