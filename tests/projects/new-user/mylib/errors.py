"""The errors mylib raises."""

from mylib.messages import mismatch_message

__all__ = ["MylibError", "ShapeMismatchError", "UnknownActivationError"]


class MylibError(Exception):
    """The base of every mylib error."""


class ShapeMismatchError(MylibError):
    """Two arrays that must have the same shape do not.

    mylib adds arrays element by element, so both operands need one shape; it
    does not broadcast.

    Bad example:

      Adding a row to a matrix:

      >>> from mylib.ops import add
      >>> add([[1, 2], [3, 4]], [1, 2])
      Traceback (most recent call last):
        ...
      mylib.errors.ShapeMismatchError: cannot add shapes (2, 2) and (2,): mylib does not broadcast. See https://mylib.example.org/errors/api_reference/mylib.errors.html#mylib.errors.ShapeMismatchError

    Good example:

      Repeat the row so that both shapes match:

      >>> from mylib.ops import add
      >>> print(add([[1, 2], [3, 4]], [[1, 2], [1, 2]]))
      [[2, 4], [4, 6]]
    """

    def __init__(self, left: tuple[int, ...], right: tuple[int, ...]) -> None:
        super().__init__(mismatch_message(left, right))


class UnknownActivationError(MylibError, ValueError):
    """An activation function was named that mylib does not know.

    Bad example:

      >>> from mylib.ops import activation
      >>> activation("relu6")
      Traceback (most recent call last):
        ...
      mylib.errors.UnknownActivationError: unknown activation 'relu6'; choose one of: relu, tanh

    Good example:

      >>> from mylib.ops import activation
      >>> activation("relu")(-1.5)
      0.0
    """
