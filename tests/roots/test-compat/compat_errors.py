"""Errors whose entries meet what differs between the Sphinx releases supported."""


class CountError(ValueError):
    """Raised when a count is negative.

    Bad example:

      >>> import compat_errors
      >>> raise compat_errors.CountError(-1)
      Traceback (most recent call last):
        ...
      compat_errors.CountError: negative count -1

    Good example:

      >>> print(abs(-1))
      1
    """

    def __init__(self, count: int) -> None:
        super().__init__(f"negative count {count}")


class BareError(Exception):
    """Documented in prose only: its entry leads with a status badge."""
