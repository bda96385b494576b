"""An example that kills its process."""

from flax.errors import FlaxError


class FatalError(FlaxError):
    """Ends the process.

    Bad example:

      >>> import os
      >>> os._exit(3)
      Traceback (most recent call last):
        ...
      dead_process_errors.FatalError: unreachable (...)
    """
