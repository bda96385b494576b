"""An error whose message a helper module words; a test rewords the helper."""

from flax.errors import FlaxError

import helper_wording_errors


class HelperError(FlaxError):
    """Raised with a message that another module (not catalogued) words.

    Bad example:

      >>> import helper_drift_errors
      >>> raise helper_drift_errors.HelperError()
      Traceback (most recent call last):
        ...
      helper_drift_errors.HelperError: worded by a helper (...)
    """

    def __init__(self) -> None:
        super().__init__(helper_wording_errors.wording())
