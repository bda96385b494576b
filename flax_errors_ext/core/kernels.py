"""The kernels the catalogue's notebooks run in: a kernelspec of our own, served warm.

Notebooks name the ``flax-errors`` kernel. Its kernelspec runs
:mod:`flax_errors_ext.zygote`'s launcher with this interpreter, which asks the warm
kernel server (when one runs) to fork a kernel that has already imported ipykernel,
jax and flax, and otherwise starts an ordinary IPython kernel. The notebooks are
the same either way, so the execution cache does not care which ran them.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterator

from flax_errors_ext import zygote
from flax_errors_ext.core.fingerprint import probe_device

KERNEL_NAME = "flax-errors"
KERNELSPEC = {"name": KERNEL_NAME, "display_name": "Python 3 (flax-errors)", "language": "python"}


def install_kernelspec(data_dir: Path) -> None:
    """Write the kernelspec under ``data_dir`` and put it on ``JUPYTER_PATH``.

    Jupyter finds kernelspecs through ``JUPYTER_PATH``; setting it in this
    process's environment reaches every kernel manager the build starts,
    including those of ``-j`` workers.
    """
    spec_dir = data_dir / "kernels" / KERNEL_NAME
    spec_dir.mkdir(parents=True, exist_ok=True)
    spec = {
        "argv": [
            sys.executable,
            "-m",
            "flax_errors_ext.zygote",
            "launch",
            "-f",
            "{connection_file}",
        ],
        "display_name": KERNELSPEC["display_name"],
        "language": "python",
        "interrupt_mode": "signal",
        "metadata": {"debugger": False},
    }
    (spec_dir / "kernel.json").write_text(json.dumps(spec, indent=1), encoding="utf-8")
    paths = os.environ.get("JUPYTER_PATH", "").split(os.pathsep)
    if str(data_dir) not in paths:
        os.environ["JUPYTER_PATH"] = os.pathsep.join([str(data_dir), *filter(None, paths)])


def share_compilation_cache(cache_dir: Path) -> None:
    """Let every kernel of the build reuse what the others compiled.

    Each entry's kernel is fresh, so without this each one recompiles the same
    small XLA programs (``init`` of a Dense layer, random keys) that a single
    doctest process compiles once. JAX reads these variables when it is imported,
    so they are set before any kernel (or the warm server) starts. A user's own
    choice of cache directory is left alone.
    """
    if "JAX_COMPILATION_CACHE_DIR" in os.environ:
        return
    os.environ["JAX_COMPILATION_CACHE_DIR"] = str(cache_dir)
    # Cache every program: the ones examples compile are small and quick, which
    # is exactly what JAX's defaults leave out.
    os.environ["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"] = "0"
    os.environ["JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES"] = "0"


SERVER_LOG = "kernel-server.log"
KEPT_SERVER = "kernel-server.json"
"""Where a build leaves the address of the server it keeps for the next one."""


class WarmKernelServer:
    """The process that forks warm kernels; started before any notebook runs.

    It also answers the build's device probe (see :meth:`probe_device`). With
    ``linger`` seconds, :meth:`stop` keeps it running, idle, for the next build
    with the same ``state_dir``, which reuses it if it is still fresh (see
    :mod:`flax_errors_ext.zygote`) and otherwise stops it and starts its own.
    """

    def __init__(self, state_dir: Path, *, linger: float = 0) -> None:
        state_dir.mkdir(parents=True, exist_ok=True)
        self._kept = state_dir / KEPT_SERVER
        self._linger = linger
        self._log: IO[Any] | None = None
        self._process: subprocess.Popen[bytes] | None = None
        address = self._reuse() if linger > 0 else None
        if address is None:
            retire_kept_server(state_dir)
            address = self._start(state_dir / SERVER_LOG)
        self._address = address
        self.pid = int(address.rpartition(":")[2])
        os.environ[zygote.SERVER_ENV_VAR] = address

    def _reuse(self) -> str | None:
        """The kept server's address if it may serve this build."""
        address = _kept_address(self._kept)
        if address is None:
            return None
        request = {"fresh": True, "executable": sys.executable, "env": dict(os.environ)}
        answer = zygote.ask(address, request, timeout=10, wait=False)
        return address if answer is not None and not answer.get("stale") else None

    def _start(self, log_path: Path) -> str:
        # A short path of its own: Unix socket paths are limited to ~100 bytes.
        socket_path = Path(tempfile.mkdtemp(prefix="flax-errors-")) / "kernels.sock"
        self._log = log_path.open("ab")
        serve = ["serve", str(socket_path), str(os.getpid())]
        self._process = subprocess.Popen(
            [sys.executable, "-m", "flax_errors_ext.zygote", *serve],
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=self._log,
            # A server kept for later must not share the build's terminal signals.
            start_new_session=self._linger > 0,
        )
        address = f"{socket_path}:{self._process.pid}"
        if self._linger > 0:
            self._kept.write_text(json.dumps({"address": address}), encoding="utf-8")
        return address

    def probe_device(self) -> dict[str, Any]:
        """The devices a kernel will see, asked of a child of the server.

        The server imports jax for the kernels anyway, so this costs a fork and a
        backend start instead of a whole interpreter; if the server cannot answer,
        a fresh interpreter does (:func:`~flax_errors_ext.core.fingerprint.probe_device`).
        """
        return zygote.probe(self._address, timeout=300) or probe_device()

    def stop(self) -> None:
        """Stop the server (its kernels see their parent go and exit too), or keep it."""
        if os.environ.get(zygote.SERVER_ENV_VAR) == self._address:
            del os.environ[zygote.SERVER_ENV_VAR]
        kept = self._linger > 0 and zygote.ask(self._address, {"linger": self._linger}, timeout=10)
        if not kept:
            if self._process is None:
                zygote.ask(self._address, {"stop": True}, timeout=10)
            elif self._process.poll() is None:
                self._process.terminate()
                try:
                    self._process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    self._process.kill()
                    self._process.wait()
            self._kept.unlink(missing_ok=True)
            shutil.rmtree(Path(self._address.rpartition(":")[0]).parent, ignore_errors=True)
        if self._log is not None:
            self._log.close()


def retire_kept_server(state_dir: Path) -> None:
    """Stop the server an earlier build kept in ``state_dir``, if there is one."""
    kept = state_dir / KEPT_SERVER
    address = _kept_address(kept)
    if address is not None:
        zygote.ask(address, {"stop": True}, timeout=10)
    kept.unlink(missing_ok=True)


def _kept_address(kept: Path) -> str | None:
    try:
        address = json.loads(kept.read_text(encoding="utf-8"))["address"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return address if isinstance(address, str) else None


@contextlib.contextmanager
def kernel_environment(
    work_dir: Path, *, warm: bool, compilation_cache: bool, linger: float = 0
) -> Iterator[WarmKernelServer | None]:
    """Everything the notebooks' kernels need, for one run outside Sphinx.

    The kernelspec, the shared compilation cache and, while the block runs, the
    warm kernel server, which the block gets (None when not warm). (The Sphinx
    build takes the same steps, at the moments of the build that suit each.)
    """
    install_kernelspec(work_dir / "jupyter")
    if compilation_cache:
        share_compilation_cache(work_dir / "jax_cache")
    server = WarmKernelServer(work_dir, linger=linger) if warm and hasattr(os, "fork") else None
    try:
        yield server
    finally:
        if server is not None:
            server.stop()
