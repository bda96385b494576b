"""Where Flax's and JAX's API names are documented: the inventory shipped with the package.

``flax_errors_ext/inventory/api.toml`` lists, for each documentation site, the names
each of its pages documents; its header says how every URL was derived, and
``tests/model/site/test_inventory.py`` checks each name against the installed libraries. A
reference in a docstring that this site does not resolve itself (``:meth:`Module.apply()
<flax.linen.Module.apply>```) links to the page the inventory gives; a name it does
not know stays plain code. The site never fetches an inventory while it builds.

Pure: the Sphinx layer reads :data:`INVENTORY_FILE` and hands its text to
:meth:`Inventory.from_toml`.
"""

from __future__ import annotations

import dataclasses
import functools
import tomllib
from pathlib import Path
from typing import Any

INVENTORY_FILE = Path(__file__).resolve().parents[2] / "inventory" / "api.toml"
"""The inventory shipped with this package."""


@dataclasses.dataclass(frozen=True)
class Target:
    """One documented name: the page of a site that documents it."""

    name: str
    """The full dotted name (``flax.linen.Module.apply``)."""
    site: str
    """The site's name (``Flax Linen``, ``JAX``)."""
    base: str
    """The site's root URL, ending in ``/``."""
    page: str
    """The page, relative to :attr:`base`."""
    module: bool = False
    """A module, whose anchor is ``module-<name>`` (Sphinx's ``automodule``)."""

    @property
    def anchor(self) -> str:
        """The fragment of the page where the name is documented."""
        return f"module-{self.name}" if self.module else self.name

    @property
    def url(self) -> str:
        """Where the name is documented."""
        return f"{self.base}{self.page}#{self.anchor}"

    @property
    def project(self) -> str:
        """The top-level package the name belongs to (``flax``, ``jax``)."""
        return self.name.partition(".")[0]

    def __str__(self) -> str:
        return f"{self.name} -> {self.url}"


@dataclasses.dataclass(frozen=True)
class Inventory:
    """The documented names, the modules' shorthands, and the projects' names."""

    targets: tuple[Target, ...]
    aliases: tuple[tuple[str, str], ...] = ()
    """A docstring's shorthand for a module and the module (``nn``, ``flax.linen``)."""
    projects: tuple[tuple[str, str], ...] = ()
    """A top-level package and how prose names its project (``jax``, ``JAX``)."""

    @classmethod
    def from_toml(cls, text: str) -> Inventory:
        """Read the inventory's file format (see ``flax_errors_ext/inventory/api.toml``).

        Raises:
            ValueError: The text is not TOML, lacks a site's name or base, lists
                objects of their own pages without saying where those pages are, or
                names an object twice.
        """
        data = tomllib.loads(text)
        targets: list[Target] = []
        for site in data.get("site", []):
            targets.extend(_site_targets(site))
        seen: dict[str, Target] = {}
        for target in targets:
            if target.name in seen:
                raise ValueError(f"{target.name} is in the inventory twice: {seen[target.name]}")
            seen[target.name] = target
        return cls(
            tuple(sorted(targets, key=lambda t: t.name)),
            tuple(sorted(data.get("aliases", {}).items())),
            tuple(sorted(data.get("projects", {}).items())),
        )

    @functools.cached_property
    def _by_name(self) -> dict[str, Target]:
        return {target.name: target for target in self.targets}

    def find(self, reference: str, project: str = "") -> Target | None:
        """The target that a reference names, or None where that is not certain.

        Args:
            reference: The reference's target as a role gives it: a full name
                (``flax.linen.Module.apply``), one that starts with a module's
                shorthand (``nn.compact``), or the end of a name: one name
                (``jit``) or a class and its member (``Module.apply``). A dotted
                reference that starts in lower case names a module (``numpy.sin``
                is NumPy's, not ``jax.numpy.sin``) and must be whole.
            project: The top-level package of the docstring the reference is in: of
                several names that end in a short reference, the one of that package
                is meant (``jit`` in JAX's docstring is ``jax.jit``).

        Returns:
            The name's target; for the end of a name, the only name that ends so
            (in the project, where several do); otherwise None.
        """
        name, full = self._names(reference)
        if not name:
            return None
        head, dot, _ = name.partition(".")
        for candidate in (name, full):
            if candidate in self._by_name:
                return self._by_name[candidate]
        if dot and not head[:1].isupper():
            return None
        ending = [target for target in self.targets if target.name.endswith("." + name)]
        if len(ending) > 1 and project:
            ending = [target for target in ending if target.project == project]
        return ending[0] if len(ending) == 1 else None

    def covers(self, reference: str) -> bool:
        """Whether a reference's full name is in a package the inventory documents.

        ``jax.no_such_function`` is (and, not in the inventory, no link); ``jit`` and
        ``itertools.chain`` are not.
        """
        package = self._names(reference)[1].partition(".")[0]
        return any(target.project == package for target in self.targets)

    def _names(self, reference: str) -> tuple[str, str]:
        """The reference as a name, and that name with a module's shorthand spelled out."""
        name = reference.strip().lstrip("~.").removesuffix("()")
        head, dot, rest = name.partition(".")
        return name, dict(self.aliases).get(head, head) + dot + rest

    def project_name(self, qualname: str) -> str:
        """How prose names the project a dotted name belongs to: ``Flax`` for ``flax.errors``."""
        package = qualname.partition(".")[0]
        return dict(self.projects).get(package, package)


def _site_targets(site: dict[str, Any]) -> list[Target]:
    try:
        name, base = str(site["name"]), str(site["base"])
    except KeyError as error:
        raise ValueError(f"a site of the inventory has no {error.args[0]!r}") from None
    own_pages = site.get("autosummary")
    if site.get("objects") and own_pages is None:
        raise ValueError(f"site {name!r} lists objects but no 'autosummary' folder for them")
    targets = [
        Target(obj, name, base, f"{own_pages}{obj}.html") for obj in site.get("objects", [])
    ]
    for page in site.get("page", []):
        path = str(page["path"])
        targets += [Target(obj, name, base, path) for obj in page.get("objects", [])]
        targets += [Target(mod, name, base, path, module=True) for mod in page.get("modules", [])]
    return targets
