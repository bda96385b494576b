"""The examples a library's docstring keeps: one bad and one good, in Flax's style.

The first bad and the first good example that hold on every release (the site
shows them all), in a napoleon ``Examples:`` section that the library's doctests
run and :mod:`~flax_errors_ext.model.catalogue.parse` reads back. A URL in
documented output is ``...`` (``ELLIPSIS``, which Flax's pytest enables); output
longer than a line is wrapped under ``NORMALIZE_WHITESPACE``. Each example keeps
its imports: doctest runs a docstring's examples in one namespace, the site each
in its own, and both must give the same verdict. Pure: records in, lines out.
"""

from __future__ import annotations

import dataclasses
import doctest
import io
import tokenize
from typing import TYPE_CHECKING

from flax_errors_ext.ext.export.model.style import (
    INDENT,
    NORMALIZE,
    WIDTH,
    elided_links,
    flax_code,
    mentions_release,
    wrapped_output,
    wrapped_prose,
)
from flax_errors_ext.model.catalogue.records import ExampleKind

if TYPE_CHECKING:
    from collections.abc import Sequence

    from flax_errors_ext.model.catalogue.records import ErrorEntry, Example, Statement

_PROMPT = ">>> "


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
    """The statement's prompt lines and its documented output, ``width`` wide."""
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
    """The code with ``NORMALIZE_WHITESPACE`` on, on the last line it fits on.

    Only a line that ends outside a string can take the comment. Where none has
    room, the code is formatted narrower (a call then ends in a line of its own).
    """
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
