"""An error whose message is built in __init__; a test rewords it in place."""

from flax.errors import FlaxError


class ReworderError(FlaxError):
    """Raised with a message built in ``__init__``.

    Bad example:

      >>> import runtime_drift_errors
      >>> raise runtime_drift_errors.ReworderError()
      Traceback (most recent call last):
        ...
      runtime_drift_errors.ReworderError: original message (...)
    """

    def __init__(self) -> None:
        super().__init__("original message")
