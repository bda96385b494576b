"""Fixtures of the command line tests."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.cli.console import FAKE

if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture
def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The drifted error module, importable, in the current directory."""
    path = tmp_path / "cli_drift_errors.py"
    path.write_text(FAKE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    return path
