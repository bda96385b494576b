"""Two errors; a test edits one docstring and counts what runs again."""

from flax.errors import FlaxError


class KeptError(FlaxError):
    """Left alone by the test.

    Good example:

      >>> print("kept")
      kept
    """


class EditedError(FlaxError):
    """Edited by the test.

    Good example:

      >>> print("before")
      before
    """
