"""Errors whose examples hold for some versions only (their ``:holds for:`` line)."""

from flax.errors import FlaxError


class ChangedError(FlaxError):
    """Raised one way by old interpreters and another way by today's.

    Bad example:

      :holds for: python < 3

      Written for an interpreter no one runs: it would fail if it ran.

      >>> x = 1 + 1
      Traceback (most recent call last):
        ...
      versioned_errors.ChangedError: never raised here (...)

    Bad example:

      :holds for: python >= 3, flax >= 0.1

      Today's way.

      >>> import versioned_errors
      >>> raise versioned_errors.ChangedError('raised today')
      Traceback (most recent call last):
        ...
      versioned_errors.ChangedError: raised today (...)

    Good example:

      >>> x = 1 + 1
    """


class RetiredError(FlaxError):
    """Raised by old interpreters only.

    Bad example:

      :holds for: python < 3

      >>> x = 1 + 1
      Traceback (most recent call last):
        ...
      versioned_errors.RetiredError: never raised here (...)

    Unreachable:

      :holds for: python >= 3

      Nothing raises it today.

      >>> print('evidence')
      evidence
    """
