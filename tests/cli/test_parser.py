"""The command line's arguments: help everywhere, bad arguments, ``python -m``."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import entry_points

import pytest

from flax_errors_ext import __version__
from flax_errors_ext.cli import COMMANDS_GROUP, ExitCode, build_parser, main

# The parser -------------------------------------------------------------------------


@pytest.mark.parametrize("command", [[], ["list"], ["explain"], ["check"], ["update"], ["export"]])
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


# The extras' commands -------------------------------------------------------------------


def test_an_extras_command_is_found_by_its_entry_point_and_runs_its_own_function() -> None:
    extras = {found.name: found.value for found in entry_points(group=COMMANDS_GROUP)}
    assert extras == {"export": "flax_errors_ext.ext.export.cli"}

    args = build_parser().parse_args(["export", "-o", "out.patch"])

    assert args.run.__module__ == "flax_errors_ext.ext.export.cli"
    assert build_parser().parse_args(["list"]).__dict__.get("run") is None


def test_building_the_parser_imports_nothing_of_an_extras_command_but_its_arguments() -> None:
    code = (
        "import sys\n"
        "from flax_errors_ext.cli import build_parser\n"
        "build_parser()\n"
        "print(sorted(m for m in sys.modules if m.startswith('flax_errors_ext.ext')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)

    assert done.stdout.strip() == "['flax_errors_ext.ext', 'flax_errors_ext.ext.export', " + (
        "'flax_errors_ext.ext.export.cli']"
    )
