"""Errors whose messages link to their upstream documentation."""

from flax.errors import FlaxError


class MovedError(FlaxError):
    """Prints a link to a page of a layout this site has not heard of.

    Bad example:

      >>> import linked_errors
      >>> raise linked_errors.MovedError(
      ...     'see https://up.example/en/guide.html#intro and '
      ...     'https://up.example/en/v2/linked_errors.html#linked_errors.MovedError')
      Traceback (most recent call last):
        ...
      linked_errors.MovedError: see ...
    """


class HomeError(FlaxError):
    """Prints a link to its own page.

    Bad example:

      >>> import linked_errors
      >>> raise linked_errors.HomeError(
      ...     'see https://up.example/en/api_reference/linked_errors.html#linked_errors.HomeError')
      Traceback (most recent call last):
        ...
      linked_errors.HomeError: see ...
    """
