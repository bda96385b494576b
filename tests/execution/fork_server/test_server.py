"""What makes a kept kernel server stale for the next build."""

from __future__ import annotations

import os
import site
import sys
from typing import TYPE_CHECKING

import pytest

from flax_errors_ext.execution.fork_server import preload, server
from flax_errors_ext.execution.fork_server.protocol import FreshnessRequest

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="warm kernels need os.fork")


def test_a_package_installed_since_makes_the_server_stale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(site, "getsitepackages", lambda: [str(tmp_path)])
    monkeypatch.setattr(sys, "path", [*sys.path, str(tmp_path)])
    folders = preload._package_folders()
    environment = preload.ImportEnvironment(dict(os.environ), dict(os.environ))
    request = FreshnessRequest(executable=sys.executable, env=dict(os.environ))
    assert server._stale(request, environment, folders) == ""

    (tmp_path / "jax_cuda_plugin").mkdir()
    os.utime(tmp_path, ns=(0, folders[str(tmp_path)] + 1))  # coarse clocks: a new time

    stale = server._stale(request, environment, folders)
    assert stale == f"{tmp_path} changed since it was imported"
