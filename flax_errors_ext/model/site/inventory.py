"""Where Flax's, JAX's and Python's API names are documented: their sites' inventories.

Each site of :data:`SITES` has its ``objects.inv`` shipped in
``flax_errors_ext/inventory/`` (``python -m tools.inventories`` makes them again),
never fetched. A reference in an entry that this site does not resolve itself
(``:meth:`Module.apply() <flax.linen.Module.apply>```) links to the page an
inventory gives; a name no inventory has stays plain code. The Sphinx layer reads
the files and hands their objects to :meth:`Inventory.from_sites`.
"""

from __future__ import annotations

import dataclasses
import functools
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

INVENTORY_DIR = Path(__file__).resolve().parents[2] / "inventory"


@dataclasses.dataclass(frozen=True)
class Site:
    """A documentation site and its inventory, as an ``intersphinx_mapping`` entry says it."""

    name: str
    """How a link's title names it (``Flax Linen``, ``JAX``)."""
    base: str
    """The URL the inventory's targets are relative to, ending in ``/``."""
    file: str
    """Its ``objects.inv``, in :data:`INVENTORY_DIR`."""

    @property
    def path(self) -> Path:
        """The inventory file."""
        return INVENTORY_DIR / self.file


SITES = (
    Site("Flax Linen", "https://flax-linen.readthedocs.io/en/latest/", "flax-linen.inv"),
    Site("Flax NNX", "https://flax.readthedocs.io/en/latest/", "flax-nnx.inv"),
    Site("JAX", "https://docs.jax.dev/en/latest/", "jax.inv"),
    Site("Python", "https://docs.python.org/3/", "python.inv"),
)
"""The sites the catalogue's entries link to. Where two document a name (Flax
Linen's and NNX's ``FrozenDict``), the first listed is linked."""

ALIASES = {
    "nn": "flax.linen",
    "linen": "flax.linen",
    "nnx": "flax.nnx",
    "jnp": "jax.numpy",
    "lax": "jax.lax",
}
"""A docstring's shorthand for a module, as Flax and JAX write it (``:func:`nn.compact```)."""

PROJECTS = {"flax": "Flax", "jax": "JAX", "jaxlib": "JAX"}
"""How labels name a docstring's project ("From Flax's docstring, not run")."""

PYTHON_OBJECTS = frozenset(
    {"module", "class", "exception", "function", "method", "attribute", "property", "data"}
)
"""The Python domain's object types (``py:function``): the only ones a Python role links to."""


@dataclasses.dataclass(frozen=True)
class Target:
    """One documented name: where a site documents it."""

    name: str
    """The full dotted name (``flax.linen.Module.apply``)."""
    site: str
    """The site's name (``Flax Linen``, ``JAX``)."""
    url: str

    @property
    def project(self) -> str:
        """The top-level package the name belongs to (``flax``, ``jax``)."""
        return self.name.partition(".")[0]

    def __str__(self) -> str:
        return f"{self.name} -> {self.url}"


@dataclasses.dataclass(frozen=True)
class Inventory:
    """The documented names, by full dotted name."""

    by_name: Mapping[str, Target]

    @classmethod
    def from_sites(cls, sites: Iterable[tuple[Site, Iterable[tuple[str, str, str]]]]) -> Inventory:
        """The inventory of each site's objects: ``(object type, name, URL)`` each.

        Object types are the domain's (``py:function``); only the Python domain's
        count. Where several sites document a name, the first one's is kept.
        """
        by_name: dict[str, Target] = {}
        for site, objects in sites:
            for objtype, name, url in objects:
                domain, _, kind = objtype.partition(":")
                if domain == "py" and kind in PYTHON_OBJECTS:
                    by_name.setdefault(name, Target(name, site.name, url))
        return cls(by_name)

    @functools.cached_property
    def _by_last(self) -> dict[str, list[Target]]:
        """The targets by the last part of their names (``apply``), to find an ending fast."""
        last: dict[str, list[Target]] = {}
        for target in self.by_name.values():
            last.setdefault(target.name.rpartition(".")[2], []).append(target)
        return last

    @functools.cached_property
    def _packages(self) -> frozenset[str]:
        return frozenset(target.project for target in self.by_name.values())

    def find(self, reference: str, project: str = "") -> Target | None:
        """The target that a reference names, or None where that is not certain.

        ``reference`` is a full name (``flax.linen.Module.apply``), one that starts
        with a module's shorthand (``nn.compact``), or the end of a name (``jit``,
        ``Module.apply``): the only name that ends so, in ``project`` (the
        docstring's top-level package) where several do. A dotted reference that
        starts in lower case names a module (``numpy.sin``) and must be whole.
        """
        name, full = self._names(reference)
        if not name:
            return None
        head, dot, _ = name.partition(".")
        for candidate in (name, full):
            if candidate in self.by_name:
                return self.by_name[candidate]
        if dot and not head[:1].isupper():
            return None
        ending = [
            target
            for target in self._by_last.get(name.rpartition(".")[2], ())
            if target.name.endswith("." + name)
        ]
        if len(ending) > 1 and project:
            ending = [target for target in ending if target.project == project]
        return ending[0] if len(ending) == 1 else None

    def covers(self, reference: str) -> bool:
        """Whether a reference's full name is in a package the inventory documents.

        ``jax.no_such_function`` is (and, not in the inventory, no link);
        ``their.own.function`` and ``jit`` are not.
        """
        return self._names(reference)[1].partition(".")[0] in self._packages

    def _names(self, reference: str) -> tuple[str, str]:
        """The reference as a name, and that name with a module's shorthand spelled out."""
        name = reference.strip().lstrip("~.").removesuffix("()")
        head, dot, rest = name.partition(".")
        return name, ALIASES.get(head, head) + dot + rest

    def project_name(self, qualname: str) -> str:
        """How prose names the project a dotted name belongs to: ``Flax`` for ``flax.errors``."""
        package = qualname.partition(".")[0]
        return PROJECTS.get(package, package)
