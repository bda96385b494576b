"""An error raised from inside Flax and JAX: its full traceback has frames of both."""

from flax.errors import FlaxError


class ThroughLibrariesError(FlaxError):
    """Raised while a Module that ``jax.tree_util`` makes is set up.

    Outside ``apply`` and ``init``, neither Flax nor JAX filters its frames out.

    Bad example:

      >>> import jax
      >>> import flax.linen as nn
      >>> import source_links_errors
      >>> class Model(nn.Module):
      ...     def __post_init__(self):
      ...         raise source_links_errors.ThroughLibrariesError(1)
      >>> jax.tree_util.tree_map(lambda leaf: Model(), [1])
      Traceback (most recent call last):
        ...
      source_links_errors.ThroughLibrariesError: raised for 1 ...

    Good example:

      >>> print("nothing raised")
      nothing raised
    """

    def __init__(self, leaf: object) -> None:
        super().__init__(f"raised for {leaf}")
