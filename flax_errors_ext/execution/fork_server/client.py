"""The build's side of the fork server: start it, reuse a kept one, stop it.

:class:`WarmKernelServer` is what a :class:`~flax_errors_ext.execution.session.Session`
holds while kernels run; it names the server to the launchers through
``FLAX_ERRORS_KERNEL_SERVER``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from flax_errors_ext.execution.fork_server.protocol import (
    SERVE,
    SERVER_ENV_VAR,
    FreshnessRequest,
    LingerRequest,
    ProbeRequest,
    StopRequest,
    ask,
)
from flax_errors_ext.execution.runs.probe import probe_device, read_device

if TYPE_CHECKING:
    from collections.abc import Mapping

    from flax_errors_ext.model.runs.fingerprint import Device, ProbeError

SERVER_LOG = "kernel-server.log"
KEPT_SERVER = "kernel-server.json"
"""Where a build leaves the address of the server it keeps for the next one."""


class WarmKernelServer:
    """The process that forks warm kernels; started before any notebook runs.

    It also answers the build's device probe (see :meth:`probe_device`). With
    ``linger`` seconds, :meth:`stop` keeps it running, idle, for the next build
    with the same ``state_dir``, which reuses it if it is still fresh (see
    :mod:`flax_errors_ext.execution.fork_server.server`) and otherwise stops it and starts its own.
    """

    def __init__(
        self, state_dir: Path, *, linger: float = 0, env: Mapping[str, str] | None = None
    ) -> None:
        state_dir.mkdir(parents=True, exist_ok=True)
        self._kept = state_dir / KEPT_SERVER
        self._linger = linger
        # The kernels' environment (this process's and the kernelspec's ``env``): the
        # server imports under it, and the kernels it forks ask with it.
        self._env = {**os.environ, **(env or {})}
        self._log: IO[Any] | None = None
        self._process: subprocess.Popen[bytes] | None = None
        address = self._reuse() if linger > 0 else None
        if address is None:
            retire_kept_server(state_dir)
            address = self._start(state_dir / SERVER_LOG)
        self._address = address
        self.pid = int(address.rpartition(":")[2])
        os.environ[SERVER_ENV_VAR] = address

    def _reuse(self) -> str | None:
        """The kept server's address if it may serve this build."""
        address = _kept_address(self._kept)
        if address is None:
            return None
        request = FreshnessRequest(executable=sys.executable, env=self._env)
        answer = ask(address, request, timeout=10, wait=False)
        return address if answer is not None and not answer.get("stale") else None

    def _start(self, log_path: Path) -> str:
        # A short path of its own: Unix socket paths are limited to ~100 bytes.
        socket_path = Path(tempfile.mkdtemp(prefix="flax-errors-")) / "kernels.sock"
        self._log = log_path.open("ab")
        serve = [SERVE, str(socket_path), str(os.getpid())]
        self._process = subprocess.Popen(
            [sys.executable, "-m", "flax_errors_ext.execution.fork_server", *serve],
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=self._log,
            env=self._env,
            # A server kept for later must not share the build's terminal signals.
            start_new_session=self._linger > 0,
        )
        address = f"{socket_path}:{self._process.pid}"
        if self._linger > 0:
            self._kept.write_text(json.dumps({"address": address}), encoding="utf-8")
        return address

    def probe_device(self) -> Device | ProbeError:
        """The devices a kernel will see, asked of a child of the server.

        The server imports jax for the kernels anyway, so this costs a fork and a
        backend start instead of a whole interpreter; if the server cannot answer,
        a fresh interpreter does (:func:`~flax_errors_ext.execution.runs.probe.probe_device`).
        """
        answer = ask(self._address, ProbeRequest(), timeout=300)
        return read_device(answer) if answer is not None else probe_device()

    def stop(self) -> None:
        """Stop the server (its kernels see their parent go and exit too), or keep it."""
        if os.environ.get(SERVER_ENV_VAR) == self._address:
            del os.environ[SERVER_ENV_VAR]
        kept = self._linger > 0 and ask(self._address, LingerRequest(self._linger), timeout=10)
        if not kept:
            if self._process is None:
                ask(self._address, StopRequest(), timeout=10)
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
        ask(address, StopRequest(), timeout=10)
    kept.unlink(missing_ok=True)


def _kept_address(kept: Path) -> str | None:
    try:
        address = json.loads(kept.read_text(encoding="utf-8"))["address"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return address if isinstance(address, str) else None
