"""What the tests of running entries share: the catalogue's kernelspec."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from flax_errors_ext.execution.runs.kernelspec import install_kernelspec

if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture
def kernelspec(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The catalogue's kernelspec, the only one Jupyter finds (``JUPYTER_PATH`` its own)."""
    monkeypatch.setenv("JUPYTER_PATH", "")
    install_kernelspec(tmp_path / "jupyter")
