"""Errors with a recorded history (history.json): one kept up to date, one edited since."""

from flax.errors import FlaxError


class KeptError(FlaxError):
    """Raised when the kept thing is dropped.

    Bad example:

      >>> import history_errors
      >>> raise history_errors.KeptError()
      Traceback (most recent call last):
        ...
      history_errors.KeptError: kept: dropped on the floor (...)

    Good example:

      >>> print("kept")
      kept
    """

    def __init__(self) -> None:
        super().__init__("kept: dropped on the floor")


class EditedError(FlaxError):
    """Raised when the edited thing is read.

    Its example was edited after history.json recorded it: that record is stale.

    Bad example:

      >>> import history_errors
      >>> raise history_errors.EditedError()
      Traceback (most recent call last):
        ...
      history_errors.EditedError: edited: read after the edit (...)

    Good example:

      >>> print("edited")
      edited
    """

    def __init__(self) -> None:
        super().__init__("edited: read after the edit")
