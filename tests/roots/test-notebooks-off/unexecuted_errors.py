"""An error of a project whose own notebooks are not executed."""

from flax.errors import FlaxError


class ShapeError(FlaxError):
    """Raised when a shape is wrong.

    Bad example:

      >>> import unexecuted_errors
      >>> raise unexecuted_errors.ShapeError((3, 2))
      Traceback (most recent call last):
        ...
      unexecuted_errors.ShapeError: bad shape (3, 2) (https://flax.readthedocs.io/en/latest/api_reference/flax.errors.html#unexecuted_errors.ShapeError)

    Good example:

      >>> shape = (3,)
      >>> print(shape)
      (3,)
    """

    def __init__(self, shape: tuple[int, ...]) -> None:
        super().__init__(f"bad shape {shape}")
