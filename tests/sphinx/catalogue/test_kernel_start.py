"""A kernel that fails to start: the build names the entry, where it is, and why."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from flax_errors_ext.execution import session
from tests.execution.runs.failing_kernels import failing_kernelspec
from tests.utils import entry, read_catalogue

if TYPE_CHECKING:
    from collections.abc import Mapping

    from sphinx.testing.util import SphinxTestApp

pytestmark = pytest.mark.kernels


@pytest.fixture
def kernels_that_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    """The build's kernelspec names a kernel that exits at once, saying why."""
    monkeypatch.setenv("JUPYTER_PATH", "")

    def install(data_dir: Path, env: Mapping[str, str] | None = None) -> None:
        failing_kernelspec(data_dir, "address already in use")
        monkeypatch.setenv("JUPYTER_PATH", str(data_dir))

    monkeypatch.setattr(session, "install_kernelspec", install)


@pytest.mark.usefixtures("kernels_that_fail")
# A copy of its own: where another test built the root first, its entries would come
# from that build's execution cache and no kernel would start.
@pytest.mark.sphinx("html", testroot="passing", srcdir="passing-kernels-that-fail")
def test_a_failed_start_is_a_located_warning_with_the_kernels_reason(app: SphinxTestApp) -> None:
    app.build()
    assert app.statuscode == 1
    record = entry(read_catalogue(Path(app.outdir)), "ShapeError")
    assert {e["status"] for e in record["examples"]} == {"crashed"}
    text = re.sub(r"\x1b\[[0-9;]*m", "", app.warning.getvalue())
    located = re.search(r"passing_errors\.py:\d+: WARNING: .*ShapeError.*", text)
    assert located, text
    assert "the kernel exited with status 3 before it answered" in located.group(0)
    assert "no kernel today: address already in use" in text
    assert "Traceback" not in text
    assert "assert self.km" not in text
