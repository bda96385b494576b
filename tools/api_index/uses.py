"""The names of other libraries a release's code uses, read with ``ast``.

A library built on JAX breaks when JAX removes a name it calls: which of its
releases use ``jax.tree_map`` tells the reader of such an error which release of
it no longer does. A use is an import (``from jax import tree_map``,
``import jax.experimental.maps``) or an attribute of an imported name
(``jax.tree_util.tree_map``, ``jnp.DeviceArray`` after ``import jax.numpy as
jnp``), written as its full dotted name; an attribute's every prefix is a use too.
Names are followed per module and without scopes: a name rebound locally may be
counted as the library's.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Collection


def uses(tree: ast.Module, libraries: Collection[str]) -> set[str]:
    """The dotted names of ``libraries`` (top-level packages) that the module uses."""
    imported: dict[str, str] = {}
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in libraries:
                    found.add(alias.name)
                    # "import jax.numpy" binds jax; "import jax.numpy as jnp" binds jnp.
                    local = alias.asname or alias.name.split(".")[0]
                    imported[local] = alias.name if alias.asname else local
        elif (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.level == 0
            and node.module.split(".")[0] in libraries
        ):
            for alias in node.names:
                if alias.name != "*":
                    found.add(f"{node.module}.{alias.name}")
                    imported[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            dotted = _dotted(node, imported)
            if dotted is not None:
                found.add(dotted)
    return found


def _dotted(node: ast.expr, imported: dict[str, str]) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in imported:
        return None
    return ".".join([imported[node.id], *reversed(parts)])
