"""Two errors whose examples would see each other's global state if they shared a kernel."""

from flax.errors import FlaxError

TOUCHED = False


class FirstError(FlaxError):
    """Its example flips a JAX config flag and a module-level variable.

    Good example:

      >>> import jax
      >>> import isolation_errors
      >>> jax.config.update("jax_enable_x64", True)
      >>> isolation_errors.TOUCHED = True
      >>> import jax.numpy as jnp
      >>> print(jnp.ones(1).dtype)
      float64
    """


class SecondError(FlaxError):
    """Its example would notice the flag and the variable.

    Good example:

      >>> import jax.numpy as jnp
      >>> import isolation_errors
      >>> print(jnp.ones(1).dtype, isolation_errors.TOUCHED)
      float32 False
    """
