"""An error whose good example runs for a minute; a test interrupts the build."""

from flax.errors import FlaxError


class SlowError(FlaxError):
    """Raised never; its example takes its time.

    Good example:

      >>> import os, pathlib, time
      >>> _ = pathlib.Path(os.environ["INTERRUPT_MARKER"]).write_text(str(os.getpid()))
      >>> time.sleep(60)
    """
