"""Which names of other libraries a module's code uses."""

from __future__ import annotations

import ast
import textwrap

from tools.api_index.uses import uses

SOURCE = """
    import jax
    import jax.numpy as jnp
    import jax.experimental.maps
    from jax import tree_map, tree_util as tu
    from jax.experimental import pjit
    from . import local
    import optax

    def step(x):
        y = jax.tree_util.tree_map(abs, x)
        return jnp.DeviceArray, tu.tree_leaves(y), pjit.pjit, optax.adam, local.jax
    """


def test_imports_and_attributes_of_imported_names_are_uses_with_their_full_names() -> None:
    found = uses(ast.parse(textwrap.dedent(SOURCE)), {"jax"})

    assert found == {
        "jax",
        "jax.numpy",
        "jax.numpy.DeviceArray",
        "jax.experimental.maps",
        "jax.tree_map",
        "jax.tree_util",
        "jax.tree_util.tree_map",
        "jax.tree_util.tree_leaves",
        "jax.experimental.pjit",
        "jax.experimental.pjit.pjit",
    }


def test_a_library_not_asked_for_is_not_listed() -> None:
    assert uses(ast.parse(textwrap.dedent(SOURCE)), {"flax"}) == set()
