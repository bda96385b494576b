"""A good example that raises."""

from flax.errors import FlaxError


class FixError(FlaxError):
    """The documented fix does not work.

    Good example:

      >>> import good_raises_errors
      >>> {"a": 1}["b"]
      1
    """
