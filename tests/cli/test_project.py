"""The project a command works on: its conf.py, found where asked."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from flax_errors_ext.cli import ExitCode, build_parser
from flax_errors_ext.cli import selection as cli_selection
from flax_errors_ext.model.catalogue.discover import SHIPPED_CATALOGUE

if TYPE_CHECKING:
    from pathlib import Path


from tests.cli.console import run

# the project's conf.py --------------------------------------------------------------


def test_conf_py_settings_reach_every_command_and_flags_override_them(
    fake: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = fake.parent / "docs"
    docs.mkdir()
    (docs / "conf.py").write_text(
        'flax_errors_modules = ["cli_drift_errors"]\n'
        "flax_errors_timeout = 7\n"
        'flax_errors_catalogue_dirs = "examples"\n'
    )

    project = cli_selection.project(build_parser().parse_args(["check"]))
    assert project.conf == (docs / "conf.py").resolve()
    assert [spec.name for spec in project.config.modules] == ["cli_drift_errors"]
    assert project.config.timeout == 7
    # Relative to conf.py, and the shipped catalogue is still searched after it.
    assert project.catalogue_folders == ((docs / "examples").resolve(), SHIPPED_CATALOGUE)
    flagged = cli_selection.project(build_parser().parse_args(["check", "--timeout", "9"]))
    assert flagged.config.timeout == 9
    assert project.notebook_timeout is None
    (docs / "conf.py").write_text(
        'flax_errors_modules = ["cli_drift_errors"]\nnb_execution_timeout = 5\n'
    )
    notebooks = cli_selection.project(build_parser().parse_args(["check"]))
    assert notebooks.config.timeout is None
    assert notebooks.notebook_timeout == 5
    assert notebooks.config.example_timeout(notebooks.notebook_timeout) == 5

    code, out, _ = run(capsys, "list")
    assert code == ExitCode.OK
    assert [line.split()[1] for line in out.splitlines()[:-1]] == [
        "cli_drift_errors.RenamedError",
        "cli_drift_errors.SteadyError",
        "cli_drift_errors.BareError",
    ]


def test_conf_is_found_where_asked(fake: Path, capsys: pytest.CaptureFixture[str]) -> None:
    elsewhere = fake.parent / "site" / "setup.py"
    elsewhere.parent.mkdir()
    elsewhere.write_text('flax_errors_modules = ["cli_drift_errors"]\n')

    code, out, _ = run(capsys, "list", "--conf", str(elsewhere))
    assert code == ExitCode.OK
    assert out.splitlines()[-1].startswith("3 errors: ")

    code, _, err = run(capsys, "list", "--conf", str(fake.parent / "missing.py"))
    assert code == ExitCode.USAGE
    assert "missing.py: no such file" in err


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("raise RuntimeError('no docs here')\n", "failed to run: RuntimeError: no docs here"),
        ("import sys\nsys.exit(3)\n", "failed to run: SystemExit: 3"),
        ("flax_errors_timeout = -1\n", "flax_errors_timeout must be a positive whole number"),
        ("nb_execution_timeout = '30'\n", "nb_execution_timeout must be a whole number"),
    ],
)
def test_a_conf_py_that_cannot_be_used_exits_2(
    fake: Path, capsys: pytest.CaptureFixture[str], text: str, says: str
) -> None:
    (fake.parent / "conf.py").write_text(text)

    code, _, err = run(capsys, "list")

    assert code == ExitCode.USAGE
    assert "conf.py" in err
    assert says in err
