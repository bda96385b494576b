"""A library whose docstrings this project cannot edit, with doctests of their own."""


class HeldError(Exception):
    """Raised when a value is held; see :ref:`their-own-label` for more.

    Its own example still holds:

      >>> raise HeldError("held")  # doctest: +IGNORE_EXCEPTION_DETAIL
      Traceback (most recent call last):
          ...
      somewhere.else.HeldError: another text

      >>> 1 + 1
      2
    """


class StaleError(Exception):
    """Raised when a value is stale; :func:`their.own.function` says why.

      >>> print("what the docstring once printed")
      what the docstring says it prints
    """
