"""One catalogued module as a setting names it: its page, its bases, where it links."""

from __future__ import annotations

import dataclasses
from typing import Any

from flax_errors_ext.layout import FLAX_BASE_URL

KNOWN_MODULES: dict[str, dict[str, Any]] = {
    "flax.errors": {"upstream": FLAX_BASE_URL},
    "jax.errors": {"page": "errors", "upstream": "https://docs.jax.dev/en/latest"},
    "flax.messages": {"messages": True},
    "jax.messages": {"messages": True},
}
"""Where the errors of well-known modules point: their page and the site they print.

A module listed by name alone takes these, so that the URL its errors print, rebased
onto this site, lands on its entry; a dict in ``flax_errors_modules`` overrides them.
"""

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
    """Whether ``name`` is a group of message entries (errors raised as builtin
    exceptions, one catalogue file each) rather than a module: nothing is imported."""

    @classmethod
    def from_value(cls, value: Any) -> ModuleSpec:
        """A spec from a ``flax_errors_modules`` item: a dotted name, or a dict.

        Raises:
            TypeError: saying what is wrong with ``value``.
        """
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
