"""What a run's examples run on: the warm kernel server and the devices its kernels see.

A :class:`KernelHost` needs only whether examples run, so a build makes it as soon
as its configuration is read, before the session that caches the runs
(:class:`~flax_errors_ext.execution.session.Session`, which needs myst-nb's
settings). Its :meth:`~KernelHost.fingerprint_meanwhile` then probes the devices
for the run's fingerprint in a thread: where the probe cache does not answer (a
cold build), the probe starts the server, whose imports (ipykernel, jax, flax) take
longer than anything else before the first entry can run, and they overlap what
the build does meanwhile (Sphinx loading its environment, the modules'
discovery) instead of following it.
"""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING

from flax_errors_ext.execution.fork_server.client import WarmKernelServer
from flax_errors_ext.execution.runs.kernel_environment import package_versions
from flax_errors_ext.execution.runs.kernelspec import compilation_cache_env
from flax_errors_ext.execution.runs.probe import probe_device, probe_device_cached, runtime_hashes
from flax_errors_ext.model.runs.fingerprint import Fingerprint

if TYPE_CHECKING:
    from pathlib import Path

    from flax_errors_ext.model.config import CatalogueConfig
    from flax_errors_ext.model.runs.fingerprint import Device, ProbeError


PROBE_CACHE = "device.json"
"""The device probe's answer, in the work folder, kept while the machine is the same."""


class KernelHost:
    """The warm kernel server (started once, when first needed) and the run's fingerprint."""

    def __init__(self, work_dir: Path, config: CatalogueConfig, *, executes: bool) -> None:
        self.work_dir = work_dir
        self.config = config
        self.executes = executes
        self.kernel_env: dict[str, str] = (
            compilation_cache_env(work_dir / "jax_cache")
            if executes and config.compilation_cache
            else {}
        )
        """What the kernels' environment adds to this process's."""
        self._server: WarmKernelServer | None = None
        self._server_lock = threading.Lock()
        self._fingerprint: Fingerprint | None = None
        self._probing: threading.Thread | None = None
        self._device: Device | ProbeError | None = None
        self._failure: BaseException | None = None

    def start_server(self) -> WarmKernelServer | None:
        """Start the warm kernel server (once), if examples run and warm kernels are on.

        Called by the device probe, before the first kernel of the run, and by a
        build whose readers may run entries. Its imports (ipykernel, jax, flax) are
        heavy: a run whose entries all come from the cache never starts it. Safe
        from the entries' threads: the first one starts it, the others wait.
        """
        wanted = self.executes and self.config.warm_kernels and hasattr(os, "fork")
        with self._server_lock:
            if self._server is None and wanted:
                self._server = WarmKernelServer(
                    self.work_dir, linger=self.config.keep_kernel_server, env=self.kernel_env
                )
            return self._server

    def fingerprint_meanwhile(self) -> None:
        """Begin the device probe in a thread; :meth:`fingerprint` waits for it.

        The probe alone: the rest of the fingerprint hashes our sources with
        :mod:`ast`, whose parser CPython 3.11 does not let two threads run at once
        (``SystemError: AST constructor recursion depth mismatch``), and the build
        parses docstrings meanwhile. A daemon thread: a build that fails before it
        asks does not wait on a probe.
        """
        if self._fingerprint is not None or self._probing is not None:
            return
        self._probing = threading.Thread(
            target=self._probe_now, name="flax-errors-probe", daemon=True
        )
        self._probing.start()

    def _probe_now(self) -> None:
        try:
            if self.executes and not (self.work_dir / PROBE_CACHE).exists():
                self.start_server()  # the probe will ask it: its imports start at once
            self._device = self._device_now()
        except BaseException as error:  # handed to whoever asks for the fingerprint
            self._failure = error

    def fingerprint(self) -> Fingerprint:
        """The run's fingerprint; the devices are probed only when examples run.

        Raises:
            Exception: what the probe's thread raised, raised again here.
        """
        if self._fingerprint is None:
            self._fingerprint = Fingerprint.of(
                package_versions(), self._device_probed(), runtime_hashes()
            )
        return self._fingerprint

    def _device_probed(self) -> Device | ProbeError | None:
        """The thread's answer, once it is done; asked now where no thread asked."""
        if self._probing is None:
            return self._device_now()
        self._probing.join()
        self._probing = None
        if self._failure is not None:
            failure, self._failure = self._failure, None
            raise failure
        return self._device

    def _device_now(self) -> Device | ProbeError | None:
        """The devices, from the probe cache or the probe; None where no example runs."""
        if not self.executes:
            return None
        return probe_device_cached(self.work_dir / PROBE_CACHE, self._probe)

    def _probe(self) -> Device | ProbeError:
        """Ask the warm server, which a run that probes will need anyway."""
        server = self.start_server()
        return server.probe_device() if server is not None else probe_device()

    def close(self) -> None:
        """Stop the server (or keep it, if asked), once the probe's thread is done."""
        if self._probing is not None:
            self._probing.join()
        if self._server is not None:
            self._server.stop()
            self._server = None
