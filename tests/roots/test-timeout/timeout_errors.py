"""An example that runs past the timeout."""

from flax.errors import FlaxError


class SlowError(FlaxError):
    """Raised eventually.

    Good example:

      >>> import time
      >>> time.sleep(60)
    """
