"""The fix under the traceback: in a script, in IPython and Jupyter, in pytest."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from typing import TYPE_CHECKING

import pytest

import flax_errors_ext.help as flax_help
from tests.help.index_entry import HELP

if TYPE_CHECKING:
    from pathlib import Path


def run(code: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter, with the environment and ``env``."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=cwd,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


SCRIPT = """
import sys
import flax_errors_ext.help

def earlier(kind, error, trace):
    print("earlier hook", file=sys.stderr)
    sys.__excepthook__(kind, error, trace)

sys.excepthook = earlier
flax_errors_ext.help.install()
int("seven")
"""


def test_a_script_shows_the_help_after_the_whole_traceback_and_the_earlier_hook(
    index_file: Path,
) -> None:
    done = run(SCRIPT, index_file.parent)

    assert done.returncode == 1
    lines = done.stderr.splitlines()
    assert lines[0] == "earlier hook"
    assert lines[1] == "Traceback (most recent call last):"
    assert lines[-3:] == ["ValueError: invalid literal for int() with base 10: 'seven'", *HELP]


def test_nothing_is_added_to_an_error_no_entry_matches(index_file: Path) -> None:
    done = run(SCRIPT.replace('int("seven")', 'float("seven")'), index_file.parent)

    assert done.stderr.splitlines()[-1] == "ValueError: could not convert string to float: 'seven'"
    assert "help:" not in done.stderr


def test_the_environment_turns_the_help_off(index_file: Path) -> None:
    done = run(SCRIPT, index_file.parent, FLAX_ERRORS_HELP="0")

    assert done.stderr.splitlines()[-1].startswith("ValueError: invalid literal")
    assert "help:" not in done.stderr


def test_an_error_raised_from_a_documented_one_gets_the_causes_help(index_file: Path) -> None:
    code = SCRIPT.replace(
        'int("seven")',
        'try:\n    int("seven")\n'
        'except ValueError as e:\n    raise RuntimeError("wrapped") from e',
    )

    done = run(code, index_file.parent)

    assert done.stderr.splitlines()[-3:] == ["RuntimeError: wrapped", *HELP]
    assert done.stderr.count("help:") == 1


def test_the_help_imports_no_library_the_catalogue_documents(index_file: Path) -> None:
    code = """
    import sys
    import flax_errors_ext.help
    flax_errors_ext.help.install()
    try:
        int("seven")
    except ValueError as error:
        print(flax_errors_ext.help.help_lines(error))
    print(sorted(m for m in ("jax", "flax", "sphinx", "IPython", "doctest") if m in sys.modules))
    """

    done = run(code, index_file.parent)

    assert done.stdout.splitlines() == [repr(HELP), "[]"], done.stderr


def test_uninstall_gives_back_the_hook_that_was_there(index_file: Path) -> None:
    before = sys.excepthook
    flax_help.install()
    try:
        assert sys.excepthook is not before
        assert flax_help.installed()
    finally:
        flax_help.uninstall()
    assert sys.excepthook is before
    assert not flax_help.installed()
    flax_help.uninstall()  # idempotent
    assert sys.excepthook is before


IPYTHON = """
from IPython.core.interactiveshell import InteractiveShell
import flax_errors_ext

shell = InteractiveShell.instance(colors="NoColor")
shell.run_line_magic("load_ext", "flax_errors_ext")
shell.run_cell('int("seven")')
print("--- unloaded")
flax_errors_ext.uninstall()
shell.run_cell('int("seven")')
"""


def test_ipython_shows_the_shells_traceback_then_the_help_until_uninstalled(
    index_file: Path,
) -> None:
    done = run(IPYTHON, index_file.parent)

    loaded, _, unloaded = done.stdout.partition("--- unloaded")
    assert '----> 1 int("seven")' in loaded
    assert loaded.rstrip().splitlines()[-3:] == [
        "ValueError: invalid literal for int() with base 10: 'seven'",
        *HELP,
    ], done.stderr
    assert "ValueError: invalid literal" in unloaded
    assert "help:" not in unloaded


def test_a_handler_the_shell_had_still_makes_the_traceback(index_file: Path) -> None:
    code = """
    from IPython.core.interactiveshell import InteractiveShell
    import flax_errors_ext.help

    shell = InteractiveShell.instance(colors="NoColor")
    def mine(self, kind, error, trace, tb_offset=None):
        print("my handler:", error)
        return []
    shell.set_custom_exc((ValueError,), mine)
    flax_errors_ext.help.install(shell)
    shell.run_cell('int("seven")')
    flax_errors_ext.help.uninstall()
    print(shell.custom_exceptions)
    """

    done = run(code, index_file.parent)

    assert done.stdout.splitlines() == [
        "my handler: invalid literal for int() with base 10: 'seven'",
        *HELP,
        "(<class 'ValueError'>,)",
    ], done.stderr


def test_pytests_failure_report_shows_the_help(index_file: Path) -> None:
    (index_file.parent / "test_words.py").write_text(
        "import flax_errors_ext.help\n"
        "flax_errors_ext.help.install()\n"
        "def test_words():\n"
        '    int("seven")\n'
    )

    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "test_words.py"],
        cwd=index_file.parent,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert done.returncode == 1
    report = done.stdout.splitlines()
    section = next(n for n, line in enumerate(report) if "flax-errors help" in line)
    assert report[section + 1 : section + 3] == list(HELP), done.stdout


@pytest.mark.examples
def test_a_jupyter_kernel_shows_the_help_in_the_cells_error(index_file: Path) -> None:
    from jupyter_client.manager import start_new_kernel

    manager, client = start_new_kernel(
        kernel_name="python3", cwd=str(index_file.parent), env={**os.environ}
    )
    errors: list[dict[str, object]] = []
    try:
        client.execute_interactive("%load_ext flax_errors_ext", timeout=120)
        client.execute_interactive(
            'int("seven")',
            timeout=60,
            output_hook=lambda m: (
                errors.append(m["content"]) if m["msg_type"] == "error" else None
            ),
        )
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)

    (error,) = errors
    assert error["ename"] == "ValueError"
    traceback = error["traceback"]
    assert isinstance(traceback, list)
    assert traceback[-2:] == list(HELP)
