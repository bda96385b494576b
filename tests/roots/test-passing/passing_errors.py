"""Errors whose examples all pass."""

from flax.errors import FlaxError


class ShapeError(FlaxError):
    """Raised when a shape is wrong, for `demonstration` <script>alert(1)</script>.

    The explanation is reST: ``literal``, *emphasis* and a reference to
    :class:`passing_errors.ShapeError`.

    Bad example:

      Passing a bad shape:

      >>> import passing_errors
      >>> raise passing_errors.ShapeError((3, 2))
      Traceback (most recent call last):
        ...
      passing_errors.ShapeError: bad shape (3, 2); *not* `ok` <script>alert(1)</script> (https://flax.readthedocs.io/en/latest/api_reference/flax.errors.html#passing_errors.ShapeError)

    Good example:

      >>> shape = (3,)
      >>> print(shape)
      (3,)
    """

    def __init__(self, shape: tuple[int, ...]) -> None:
        super().__init__(f"bad shape {shape}; *not* `ok` <script>alert(1)</script>")
