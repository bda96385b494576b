"""A docstring in its module's source: where its literal sits, and how it is written back.

``ast`` gives positions as (line, UTF-8 byte offset); an edit needs indexes into
the text. A new docstring is written as Flax writes string literals: raw where
that keeps it readable, with any quote that could close it escaped.
"""

from __future__ import annotations

import io
import re
import tokenize

STRING_PREFIX = re.compile(r"([A-Za-z]*)('''|\"\"\"|'|\")")
"""A string literal's prefix letters and its opening quote."""


def string_literal(value: str, prefix: str, quote: str, *, flax_backslash: bool) -> str:
    """``value`` as a string literal, raw where that keeps it readable."""
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


def is_one_string(literal: str) -> bool:
    """Whether ``literal`` is one string token (not implicitly joined ones)."""
    tokens = tokenize.generate_tokens(io.StringIO(literal).readline)
    kinds = [t.type for t in tokens if t.type not in (tokenize.NEWLINE, tokenize.ENDMARKER)]
    return kinds == [tokenize.STRING]


def line_starts(source: str) -> list[int]:
    """The index in ``source`` where each of its lines starts."""
    starts = [0]
    for line in source.split("\n")[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    return starts


def source_index(source: str, starts: list[int], lineno: int, byte_offset: int) -> int:
    """The index in ``source`` of ``ast``'s (line, UTF-8 byte offset) position."""
    line = source[starts[lineno - 1] : starts[lineno] if lineno < len(starts) else len(source)]
    return starts[lineno - 1] + len(line.encode("utf-8")[:byte_offset].decode("utf-8", "replace"))
