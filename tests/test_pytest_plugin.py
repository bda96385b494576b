"""Contributor doctests leave out the examples written for other versions."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

HELD_AND_NOT = """\
Raised one way by old interpreters and another by today's.

Bad example:

  :holds for: python < 3

  >>> x = 1 + 1
  Traceback (most recent call last):
    ...
  mylib.errors.ChangedError: never raised here

Good example:

  :holds for: python >= 3

  >>> 1 + 1
  2
"""

NONE_HELD = """\
Raised by old interpreters only.

Bad example:

  :holds for: python < 3, mylib-never-installed > 1

  >>> x = 1 + 1
  Traceback (most recent call last):
    ...
  mylib.errors.RetiredError: never raised here
"""


def _doctests(tmp_path: Path, **files: str) -> subprocess.CompletedProcess[str]:
    folder = tmp_path / "mylib.errors"
    folder.mkdir()
    for name, text in files.items():
        (folder / f"{name}.txt").write_text(textwrap.dedent(text), "utf-8")
    (tmp_path / "pytest.ini").write_text("[pytest]\n", "utf-8")
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-rs", "-p", "no:cacheprovider", "--doctest-glob=*.txt"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )


def test_statements_for_other_versions_are_left_out_of_the_doctest(tmp_path: Path) -> None:
    done = _doctests(tmp_path, ChangedError=HELD_AND_NOT)
    assert done.returncode == 0, done.stdout
    assert "1 passed" in done.stdout


def test_a_doctest_with_nothing_left_is_skipped_saying_why(tmp_path: Path) -> None:
    done = _doctests(tmp_path, RetiredError=NONE_HELD)
    assert done.returncode == 0, done.stdout
    assert "1 skipped" in done.stdout
    assert "holds for python < 3 and mylib-never-installed > 1" in done.stdout
    assert "python 3." in done.stdout
    assert "no mylib-never-installed" in done.stdout


def test_without_the_line_every_statement_runs(tmp_path: Path) -> None:
    failing = HELD_AND_NOT.replace("  :holds for: python < 3\n\n", "")
    done = _doctests(tmp_path, ChangedError=failing)
    assert done.returncode == 1, done.stdout
