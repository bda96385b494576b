"""What the kernel server does once, before it forks: JAX's plugin search, what it notes."""

from __future__ import annotations

import json
import os
import site
import subprocess
import sys
from typing import TYPE_CHECKING, Any

import pytest

from flax_errors_ext.execution.fork_server import preload

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="warm kernels need os.fork")

_PRELOAD = """
import json, sys
from flax_errors_ext.execution.fork_server.preload import preload
preload()
from jax._src import xla_bridge
print(json.dumps({
    "searched": xla_bridge._plugins_registered,
    "backend started": xla_bridge.backends_are_initialized(),
    "plugin imported": "jax_plugins.refused" in sys.modules,
}))
"""


def _preloaded(**env: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", _PRELOAD],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    found: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return found


def test_the_server_searches_for_jax_plugins_once_where_there_are_none() -> None:
    assert _preloaded() == {"searched": True, "backend started": False, "plugin imported": False}


def test_a_jax_plugin_is_left_for_each_kernel_to_find(tmp_path: Path) -> None:
    # Registering a plugin loads its library, which need not survive a fork.
    plugins = tmp_path / "jax_plugins"
    plugins.mkdir()
    (plugins / "refused.py").write_text("def initialize():\n    raise RuntimeError('loaded')\n")
    path = os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])

    found = _preloaded(PYTHONPATH=path)

    assert found == {"searched": False, "backend started": False, "plugin imported": False}


def test_the_folders_packages_are_installed_into_are_noted_with_their_times(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(site, "getsitepackages", lambda: [str(tmp_path), str(tmp_path / "gone")])
    monkeypatch.setattr(sys, "path", [*sys.path, str(tmp_path), str(tmp_path / "gone")])

    folders = preload._package_folders()

    assert folders[str(tmp_path)] == tmp_path.stat().st_mtime_ns
    assert str(tmp_path / "gone") not in folders
