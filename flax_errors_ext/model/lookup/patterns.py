"""What in an error message is a value of one run (a wildcard), and the pattern it becomes."""

from __future__ import annotations

import ast
import builtins
import functools
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from flax_errors_ext.model.catalogue.records import Example

VALUE_LIBRARIES = (
    *("builtins", "numpy", "jax", "jaxlib", "ml_dtypes"),
    *("scipy", "pandas", "torch", "tensorflow", "PIL"),
)
"""Packages whose types are values, not classes a user wrote (``<class '...MLP'>``): a
``torch.Tensor`` given to JAX is data of another library, not a Linen Module."""

_USER_CODE = r"(?!(?:" + "|".join(VALUE_LIBRARIES) + r")\.)"
# A class's module and qualified name; a class defined in a function has <locals>.
_QUALIFIED = r"(?:(?:[A-Za-z_]\w*|<locals>)\.)+[A-Za-z_]\w*"
_BUILTIN_TYPES = sorted(
    {name for name, value in vars(builtins).items() if isinstance(value, type)}
    | {"NoneType", "function", "module", "method"}
)
# A class of the user's code: qualified by a module not a value library's, or
# unqualified (defined where __name__ is not set, as in a kernel) and not a builtin.
_USER_CLASS = _USER_CODE + _QUALIFIED + "|(?!(?:" + "|".join(_BUILTIN_TYPES) + r")')[A-Za-z_]\w*"
_ELIDED_CLASS = r"'\.\.\.(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*'"

# (name, pattern, what a documented value of the kind matches, its placeholder when
# comparing by likeness). Earlier kinds win where two start at one place. Only syntax
# that Python's re and JavaScript's RegExp read alike.
_KINDS: tuple[tuple[str, str, str, str], ...] = (
    # A repr may hold another (<function <lambda> at 0x...>): one level is matched.
    (
        "repr",
        r"<[\w.]+ [^<>\n]*? at 0x[0-9a-fA-F]*(?:\.\.\.)?>",
        r"<[^<>]*(?:<[^<>]*>[^<>]*)*>",
        "<object>",
    ),
    # A traced value as JAX prints it; before 0.4.36 with its abstract value and trace
    # (Traced<ShapedArray(float32[3])>with<DynamicJaxprTrace(level=1/0)>): one run's.
    (
        "tracer",
        r"traced array with shape \w+\[[\d,]*\]|Traced<(?:[^<>\n]|<[^<>\n]*>)*>with<[^<>\n]*>",
        r"(?:traced array with shape \w+\[[\d,]*\]|Traced<(?:[^<>]|<[^<>]*>)*>with<[^<>]*>)",
        "<tracer>",
    ),
    ("ellipsis", r"\.\.\.", r"[\s\S]*?", " "),
    ("url", r"https?://[^\s)]+", r"[^\s)]*", "<url>"),
    # A type's own quotes ('<class '...MLP'>', as in Flax's Pytree errors) are its, not
    # quoted text's; a reader may paste it cut short ('...models.MLP').
    (
        "type",
        r"'?<class '(?:\.\.\.[A-Za-z_]\w*|" + _USER_CLASS + ")'>'?|" + _ELIDED_CLASS,
        "(?:'?<class '(?:" + _USER_CLASS + ")'>'?|" + _ELIDED_CLASS + ")",
        "<type>",
    ),
    # An abstract value as JAX prints it (bfloat16[128], float32[2,4], bool[]): one run's.
    (
        "aval",
        r"\b(?:b?float|u?int|complex)\d+\[[\d,]*\]|\bbool\[[\d,]*\]",
        r"\w+\[[\d,]*\]",
        "<aval>",
    ),
    ("dq", r'"[^"\n]*"', r'"[^"]*"', "<q>"),
    # A quoted repr may quote a word of its own (functools.partial(f, axis_name='sp')).
    ("sq", r"(?<!\w)'[^'\n]*'(?!\w)", r"'[^']*(?:'\w+'[^']*)*'", "<q>"),
    # Markdown takes a pasted message's backticks for code and shows none: a bare word.
    ("bq", r"`[^`\n]*`", r"(?:`[^`]*`|[\w.]+)", "<q>"),
    ("shape", r"\((?:\s*\d+\s*,)*\s*\d*\s*\)", r"\([\d\s,]*\)", "<shape>"),
    ("path", r"(?<![\w/:.])/[\w/]*", r"/[\w/]*", "<path>"),
    ("id", r"\b[A-Za-z]\w*_\d+\b", r"\w+", "<id>"),
    ("num", r"\b\d+(?:\.\d+)?\b", r"\d+(?:\.\d+)?", "<n>"),
    ("space", r"\s+", r"\s+", " "),
)
_VARIABLE = re.compile("|".join(f"(?P<{name}>{pattern})" for name, pattern, _, _ in _KINDS))
_WILDCARDS = {name: wildcard for name, _, wildcard, _ in _KINDS}
_PLACEHOLDERS = {name: placeholder for name, _, _, placeholder in _KINDS}
DISTINCTIVE = ("<type>",)
"""Placeholders for values that tell one mistake from another, not just one run's."""
_NAME_WILDCARD = r"\w+"
_MIN_NAME = 2
"""Names shorter than this stay literal: ``x`` is too common a word to be a value."""


def variable_kinds() -> list[dict[str, str]]:
    """The variable parts of messages, in the order tried."""
    return [
        {"name": name, "pattern": pattern, "placeholder": placeholder}
        for name, pattern, _, placeholder in _KINDS
    ]


QUOTED = ("dq", "sq", "bq")
"""The kinds of quoted text: a value of one run, unless the message is :func:`exact`."""


# A class written in full, module and all: unless the example defines it, the library's own.
_WRITTEN_CLASS = re.compile(r"'?<class '((?:[A-Za-z_]\w*\.)+)([A-Za-z_]\w*)'>'?")


def _library_class(value: str, names: frozenset[str]) -> str | None:
    """The name of the library's own class that a documented ``type`` value writes, if any.

    ``<class 'flax.nnx.variablelib.Param'>`` is that class (under any module: releases
    move classes); ``<class '...MLP'>``, ``__main__.MLP`` or a class the example
    defines is any class of the reader's.
    """
    found = _WRITTEN_CLASS.fullmatch(value)
    if found is None or found.group(1) == "__main__." or found.group(2) in names:
        return None
    return found.group(2)


def pattern_source(
    documented: str, names: frozenset[str] = frozenset(), exact: bool = False
) -> str:
    """The source of :func:`message_pattern`, to be compiled with DOTALL (JavaScript's ``s``)."""
    return "".join(
        _literal(text, names)
        if kind is None
        else rf"'?<class '(?:[A-Za-z_][\w.]*\.)?{text}'>'?"
        if kind == "class"
        else _WILDCARDS[kind]
        for kind, text in _segments(documented, names, exact)
    )


def library_classes(documented: str, names: frozenset[str] = frozenset()) -> int:
    """How many of the library's own classes ``documented`` names (:func:`_library_class`)."""
    return sum(kind == "class" for kind, _ in _segments(documented, names, False))


@functools.lru_cache(maxsize=4096)
def message_pattern(
    documented: str, names: frozenset[str] = frozenset(), exact: bool = False
) -> re.Pattern[str]:
    """A pattern that matches ``documented`` with other values in its variable parts.

    ``exact``: quoted text (but one of ``names``) is matched as written.
    """
    return re.compile(pattern_source(documented, names, exact), re.DOTALL)


@functools.lru_cache(maxsize=4096)
def literal_parts(
    documented: str, names: frozenset[str] = frozenset(), exact: bool = False
) -> tuple[str, ...]:
    """The parts of ``documented`` that :func:`message_pattern` matches only as written."""
    pieces = []
    for kind, text in _segments(documented, names, exact):
        if kind == "class":
            pieces.append(text)
        if kind is not None:
            continue
        # The example's names are wildcards too: the words between them are fixed.
        words = re.split(r"\b(\w+)\b", text) if names else [text]
        pieces += [w for n, w in enumerate(words) if w and not (n % 2 and w in names)]
    return tuple(pieces)


def _segments(documented: str, names: frozenset[str], exact: bool) -> list[tuple[str | None, str]]:
    documented = documented.strip()
    segments: list[tuple[str | None, str]] = []
    at = 0
    for match in _VARIABLE.finditer(documented):
        kind = match.lastgroup or "space"
        # Kept as written, with the text around it; but a quoted ``...`` is any text, as
        # doctest reads it ('float' and '...': the type the user's code gave).
        if exact and kind in QUOTED and match.group()[1:-1] not in {*names, "..."}:
            continue
        segments.append((None, documented[at : match.start()]))
        library_class = _library_class(match.group(), names) if kind == "type" else None
        # A library's class is matched by its name: the segment holds the name alone.
        segments.append(("class", library_class) if library_class else (kind, match.group()))
        at = match.end()
    segments.append((None, documented[at:]))
    return segments


def _literal(text: str, names: frozenset[str]) -> str:
    words = re.split(r"\b(\w+)\b", text) if names else [text]
    return "".join(
        _NAME_WILDCARD if n % 2 and w in names else re.escape(w) for n, w in enumerate(words)
    )


@functools.lru_cache(maxsize=4096)
def normalise(text: str) -> str:
    """``text`` with its variable parts replaced by placeholders, for similarity."""
    flat = _VARIABLE.sub(lambda match: _PLACEHOLDERS[match.lastgroup or "space"], text)
    return " ".join(flat.casefold().split())


def keeps_distinctive(known: str, flat: str) -> bool:
    """Whether a paste keeps every distinctive value (a user's class) of a documented message."""
    return all(flat.count(mark) >= known.count(mark) for mark in DISTINCTIVE)


API_NAME = re.compile(r"\b[a-z]\w*_\w*[a-z\d]\b|\b[a-z]\w+(?:\.(?!__)[a-z_]\w*)+", re.ASCII)
"""A name written as code (JavaScript reads it alike): with an underscore, or dotted.

Not a class's special method (``MLP.__init__``): the class is the reader's choice."""


@functools.lru_cache(maxsize=4096)
def api_names(flat: str) -> frozenset[str]:
    """The APIs a :func:`normalise` d message names as code (``shard_map``, ``jax.vmap``)."""
    return frozenset(API_NAME.findall(flat))


def names_in(documented: str, names: frozenset[str]) -> tuple[str, ...]:
    """The ``names`` that ``documented`` mentions as whole words, in order, each once."""
    words = re.findall(r"\b\w+\b", documented)
    return tuple(dict.fromkeys(w for w in words if w in names and len(w) >= _MIN_NAME))


def defined_names(example: Example) -> frozenset[str]:
    """Of :func:`example_names`, the classes and attributes: a reader's own surely differ."""
    return _names("\n".join(statement.source for statement in example.statements))[1]


def example_names(example: Example) -> frozenset[str]:
    """The names an example's code gives (string constants too): values, as a shape is."""
    return _names("\n".join(statement.source for statement in example.statements))[0]


@functools.lru_cache(maxsize=1024)
def _names(source: str) -> tuple[frozenset[str], frozenset[str]]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return frozenset(), frozenset()
    found: set[str] = set()
    defined: set[str] = set()
    # A parameter handed on under its own name (rngs=rngs) is named by the library called.
    passed_on = {
        node.arg
        for node in ast.walk(tree)
        if isinstance(node, ast.keyword)
        and isinstance(node.value, ast.Name)
        and node.value.id == node.arg
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            defined.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            defined.add(node.attr)  # self.layers = ...: the reader's attribute has its own name
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.add(node.name)
        elif isinstance(node, ast.arg) and node.arg not in passed_on:
            found.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            found.add(node.id)
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and node.value.isidentifier()
        ):
            found.add(node.value)
    return frozenset(n for n in found | defined if len(n) >= _MIN_NAME), frozenset(defined)
