"""What each setting accepts: readers that return the value kept, or raise TypeError saying why."""

from __future__ import annotations

import contextlib
import dataclasses
import types
import typing
from typing import TYPE_CHECKING, Any

from flax_errors_ext.layout import FLAX_BASE_URL
from flax_errors_ext.model.site.links import template_problem

if TYPE_CHECKING:
    from collections.abc import Callable


_TRUE = ("1", "true")
_FALSE = ("0", "false")


def from_text(value: Any, kind: Any) -> Any:
    """``value`` read as the declared type ``kind`` where it is text (``-D name=text``)."""
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin is dict and isinstance(value, dict):
        return {key: from_text(item, args[1]) for key, item in value.items()}
    if not isinstance(value, str):
        return value
    if origin in (typing.Union, types.UnionType) and type(None) in args:
        if value in ("", "None"):
            return None
        (rest,) = (arg for arg in args if arg is not type(None))
        return from_text(value, rest)
    if origin is tuple:
        return tuple(from_text(item.strip(), args[0]) for item in value.split(",") if item.strip())
    if kind is bool and value.strip().lower() in (*_TRUE, *_FALSE):
        return value.strip().lower() in _TRUE
    if kind is int:
        with contextlib.suppress(ValueError):
            return int(value)
    return value


def module_list(value: Any) -> tuple[ModuleSpec, ...]:
    """``flax_errors_modules``: a module listed twice is kept once, as its last listing says."""
    if not isinstance(value, list | tuple):
        raise TypeError(
            "must be a list of dotted module names, or of dicts such as "
            "{'module': 'jax.errors', 'page': 'errors'}"
        )
    specs = [ModuleSpec.from_value(item) for item in value]
    return tuple({spec.name: spec for spec in specs}.values())


def paths(kind: str) -> Callable[[Any], tuple[str, ...]]:
    """A list of ``kind`` (folder, file); one alone is text, which :func:`from_text` splits."""

    def read(value: Any) -> tuple[str, ...]:
        if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
            raise TypeError(f"must be a {kind}, or a list of {kind}s")
        return tuple(value)

    return read


def one_of(*choices: str) -> Callable[[Any], str]:
    """One of ``choices``."""

    def read(value: Any) -> str:
        if value not in choices:
            raise TypeError("must be one of " + ", ".join(repr(c) for c in choices))
        return str(value)

    return read


def http_url(value: Any) -> str:
    """An http(s) URL."""
    if not isinstance(value, str) or not value.startswith(("http://", "https://")):
        raise TypeError("must be an http(s) URL")
    return value


def whole_number(least: int, said: str, *, or_none: bool = False) -> Callable[[Any], int | None]:
    """A whole number, ``least`` or more (``said``: what it must be); or None if ``or_none``."""

    def read(value: Any) -> int | None:
        if value is None and or_none:
            return None
        if not isinstance(value, int) or isinstance(value, bool) or value < least:
            raise TypeError(f"must be {said}")
        return value

    return read


def source_links(value: Any) -> dict[str, str | None]:
    """Package name to a source-link URL template (or None), each template sound."""
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise TypeError(
            "must be a dict of package name to URL template (or None); "
            "on the command line, one package each: -D flax_errors_source_links.<package>=<URL>"
        )
    for package, template in value.items():
        problem = template_problem(template) if template is not None else ""
        if problem:
            raise TypeError(f"{package!r}: the template {problem}")
    return dict(value)


def boolean(value: Any) -> bool:
    """True or False."""
    if not isinstance(value, bool):
        raise TypeError("must be True or False (on the command line: 1, 0, true or false)")
    return value


def meta(
    help_text: str, read: Callable[[Any], Any], *, changes_pages: bool = True
) -> dict[str, Any]:
    """A field's metadata; ``changes_pages=False``: changing it need not read any page again."""
    return {"help": help_text, "read": read, "changes_pages": changes_pages}


def setting(
    default: Any, help_text: str, read: Callable[[Any], Any], *, changes_pages: bool = True
) -> Any:
    """A field of an immutable ``default``, with its :func:`meta`."""
    return dataclasses.field(
        default=default, metadata=meta(help_text, read, changes_pages=changes_pages)
    )


KNOWN_MODULES: dict[str, dict[str, Any]] = {
    "flax.errors": {"upstream": FLAX_BASE_URL},
    "jax.errors": {"page": "errors", "upstream": "https://docs.jax.dev/en/latest"},
    "flax.messages": {"messages": True},
    "jax.messages": {"messages": True},
}
"""What a module listed by name alone takes: so the URL its errors print lands on its entry."""

_SPEC_KEYS = {"module", "page", "bases", "exclude", "upstream", "messages"}


@dataclasses.dataclass(frozen=True)
class ModuleSpec:
    """One catalogued module, and what of it becomes entries on which page."""

    name: str
    """The module's dotted name: entries are ``<name>.<Class>``, their anchors too."""
    page: str = ""
    """The docname of the module's page; empty: the layout's own (``api_reference/<name>``)."""
    bases: tuple[str, ...] = ()
    """Dotted names of classes an entry must subclass; empty means any exception."""
    exclude: tuple[str, ...] = ()
    upstream: str = ""
    """The base URL of the docs this module's errors link to, if not this site."""
    messages: bool = False
    """Whether ``name`` is a group of message entries rather than a module: nothing is imported."""

    @classmethod
    def from_value(cls, value: Any) -> ModuleSpec:
        """A spec from a ``flax_errors_modules`` item (a dotted name or a dict), else TypeError."""
        if isinstance(value, ModuleSpec):
            return value
        if isinstance(value, str):
            value = {"module": value}
        if not isinstance(value, dict) or not isinstance(value.get("module"), str):
            raise TypeError(
                f"each module must be a dotted name or a dict with a 'module' key; got {value!r}"
            )
        unknown = set(value) - _SPEC_KEYS
        if unknown:
            raise TypeError(
                f"{value['module']}: unknown key(s) {sorted(unknown)}; "
                f"the keys are {sorted(_SPEC_KEYS)}"
            )
        merged = {**KNOWN_MODULES.get(value["module"], {}), **value}
        for key in ("page", "upstream"):
            if not isinstance(merged.get(key, ""), str):
                raise TypeError(f"{value['module']}: {key!r} must be a string")
        if not isinstance(merged.get("messages", False), bool):
            raise TypeError(f"{value['module']}: 'messages' must be True or False")
        for key in ("bases", "exclude"):
            names = merged.get(key, ())
            if not isinstance(names, list | tuple) or not all(isinstance(n, str) for n in names):
                raise TypeError(f"{value['module']}: {key!r} must be a list of names")
        return cls(
            name=merged["module"],
            page=merged.get("page", "").strip("/"),
            bases=tuple(merged.get("bases", ())),
            exclude=tuple(merged.get("exclude", ())),
            upstream=merged.get("upstream", "").rstrip("/"),
            messages=merged.get("messages", False),
        )
