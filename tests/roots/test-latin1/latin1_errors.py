# -*- coding: latin-1 -*-
"""An error module saved in Latin-1, as Python allows with a coding cookie."""

from flax.errors import FlaxError


class CafeError(FlaxError):
    """Raised when the café is closed.

    Bad example:

      >>> import latin1_errors
      >>> raise latin1_errors.CafeError()
      Traceback (most recent call last):
        ...
      latin1_errors.CafeError: le café est fermé (...)
    """

    def __init__(self) -> None:
        super().__init__("le café est fermé")
