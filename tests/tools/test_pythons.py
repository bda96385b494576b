from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tools.pythons import flax_docs_python, newest_found, none_runs, runs, version_key

ROOT = Path(__file__).parents[2]
STACKS = ("3.11", "3.12", "3.13")


def _python(folder: Path, name: str, body: str) -> Path:
    """An executable ``name`` in ``folder`` that runs the shell's ``body``."""
    path = folder / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return path


def _working(folder: Path, name: str) -> Path:
    return _python(folder, name, f'exec "{sys.executable}" "$@"')


def _broken(folder: Path, name: str) -> Path:
    """As pyenv's shim of a version it has not installed and selected: found, cannot run."""
    return _python(folder, name, f'echo "pyenv: {name}: command not found" >&2; exit 127')


def test_releases_sort_by_number_not_text() -> None:
    found = ["/p/versions/3.12.9/bin/python3.12", "/p/versions/3.12.10/bin/python3.12"]
    assert max(found, key=version_key) == "/p/versions/3.12.10/bin/python3.12"


def test_a_python_that_cannot_start_is_passed_over(tmp_path: Path) -> None:
    assert not runs(str(_broken(tmp_path, "python3.12")))
    assert not runs(str(_python(tmp_path, "python3.13", "exit 1")))
    assert not runs(str(tmp_path / "absent"))
    assert runs(sys.executable)


def test_a_python_that_hangs_is_passed_over(tmp_path: Path) -> None:
    assert not runs(str(_python(tmp_path, "python3.13", "exec sleep 30")), timeout=0.5)


def test_the_site_builds_on_the_newest_python_that_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _broken(tmp_path, "python3.13")
    _working(tmp_path, "python3.12")
    _working(tmp_path, "python3.11")
    monkeypatch.setenv("PATH", str(tmp_path))

    assert newest_found(STACKS) == "3.12"


def test_where_none_runs_none_is_found_and_the_message_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _broken(tmp_path, "python3.13")
    monkeypatch.setenv("PATH", str(tmp_path))

    assert newest_found(STACKS) is None
    message = none_runs(STACKS)
    assert "python3.13 on PATH cannot start" in message
    assert message.endswith(
        "Install Python 3.11, 3.12 or 3.13, as python3.11, python3.12 or python3.13 on PATH"
    )
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert "none is on PATH" in none_runs(STACKS)


def test_nox_docs_fails_where_no_python_of_the_stacks_runs(tmp_path: Path) -> None:
    """Not skipped, as nox skips a session whose Python it cannot find, exiting 0."""
    pytest.importorskip("nox", reason="nox is not installed beside the tests")
    _broken(tmp_path, "python3.13")
    env = {"PATH": str(tmp_path), "PYENV_ROOT": str(tmp_path), "HOME": str(tmp_path)}

    done = subprocess.run(
        [sys.executable, "-m", "nox", "-f", str(ROOT / "noxfile.py"), "-s", "docs"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=120,
    )

    assert done.returncode != 0, done.stderr
    assert "Install Python 3.11, 3.12 or 3.13" in done.stderr


def test_without_any_312_or_313_the_session_names_312(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path))
    assert flax_docs_python() == "3.12"
