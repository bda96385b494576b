"""A library of its own (no Flax) whose errors link to their page upstream."""


class MovedError(Exception):
    """Raised with a link to its page, which one past release printed elsewhere.

    Bad example:

      >>> import moved_errors
      >>> raise moved_errors.MovedError()
      Traceback (most recent call last):
        ...
      moved_errors.MovedError: see https://up.example/en/api_reference/moved_errors.html#moved_errors.MovedError
    """

    def __init__(self) -> None:
        super().__init__(
            "see https://up.example/en/api_reference/moved_errors.html#moved_errors.MovedError"
        )
