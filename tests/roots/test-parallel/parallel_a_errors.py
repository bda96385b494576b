"""Errors of page a, read in parallel with the other page."""

from flax.errors import FlaxError


class PageAError(FlaxError):
    """Raised on page a.

    Bad example:

      >>> import parallel_a_errors
      >>> raise parallel_a_errors.PageAError("page a")
      Traceback (most recent call last):
        ...
      parallel_a_errors.PageAError: page a (...)

    Good example:

      >>> print("a" * 2)
      aa
    """


class DriftedAError(FlaxError):
    """Drifts on page a.

    Good example:

      >>> print("a")
      not a
    """
