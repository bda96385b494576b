"""Another project's docstrings on the site: where their API names link, which code runs.

Each site of :data:`SITES` has its ``objects.inv`` shipped in
``flax_errors_ext/inventory/`` (``python -m tools.inventories`` makes them again),
never fetched. A docstring's ``>>>`` statements run as the entry's upstream example;
any other code is only shown, labelled by :func:`not_run_label` as not run.
"""

from __future__ import annotations

import dataclasses
import functools
from pathlib import Path
from typing import TYPE_CHECKING

from flax_errors_ext.model.catalogue.records import ExampleKind

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from flax_errors_ext.model.catalogue.records import Example


@dataclasses.dataclass(frozen=True)
class Site:
    """A documentation site and its inventory, as an ``intersphinx_mapping`` entry says it."""

    name: str
    """How a link's title names it (``Flax Linen``, ``JAX``)."""
    base: str
    """The URL the inventory's targets are relative to, ending in ``/``."""
    file: str

    @property
    def path(self) -> Path:
        """Its shipped ``objects.inv``."""
        return Path(__file__).resolve().parents[2] / "inventory" / self.file


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

        Only the Python domain's count; where several sites document a name, the first wins.
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
        """The targets by the last part of their names, to find an ending fast."""
        last: dict[str, list[Target]] = {}
        for target in self.by_name.values():
            last.setdefault(target.name.rpartition(".")[2], []).append(target)
        return last

    @functools.cached_property
    def _packages(self) -> frozenset[str]:
        return frozenset(target.project for target in self.by_name.values())

    def find(self, reference: str, project: str = "") -> Target | None:
        """The target that a reference names, or None where that is not certain.

        ``reference`` is a full name, one that starts with a module's shorthand
        (``nn.compact``), or the end of a name (``Module.apply``): the only name that
        ends so, in ``project`` where several do. A dotted reference that starts in
        lower case names a module (``numpy.sin``) and must be whole.
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

        ``jax.no_such_function`` is (and gets no link); ``their.own.function`` and ``jit`` are not.
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


def ran_statements(examples: Iterable[Example]) -> frozenset[str]:
    """The first lines of the upstream statements that run (doctest skips none of them)."""
    return frozenset(
        statement.source.strip().splitlines()[0]
        for example in examples
        if example.kind is ExampleKind.UPSTREAM
        for statement in example.statements
        if statement.source.strip() and not statement.skip
    )


def block_runs(text: str, ran: frozenset[str]) -> bool:
    """Whether a code block shows statements that run: one of its ``>>>`` lines is one."""
    lines = (line.strip() for line in text.splitlines())
    return any(
        line.startswith(">>>") and line.removeprefix(">>>").strip() in ran for line in lines
    )


def not_run_label(project: str) -> str:
    """The label of a block that is shown but never run: ``From Flax's docstring, not run``."""
    return f"From {project}'s docstring, not run"
