"""Errors whose examples print or raise far more than the output limit (500 here)."""

from flax.errors import FlaxError

ROWS = 15_000


def rows() -> str:
    """About 300 KB of text."""
    return "\n".join(f"row {i} = {i * 0.5}" for i in range(ROWS))


class HugeMessageError(FlaxError):
    """Raised with a message that lists every row, about 300 KB.

    Bad example:

      >>> import output_limit_errors
      >>> raise output_limit_errors.HugeMessageError()
      Traceback (most recent call last):
        ...
      output_limit_errors.HugeMessageError: The batch has 15000 rows but the model was built for 128 rows; here is every row, so that you can find the ones to drop: row 0 = 0.0 row 1 = 0.5 ... row 7500 = 3750.0 ... row 14999 = 7499.5 (https://flax.readthedocs.io/en/latest/api_reference/flax.errors.html#output_limit_errors.HugeMessageError)

    Good example:

      The whole output is judged: the documented row 7500 lies in the part that a
      cut to the limit leaves out.

      >>> import output_limit_errors
      >>> print(output_limit_errors.rows())
      row 0 = 0.0
      ...
      row 7500 = 3750.0
      ...
      row 14999 = 7499.5
    """

    def __init__(self) -> None:
        super().__init__(
            f"The batch has {ROWS} rows but the model was built for 128 rows; here is "
            f"every row, so that you can find the ones to drop: {rows()}"
        )


class DriftingOutputError(FlaxError):
    """An example whose 300 KB of output no longer ends as documented.

    Good example:

      >>> import output_limit_errors
      >>> print(output_limit_errors.rows())
      row 0 = 0.0
      ...
      row 15000 = 7500.0
    """
