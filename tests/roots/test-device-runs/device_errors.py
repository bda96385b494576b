"""Errors to set beside a run on another device: one the same there, one not, one new."""

from flax.errors import FlaxError


class SteadyError(FlaxError):
    """Raised with the same text on every device.

    Bad example:

      >>> import device_errors
      >>> raise device_errors.SteadyError()
      Traceback (most recent call last):
        ...
      device_errors.SteadyError: the same everywhere (https://flax.readthedocs.io/en/latest/api_reference/flax.errors.html#device_errors.SteadyError)

    Good example:

      >>> print("fine")
      fine
    """

    def __init__(self) -> None:
        super().__init__("the same everywhere")


class PlacedError(FlaxError):
    """Raised with the name of the device's platform in its text.

    Bad example:

      >>> import jax
      >>> import device_errors
      >>> raise device_errors.PlacedError(jax.default_backend())
      Traceback (most recent call last):
        ...
      device_errors.PlacedError: no room on the ... device (https://flax.readthedocs.io/en/latest/api_reference/flax.errors.html#device_errors.PlacedError)
    """

    def __init__(self, platform: str) -> None:
        super().__init__(f"no room on the {platform} device")


class NewError(FlaxError):
    """Added since the other run.

    Bad example:

      >>> import device_errors
      >>> raise device_errors.NewError()
      Traceback (most recent call last):
        ...
      device_errors.NewError: new (https://flax.readthedocs.io/en/latest/api_reference/flax.errors.html#device_errors.NewError)
    """

    def __init__(self) -> None:
        super().__init__("new")
