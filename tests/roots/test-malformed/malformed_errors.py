"""Docstrings that break the catalogue format, next to one that does not."""

from flax.errors import FlaxError


class NoTracebackError(FlaxError):
    """A bad example without its expected traceback.

    Bad example:

      >>> x = 1
    """


class UnknownTitleError(FlaxError):
    """A section title the format does not know.

    Fixed example:

      >>> x = 1
    """


class BrokenSyntaxError(FlaxError):
    """A doctest that is not Python.

    Good example:

      >>> x = = 1
    """


class FineError(FlaxError):
    """A well-formed entry, still built and checked.

    Good example:

      >>> print("fine")
      fine
    """


class BrokenMarkupError(FlaxError):
    """Its explanation's markup is broken, and the text is ours to fix.

    The ``literal is never closed, which the build reports where it is.

    Good example:

      >>> print("fine")
      fine
    """
