"""Flax's style for docstring text: 80 columns, 2-space indents, no release numbers.

Flax formats its code with pyink (``pyink-indentation = 2``, ``line-length = 80``,
majority quotes), and its docstrings are Google style, read by napoleon. Code is
reformatted by pyink itself, never by hand; prose and documented output are wrapped
at spaces, which doctest's ``NORMALIZE_WHITESPACE`` reads as the one line printed.
Pure: text in, text out.
"""

from __future__ import annotations

import ast
import io
import re
import textwrap
import tokenize

WIDTH = 80
INDENT = "  "
NORMALIZE = "# doctest: +NORMALIZE_WHITESPACE"

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

    Doctest statements cannot hold a blank line (it ends the statement), so the
    ones pyink puts after a ``class`` line go; a line inside a string stays. A
    triple-quoted string takes single quotes, which a docstring holds unescaped.
    The source is returned unchanged where the result would not be the same program.

    Raises:
        FormatterMissingError: if pyink is not installed.
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
    """``code`` less its blank lines, but for those inside a string."""
    in_string: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(code).readline):
        if token.type == tokenize.STRING and token.end[0] > token.start[0]:
            in_string.update(range(token.start[0] + 1, token.end[0] + 1))
    lines = code.split("\n")
    kept = [line for n, line in enumerate(lines, 1) if line.strip() or n in in_string]
    return "\n".join(kept).rstrip("\n") + "\n"


def wrap_at_spaces(text: str, width: int, initial_indent: str = "") -> list[str]:
    """``text`` in lines of at most ``width``, broken only at spaces (never in a word)."""
    return textwrap.wrap(
        text, width, initial_indent=initial_indent, break_long_words=False, break_on_hyphens=False
    )


def elided_links(text: str) -> str:
    """``text`` with each URL as ``...``; a link that closes it is one ``...``."""
    text = _URL.sub("...", text)
    return _ELIDED_LINK.sub(" ...", text)


def wrapped_output(text: str, width: int) -> tuple[list[str], bool]:
    """Documented output in lines of at most ``width``, and whether any was wrapped.

    A line is broken only at its spaces, so that ``NORMALIZE_WHITESPACE`` matches it
    to the printed one; a break never starts a line with ``...``, which doctest
    would read as the statement's continuation.
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
    """Prose in lines of at most ``width``: plain paragraphs rewrapped, the rest kept.

    A list, a literal block (after ``::``), a directive or a doctest keeps its lines.
    """
    lines: list[str] = []
    for paragraph in re.split(r"\n\s*\n", text.strip()):
        rows = paragraph.split("\n")
        if all(row and not row[0].isspace() for row in rows) and not _NOT_PLAIN.match(rows[0]):
            rows = wrap_at_spaces(" ".join(row.strip() for row in rows), width)
        if lines:
            lines.append("")
        lines += rows
    return lines
