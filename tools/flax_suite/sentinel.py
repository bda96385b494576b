"""The hooked run's sentinel: ``jax.jit`` on a Linen Module raises ``JitPytreeError``.

The plugin appends it to the run, last. It installs nothing itself, so it passes only
if the plugin's hook is still live after every other test. Its file name matches no
test pattern, so ``nox -s tests`` never collects it.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import pytest
from flax import linen as nn

from flax_errors_ext.errors import JitPytreeError


def test_jit_on_a_linen_module_raises_jit_pytree_error() -> None:
    """The hook is live in the suite's process: the sentinel that the run is not a no-op."""
    model = nn.Dense(2)
    x = jnp.ones((1, 3))
    variables = model.init(jax.random.key(0), x)

    def apply(model: nn.Module, variables: Any, x: jax.Array) -> Any:
        return model.apply(variables, x)

    with pytest.raises(JitPytreeError):
        jax.jit(apply)(model, variables, x)
