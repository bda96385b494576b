"""A bad example that raises another class."""

from flax.errors import FlaxError


class ExpectedError(FlaxError):
    """Documented as raised, but a subclass is.

    Bad example:

      >>> import wrong_class_errors
      >>> raise wrong_class_errors.OtherError("same text")
      Traceback (most recent call last):
        ...
      wrong_class_errors.ExpectedError: same text (...)
    """


class OtherError(ExpectedError):
    """A subclass: not *exactly* the documented class.

    Bad example:

      >>> import wrong_class_errors
      >>> raise wrong_class_errors.OtherError("x")
      Traceback (most recent call last):
        ...
      wrong_class_errors.OtherError: x (...)
    """
