"""What the catalogue's kernels start from: a kernelspec of our own, and JAX's cache.

Notebooks name the ``flax-errors`` kernel. Its provisioner
(:mod:`flax_errors_ext.execution.fork_server.provisioner`) asks the warm kernel
server, when one runs, to fork a kernel that has already imported ipykernel, jax
and flax; otherwise its command runs the fork server's launcher
(:mod:`flax_errors_ext.execution.fork_server.launcher`) with this interpreter,
which asks the same of the server, or becomes an ordinary IPython kernel. Where
this package is not installed (no entry point names the provisioner) the command
alone does it. The notebooks are the same either way, so the execution cache does
not care which ran them.
"""

from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

KERNEL_NAME = "flax-errors"
PROVISIONER = "flax-errors-fork-server"
"""The kernelspec's provisioner (:mod:`flax_errors_ext.execution.fork_server.provisioner`),
named by this package's ``jupyter_client.kernel_provisioners`` entry point."""
KERNELSPEC = {"name": KERNEL_NAME, "display_name": "Python 3 (flax-errors)", "language": "python"}


def install_kernelspec(data_dir: Path, env: Mapping[str, str] | None = None) -> None:
    """Write the kernelspec under ``data_dir`` and put it on ``JUPYTER_PATH``.

    Jupyter finds kernelspecs through ``JUPYTER_PATH``; setting it in this
    process's environment reaches every kernel manager the build starts,
    including those of ``-j`` workers. ``env`` is set in each kernel's environment
    only (the kernelspec's ``env``), never in this process's: the Sphinx process
    and whatever else it runs (a project's own notebooks) keep theirs.
    """
    spec_dir = data_dir / "kernels" / KERNEL_NAME
    spec_dir.mkdir(parents=True, exist_ok=True)
    spec: dict[str, Any] = {
        "argv": [
            sys.executable,
            "-m",
            "flax_errors_ext.execution.fork_server",
            "launch",  # fork_server.protocol.LAUNCH (that package imports this one)
            "-f",
            "{connection_file}",
            # A kernel runs entries' cells once each: IPython's input history, a
            # database written by a thread of its own, is never read again.
            "--HistoryManager.enabled=False",
        ],
        "display_name": KERNELSPEC["display_name"],
        "language": "python",
        "interrupt_mode": "signal",
        "metadata": {"debugger": False},
    }
    if _provisioner_installed():
        spec["metadata"]["kernel_provisioner"] = {"provisioner_name": PROVISIONER}
    if env:
        spec["env"] = dict(env)
    (spec_dir / "kernel.json").write_text(json.dumps(spec, indent=1), encoding="utf-8")
    paths = os.environ.get("JUPYTER_PATH", "").split(os.pathsep)
    if str(data_dir) not in paths:
        os.environ["JUPYTER_PATH"] = os.pathsep.join([str(data_dir), *filter(None, paths)])


def _provisioner_installed() -> bool:
    """Whether jupyter_client finds :data:`PROVISIONER` (this package is installed)."""
    from importlib.metadata import entry_points

    found = entry_points(group="jupyter_client.kernel_provisioners", name=PROVISIONER)
    return bool(list(found))


def compilation_cache_env(cache_dir: Path) -> dict[str, str]:
    """The environment that lets every kernel of the build reuse what the others compiled.

    Each entry's process is fresh, so without this each one recompiles the same
    small XLA programs (``init`` of a Dense layer, random keys) that a single
    doctest process compiles once. JAX reads these variables when it is imported:
    they go to the kernels and the warm server that forks them, as they start. A
    user's own choice of cache directory is left alone (nothing is returned).
    """
    if "JAX_COMPILATION_CACHE_DIR" in os.environ:
        return {}
    return {
        "JAX_COMPILATION_CACHE_DIR": str(cache_dir),
        # Cache every program: the ones examples compile are small and quick, which
        # is exactly what JAX's defaults leave out.
        "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
        "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "0",
    }
