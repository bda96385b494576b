"""The command line's arguments: help everywhere, bad arguments, ``python -m``."""

from __future__ import annotations

import subprocess
import sys

import pytest

from flax_errors_ext import __version__
from flax_errors_ext.cli import ExitCode, main

# The parser -------------------------------------------------------------------------


@pytest.mark.parametrize("command", [[], ["list"], ["explain"], ["check"], ["update"]])
def test_help_everywhere(command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main([*command, "--help"])

    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: {' '.join(['flax-errors', *command])}")
    assert "exit status:" in out


@pytest.mark.parametrize(
    "argv", [[], ["frobnicate"], ["check", "--jobs", "0"], ["explain"], ["list", "--bogus"]]
)
def test_bad_arguments_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(argv)

    assert exit_.value.code == ExitCode.USAGE
    assert "usage:" in capsys.readouterr().err


def test_python_dash_m_runs_the_command_line() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "flax_errors_ext", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )

    assert done.returncode == 0
    assert done.stdout.strip() == f"flax-errors {__version__}"
