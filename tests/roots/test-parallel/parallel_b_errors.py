"""Errors of page b, read in parallel with the other page."""

from flax.errors import FlaxError


class PageBError(FlaxError):
    """Raised on page b.

    Bad example:

      >>> import parallel_b_errors
      >>> raise parallel_b_errors.PageBError("page b")
      Traceback (most recent call last):
        ...
      parallel_b_errors.PageBError: page b (...)

    Good example:

      >>> print("b" * 2)
      bb
    """


class DriftedBError(FlaxError):
    """Drifts on page b.

    Good example:

      >>> print("b")
      not b
    """
