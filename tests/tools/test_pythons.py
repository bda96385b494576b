from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from tools.pythons import flax_docs_python, runs, version_key

if TYPE_CHECKING:
    from pathlib import Path

    import pytest


def test_releases_sort_by_number_not_text() -> None:
    found = ["/p/versions/3.12.9/bin/python3.12", "/p/versions/3.12.10/bin/python3.12"]
    assert max(found, key=version_key) == "/p/versions/3.12.10/bin/python3.12"


def test_a_python_that_cannot_start_is_passed_over(tmp_path: Path) -> None:
    shim = tmp_path / "python3.12"
    shim.write_text("#!/bin/sh\nexit 127\n")
    shim.chmod(0o755)
    assert not runs(str(shim))
    assert not runs(str(tmp_path / "absent"))
    assert runs(sys.executable)


def test_without_any_312_or_313_the_session_names_312(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path))
    assert flax_docs_python() == "3.12"
