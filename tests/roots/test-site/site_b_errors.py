"""An error on a second page, so that the index draws on more than one."""

from flax.errors import FlaxError


class CalmError(FlaxError):
    """Raised when calm is lost.

    Bad example:

      >>> import site_b_errors
      >>> raise site_b_errors.CalmError()
      Traceback (most recent call last):
        ...
      site_b_errors.CalmError: calm was lost (...)

    Good example:

      >>> print("calm")
      calm
    """

    def __init__(self) -> None:
        super().__init__("calm was lost")
