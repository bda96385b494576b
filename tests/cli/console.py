"""What the command line tests share: a drifted error module, and a run of ``main``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from flax_errors_ext.cli import main

if TYPE_CHECKING:
    import pytest

FAKE = '''\
"""Errors whose documentation drifted, for the command line tests."""

from flax.errors import FlaxError


class RenamedError(FlaxError):
    """Raised with a message that was reworded after it was documented.

    Bad example:

        >>> import cli_drift_errors
        >>> raise cli_drift_errors.RenamedError("x")
        Traceback (most recent call last):
            ...
        cli_drift_errors.RenamedError: the old wording of "x", which
        was wrapped by hand (...)...

    Good example:

        >>> print("a new line")
        an old line
        >>> print(1 + 1)
        2
    """

    def __init__(self, name: str) -> None:
        super().__init__(f'the new wording of "{name}", which was wrapped by hand')


class SteadyError(FlaxError):
    """Documented as it is raised.

    Bad example:

        >>> import cli_drift_errors
        >>> raise cli_drift_errors.SteadyError()
        Traceback (most recent call last):
            ...
        cli_drift_errors.SteadyError: steady (...)
    """

    def __init__(self) -> None:
        super().__init__("steady")


class BareError(FlaxError):
    """Nobody has written its examples yet."""
'''
MODULE = ["--module", "cli_drift_errors"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Exit status, standard output and standard error of ``flax-errors argv``."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err
