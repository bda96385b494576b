"""What an entry's signature needs: a constructor autodoc can read, its types kept.

An entry takes only the signature from autodoc and renders the docstring itself.

* A constructor written in C may have no qualified name: nanobind's methods (the
  ``__init__`` of jaxlib's ``JaxRuntimeError``) answer ``__qualname__`` with None
  and state their signature only in their docstring. autodoc shows ``(*args,
  **kwargs)`` for such a class, and sphinx-autodoc-typehints (3.17.6) fails on it.
  :func:`readable_constructor` gives the class, while autodoc reads it, a Python
  constructor that calls the C one and states its signature.
* sphinx-autodoc-typehints moves types into the docstring's fields, which the
  entry empties: :func:`keep_types_in_signature` keeps them in the signature.
"""

from __future__ import annotations

import inspect
import re
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from sphinx.util.inspect import signature_from_str

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from sphinx.application import Sphinx
    from sphinx.config import Config

_CONSTRUCTORS = ("__new__", "__init__")

_STATED = re.compile(r"(?:[A-Za-z_][\w.]*)?(\(.*\))\s*(?:->\s*(.+))?")
"""A signature a docstring's first line states: ``(self, msg: str) -> None``, its
name (pybind11 writes ``__init__(...)``) optional."""


@contextmanager
def readable_constructor(cls: type) -> Iterator[None]:
    """Give ``cls``, for the time autodoc reads it, a constructor with a qualified name.

    The class's own attributes are put back afterwards; a class that takes no new
    attributes (a built-in type) is left as it is.
    """
    own: dict[str, Any] = {}
    try:
        for name in _CONSTRUCTORS:
            native = nameless_constructor(cls, name)
            if native is None:
                continue
            before = cls.__dict__.get(name)
            try:
                setattr(cls, name, _stand_in(cls, name, native))
            except TypeError:  # an immutable type
                continue
            own[name] = before
        yield
    finally:
        for name, before in own.items():
            if before is None:
                delattr(cls, name)
            else:
                setattr(cls, name, before)


def nameless_constructor(cls: type, name: str) -> Callable[..., Any] | None:
    """The ``__new__`` or ``__init__`` of ``cls``, inherited or its own, if it has no qualname.

    Such as nanobind's ``nb_method``, whose ``__qualname__`` is not a string.
    """
    for klass in cls.__mro__:
        if name in vars(klass):
            found = vars(klass)[name]
            function = found.__func__ if isinstance(found, staticmethod) else found
            qualname = getattr(function, "__qualname__", "")
            return None if isinstance(qualname, str) else function
    return None


def stated_signature(function: Callable[..., Any]) -> inspect.Signature | None:
    """The signature a C function states, in its docstring's first line or as CPython's do.

    Annotations and defaults stay their source text, as autodoc reads them. None
    when it states none.
    """
    doc = getattr(function, "__doc__", None)
    lines = doc.strip().splitlines() if isinstance(doc, str) else []
    stated = _STATED.fullmatch(lines[0].strip()) if lines else None
    if stated is not None:
        try:
            return signature_from_str(f"{stated[1]} -> {stated[2]}" if stated[2] else stated[1])
        except (SyntaxError, ValueError):
            pass  # not a signature after all: ask inspect
    try:
        found = inspect.signature(function)
    except (TypeError, ValueError):
        return None
    varargs = {inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD}
    return None if all(p.kind in varargs for p in found.parameters.values()) else found


def _stand_in(cls: type, name: str, native: Callable[..., Any]) -> Any:
    """A Python ``name`` for ``cls`` that calls ``native`` and states its signature."""

    def constructor(*args: Any, **kwargs: Any) -> Any:
        return native(*args, **kwargs)

    constructor.__name__ = name
    constructor.__qualname__ = f"{cls.__qualname__}.{name}"
    constructor.__module__ = cls.__module__
    constructor.__doc__ = getattr(native, "__doc__", None)
    signature = stated_signature(native)
    if signature is not None:
        # What inspect.signature (autodoc) and sphinx-autodoc-typehints read.
        vars(constructor)["__signature__"] = signature
        annotations = {
            p.name: p.annotation
            for p in signature.parameters.values()
            if p.annotation is not p.empty
        }
        if signature.return_annotation is not signature.empty:
            annotations["return"] = signature.return_annotation
        constructor.__annotations__ = annotations
    return staticmethod(constructor) if name == "__new__" else constructor


SIGNATURE_ONLY: set[str] = set()
"""Classes whose autodoc output is being built for a signature (one read at a time)."""


def signature_only(
    app: Sphinx, what: str, name: str, obj: Any, options: Any, lines: list[str]
) -> None:
    """Empty the docstring autodoc renders for an entry: the entry renders it itself."""
    if name in SIGNATURE_ONLY:
        lines[:] = []


TYPEHINTS = "sphinx_autodoc_typehints"
_USE_SIGNATURE = "typehints_use_signature"


def keep_types_in_signature(app: Sphinx, config: Config) -> None:
    """Turn sphinx-autodoc-typehints' ``typehints_use_signature`` on, unless the project sets it.

    Left off, an entry would show no types at all.
    """
    if TYPEHINTS not in app.extensions:
        return
    # Sphinx keeps what conf.py set apart from the defaults only in _raw_config
    # (6.2.1 to 9.2 alike); a default cannot tell "set to False" from "not set".
    if _USE_SIGNATURE in config._raw_config or _USE_SIGNATURE in config.overrides:
        return
    config[_USE_SIGNATURE] = True
