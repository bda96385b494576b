"""A bad example that raises nothing."""

from flax.errors import FlaxError


class SilentError(FlaxError):
    """Documented as raised, but the example runs cleanly.

    Bad example:

      >>> import no_raise_errors
      >>> x = 1 + 1
      Traceback (most recent call last):
        ...
      no_raise_errors.SilentError: never raised (...)
    """
