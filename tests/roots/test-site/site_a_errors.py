"""Errors for the site's pages: hostile text, a traceback through a library, no examples."""

from flax.errors import FlaxError


class LeakyError(FlaxError):
    """Raised for ``leaves`` that leak <script>alert(1)</script> markup.

    Its message holds markup that must stay text everywhere the site shows it.

    Bad example:

      Raised from a function that ``jax.tree_util`` calls back:

      >>> import jax
      >>> import site_a_errors
      >>> def explode(leaf):
      ...     raise site_a_errors.LeakyError(leaf)
      >>> jax.tree_util.tree_map(explode, [1])
      Traceback (most recent call last):
        ...
      site_a_errors.LeakyError: leaf 1 leaked <script>alert(1)</script> into the forest (...)

    Good example:

      >>> import jax
      >>> jax.tree_util.tree_map(lambda leaf: leaf + 1, [1])
      [2]
    """

    def __init__(self, leaf: object) -> None:
        super().__init__(f"leaf {leaf} leaked <script>alert(1)</script> into the forest")


class BareError(FlaxError):
    """An error without examples yet."""
