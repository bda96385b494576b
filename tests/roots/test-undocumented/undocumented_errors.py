"""An error class without any examples."""

from flax.errors import FlaxError


class BareError(FlaxError):
    """Documented in prose only."""


class NoDocstringError(FlaxError):
    pass
