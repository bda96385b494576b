"""What the export writes into a docstring, in Flax's style (pyink, Google docstrings).

Prose and output are wrapped at spaces (``NORMALIZE_WHITESPACE``), URLs are ``...``
(``ELLIPSIS``), and each example keeps its imports (the site runs each alone).
"""

from __future__ import annotations

import ast
import dataclasses
import doctest
import inspect
import io
import re
import textwrap
import tokenize
from typing import TYPE_CHECKING

from flax_errors_ext.model.catalogue.module_data import repaired
from flax_errors_ext.model.catalogue.parse import SECTION_TITLES, cut_opening
from flax_errors_ext.model.catalogue.records import ExampleKind, FormatProblem

if TYPE_CHECKING:
    from collections.abc import Sequence

    from flax_errors_ext.model.catalogue.module_data import DocstringFix
    from flax_errors_ext.model.catalogue.records import ErrorEntry, Example, Location, Statement

WIDTH = 80
INDENT = "  "
NORMALIZE = "# doctest: +NORMALIZE_WHITESPACE"
_PROMPT = ">>> "

_URL = re.compile(r"https?://[^\s)]+")
_ELIDED_LINK = re.compile(r"\s*\(\.\.\.\)(?:\.\.\.)?$")
_RELEASE = re.compile(
    r"\b\d+\.\d+\.\d+\b|\b(?:Flax|JAX|jax|flax|jaxlib|Python|NumPy)\s*(?:[<>=!]=?\s*)?\d+\.\d+"
)
_NOT_PLAIN = re.compile(r"^(?:[-*+|]\s|\d+[.)]\s|\.\. |>>>|\S+\s*:$)")


class FormatterMissingError(Exception):
    """pyink, which formats code as Flax does, is not installed."""


def mentions_release(text: str) -> bool:
    """Whether ``text`` names a release (``0.12.8``, ``Flax 0.12``): true of one release only."""
    return _RELEASE.search(text) is not None


def flax_code(source: str, width: int) -> str:
    """``source`` as pyink formats it for Flax, at ``width`` columns, without blank lines.

    A blank line would end a doctest statement; triple quotes become single ones (a docstring
    holds them); the source stays where the result would be another program.
    """
    try:
        import pyink  # only the export needs it: an extra
        from pyink.parsing import InvalidInput
    except ImportError:
        raise FormatterMissingError(
            "flax-errors export formats the examples with pyink, which is not installed: "
            "pip install 'flax-errors[export]'"
        ) from None
    mode = pyink.Mode(
        line_length=width,
        is_pyink=True,
        pyink_indentation=2,
        # The example's own quotes stay, as Flax's majority quotes keep a file's.
        string_normalization=False,
    )
    try:
        formatted = pyink.format_str(source, mode=mode)
    except (InvalidInput, ValueError):
        return source
    formatted = _without_blank_lines(formatted)
    if '"""' in formatted and "'''" not in formatted:
        # The docstring that will hold it is quoted with these, which would be escaped.
        formatted = formatted.replace('"""', "'''")
    try:
        same = ast.dump(ast.parse(formatted)) == ast.dump(ast.parse(source))
    except SyntaxError:
        same = False
    return formatted if same else source


def _without_blank_lines(code: str) -> str:
    in_string: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(code).readline):
        if token.type == tokenize.STRING and token.end[0] > token.start[0]:
            in_string.update(range(token.start[0] + 1, token.end[0] + 1))
    kept = [line for n, line in enumerate(code.split("\n"), 1) if line.strip() or n in in_string]
    return "\n".join(kept).rstrip("\n") + "\n"


def wrap_at_spaces(text: str, width: int, initial_indent: str = "") -> list[str]:
    """``text`` in lines of at most ``width``, broken only at spaces (never in a word)."""
    return textwrap.wrap(
        text, width, initial_indent=initial_indent, break_long_words=False, break_on_hyphens=False
    )


def elided_links(text: str) -> str:
    """``text`` with each URL as ``...``; a link that closes it is one ``...``."""
    return _ELIDED_LINK.sub(" ...", _URL.sub("...", text))


def wrapped_output(text: str, width: int) -> tuple[list[str], bool]:
    """Documented output in lines of at most ``width``, and whether any was wrapped.

    Broken only at spaces (``NORMALIZE_WHITESPACE``), never before ``...`` (a continuation).
    """
    lines: list[str] = []
    wrapped = False
    for line in text.rstrip("\n").split("\n"):
        if len(line) <= width or not line.strip():
            lines.append(line)
            continue
        joined: list[str] = []
        for piece in wrap_at_spaces(line, width):
            if joined and piece.startswith("..."):
                joined[-1] += f" {piece}"
            else:
                joined.append(piece)
        wrapped = wrapped or len(joined) > 1
        lines += joined
    return lines, wrapped


def wrapped_prose(text: str, width: int) -> list[str]:
    """Prose in lines of at most ``width``: plain paragraphs rewrapped, lists and blocks kept."""
    lines: list[str] = []
    for paragraph in re.split(r"\n\s*\n", text.strip()):
        rows = paragraph.split("\n")
        if all(row and not row[0].isspace() for row in rows) and not _NOT_PLAIN.match(rows[0]):
            rows = wrap_at_spaces(" ".join(row.strip() for row in rows), width)
        if lines:
            lines.append("")
        lines += rows
    return lines


@dataclasses.dataclass(frozen=True)
class Section:
    """An ``Examples:`` section, as lines below the docstring's indentation."""

    lines: tuple[str, ...]
    shape: tuple[tuple[ExampleKind, int], ...]
    """Each example's kind and number of statements, as the section should read back."""


def kept_examples(entry: ErrorEntry) -> tuple[Example, ...]:
    """The first bad and the first good example that hold on every release, bad first."""
    first = (
        next((e for e in entry.examples if e.kind is kind and not e.holds_for), None)
        for kind in (ExampleKind.BAD, ExampleKind.GOOD)
    )
    return tuple(example for example in first if example is not None)


def examples_section(examples: Sequence[Example], indent: int) -> Section | None:
    """The section holding ``examples``, for a docstring indented by ``indent``; None without."""
    if not examples:
        return None
    width = WIDTH - indent - len(INDENT)
    body: list[str] = []
    for example in examples:
        if body:
            body.append("")
        if example.description and not mentions_release(example.description):
            body += [*wrapped_prose(example.description, width), ""]
        for statement in example.statements:
            body += _statement_lines(statement, width)
    title = "Examples:" if len(examples) > 1 else "Example:"
    lines = [title, "", *(f"{INDENT}{line}" if line else "" for line in body)]
    return Section(tuple(lines), tuple((e.kind, len(e.statements)) for e in examples))


def _statement_lines(statement: Statement, width: int) -> list[str]:
    code = flax_code(statement.source, width - len(_PROMPT)).rstrip("\n").split("\n")
    if statement.exc_msg is not None:
        message, wrapped = wrapped_output(elided_links(statement.exc_msg), width)
        output = ["Traceback (most recent call last):", "  ...", *message]
    elif statement.want:
        output, wrapped = wrapped_output(elided_links(statement.want), width)
    else:
        output, wrapped = [], False
    if wrapped and not dict(statement.options).get(doctest.NORMALIZE_WHITESPACE):
        code = _with_directive(statement.source, code, width - len(_PROMPT))
    prompts = [f"{_PROMPT}{line}" if n == 0 else f"... {line}" for n, line in enumerate(code)]
    return [*(p.rstrip() for p in prompts), *output]


def _with_directive(source: str, code: list[str], width: int) -> list[str]:
    """The code, ``NORMALIZE_WHITESPACE`` on the last line with room (else formatted narrower)."""
    for candidate in (code, flax_code(source, width - len(NORMALIZE) - 2).rstrip().split("\n")):
        for n in reversed(_code_line_ends(candidate)):
            line = candidate[n]
            added = ", +NORMALIZE_WHITESPACE" if "# doctest:" in line else f"  {NORMALIZE}"
            directive = f"{line}{added}"
            if len(directive) <= width:
                return [*candidate[:n], directive, *candidate[n + 1 :]]
    last = _code_line_ends(code)[-1]
    return [*code[:last], f"{code[last]}  {NORMALIZE}", *code[last + 1 :]]


def _code_line_ends(code: list[str]) -> list[int]:
    """The indexes of the lines on which a comment may go (none ends inside a string)."""
    text = "\n".join(code) + "\n"
    ends: set[int] = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type in (tokenize.NEWLINE, tokenize.NL, tokenize.COMMENT):
                ends.add(token.start[0] - 1)
    except (tokenize.TokenError, SyntaxError):
        return [len(code) - 1]
    return sorted(n for n in ends if n < len(code)) or [len(code) - 1]


def flax_prose(
    docstring: str, ours: Sequence[str], fixes: Sequence[DocstringFix], at: Location
) -> tuple[list[str], list[FormatProblem]]:
    """Flax's docstring, dedented, less what ``ours`` hold, with the fixes made."""
    held = {key for text in ours for key, _, _ in _chunks(_cleaned(text))}
    kept: list[str] = []
    for key, chunk, gap in _chunks(_cleaned(docstring)):
        if key not in held:
            kept += [*[""] * gap, *chunk] if kept else chunk
    if cut_opening(kept):
        kept = [kept[0], *kept[2:]]
    text, stale = repaired("\n".join(kept), fixes)
    problems = [FormatProblem(fix.stale_message(), at) for fix in stale]
    return (text.split("\n") if text else []), problems


def our_lines(
    catalogue: str, section: Section | None, indent: int, opening: int
) -> tuple[list[str], list[str]]:
    """What the export writes, dedented: the summary, and explanation and examples.

    ``opening``: the width before the summary (indent, quotes). Release-bound paragraphs go.
    """
    lines = _cleaned(catalogue)
    end = next((i for i, line in enumerate(lines) if not line), len(lines))
    summary_text = " ".join(line.strip() for line in lines[:end])
    rest = lines[end:]
    end = next((i for i, line in enumerate(rest) if line in SECTION_TITLES), len(rest))
    explanation = [
        paragraph
        for paragraph in re.split(r"\n\s*\n", "\n".join(rest[:end]).strip())
        if paragraph and not mentions_release(paragraph)
    ]
    summary: list[str] = []
    if summary_text and not mentions_release(summary_text):
        summary = wrap_at_spaces(summary_text, WIDTH - indent, " " * (opening - indent))
        summary[0] = summary[0].strip()
    body = wrapped_prose("\n\n".join(explanation), WIDTH - indent) if explanation else []
    if section:
        body += ["", *section.lines] if body else section.lines
    return summary, body


def compose(summary: list[str], flax_lines: list[str], ours: list[str], indent: str) -> str:
    """The docstring's value: our summary (else Flax's opening), Flax's prose, then ours."""
    if not summary:
        end = next((i for i, line in enumerate(flax_lines) if not line), len(flax_lines))
        summary, flax_lines = flax_lines[:end], flax_lines[end + 1 :]
    lines = list(summary)
    for part in (flax_lines, ours):
        if part:
            lines += ["", *part] if lines else part
    if not lines:
        return ""
    if summary and len(lines) == 1:
        return lines[0]
    return "\n".join([lines[0], *(f"{indent}{x}" if x else "" for x in lines[1:]), indent])


def _cleaned(text: str) -> list[str]:
    return inspect.cleandoc("\n".join(line.rstrip() for line in text.split("\n"))).split("\n")


def _chunks(lines: list[str]) -> list[tuple[tuple[str, ...], list[str], int]]:
    """The runs of non-blank lines (literal blocks, doctest lines): dedented, as is, gap before."""
    found: list[tuple[tuple[str, ...], list[str], int]] = []
    chunk: list[str] = []
    gap = 0
    for line in [*lines, ""]:
        if line:
            chunk.append(line)
            continue
        if chunk:
            indent = min(len(x) - len(x.lstrip()) for x in chunk)
            found.append((tuple(x[indent:] for x in chunk), chunk, gap))
            chunk, gap = [], 0
        gap += 1
    return found
