"""An error whose documented text no longer matches what is raised."""

from flax.errors import FlaxError


class RenamedError(FlaxError):
    """Raised with a message that was reworded after it was documented.

    Bad example:

      >>> import drift_errors
      >>> raise drift_errors.RenamedError()
      Traceback (most recent call last):
        ...
      drift_errors.RenamedError: the old wording (...)
    """

    def __init__(self) -> None:
        super().__init__("the new wording")
