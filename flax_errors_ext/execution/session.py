"""One run session, used alike by the site's build and by ``flax-errors check``.

A :class:`Session` holds what every entry of a run shares: the
:class:`~flax_errors_ext.execution.runs.runner.Runner`, the execution cache, and the
fingerprint every entry's cache key starts from. Below one working folder::

    <work_dir>/jax_cache/     JAX's persistent compilation cache
    <work_dir>/logs/          each entry's process output, as last run
    <work_dir>/runs/          the processes' working folder (unless nb_execution_in_temp)
    <work_dir>/device.json    the device probe's answer, kept while the machine is the same
    <work_dir>/sources.json   content hashes of the Python sources runs loaded
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import TYPE_CHECKING, Self

from flax_errors_ext.execution.cache.probe import probe_device_cached, runtime_hashes
from flax_errors_ext.execution.cache.store import RunStore
from flax_errors_ext.execution.runs.in_process import package_versions
from flax_errors_ext.execution.runs.run import RunSettings
from flax_errors_ext.execution.runs.runner import Runner
from flax_errors_ext.model.runs.fingerprint import Device, Fingerprint

if TYPE_CHECKING:
    from types import TracebackType

    from myst_nb.core.config import NbParserConfig

    from flax_errors_ext.model.config import CatalogueConfig

PROBE_CACHE = "device.json"


def compilation_cache_env(cache_dir: Path) -> dict[str, str]:
    """Lets each fresh process reuse what others compiled; a user's own cache is left."""
    if "JAX_COMPILATION_CACHE_DIR" in os.environ:
        return {}
    return {
        "JAX_COMPILATION_CACHE_DIR": str(cache_dir),
        # Cache every program: the ones examples compile are small and quick, which
        # is exactly what JAX's defaults leave out.
        "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
        "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "0",
    }


@dataclasses.dataclass(frozen=True)
class ExecutionOptions:
    """myst-nb's execution settings, as the catalogue's runs read them."""

    mode: str = "cache"
    """``cache``, ``force`` or ``off`` (``nb_execution_mode``, ``auto`` read as ``cache``)."""
    cache_path: str = ""
    """``nb_execution_cache_path``: the runs are kept in its ``flax-errors/`` folder."""
    timeout: int | None = 30
    """``nb_execution_timeout``: seconds an example may run; -1 or None: no limit."""
    in_temp: bool = False
    """``nb_execution_in_temp``: each entry's process in a fresh temporary folder."""

    @classmethod
    def of(cls, nb_config: NbParserConfig, mode: str) -> ExecutionOptions:
        """Read from myst-nb's config; ``mode``, the catalogue's own (see ``run_mode``)."""
        return cls(
            mode=mode,
            cache_path=str(nb_config.execution_cache_path or ""),
            timeout=nb_config.execution_timeout,
            in_temp=bool(nb_config.execution_in_temp),
        )


class Session:
    """The runner, the cache and the fingerprint of one run of catalogue examples."""

    def __init__(
        self, work_dir: Path, config: CatalogueConfig, execution: ExecutionOptions
    ) -> None:
        self.work_dir = work_dir
        self.config = config
        self.execution = execution
        self.env = (
            compilation_cache_env(work_dir / "jax_cache")
            if self.executes and config.compilation_cache
            else {}
        )
        self._fingerprint: Fingerprint | None = None
        self._runner: Runner | None = None

    @property
    def executes(self) -> bool:
        """Whether examples run at all."""
        return self.execution.mode != "off"

    def fingerprint(self) -> Fingerprint:
        """The run's fingerprint; the devices are probed only when examples run."""
        if self._fingerprint is None:
            device = None
            if self.executes:
                # Asked of a process of the runner's, which sees what an entry's sees
                # (and, on an accelerator, holds it for the entries).
                device = probe_device_cached(self.work_dir / PROBE_CACHE, self.runner.probe)
                if isinstance(device, Device) and device.platform != "cpu":
                    self.runner.reuse = True
            self._fingerprint = Fingerprint.of(package_versions(), device, runtime_hashes())
        return self._fingerprint

    @property
    def runner(self) -> Runner:
        """The run's runner (started at first use)."""
        if self._runner is None:
            self._runner = Runner(
                timeout=self.config.example_timeout(self.execution.timeout),
                log_dir=self.work_dir / "logs",
                cwd=None if self.execution.in_temp else self.work_dir / "runs",
                env=self.env,
            )
        return self._runner

    def settings(self) -> RunSettings:
        """What running any entry of this session needs."""
        mode = self.execution.mode
        store = None
        if mode == "cache":
            store = RunStore(Path(self.execution.cache_path or ".jupyter_cache"))
        if self.executes and not self.execution.in_temp:
            (self.work_dir / "runs").mkdir(parents=True, exist_ok=True)
        return RunSettings(
            fingerprint=self.fingerprint(),
            mode=mode,
            sources_store=self.work_dir / "sources.json",
            output_limit=self.config.output_limit,
            runner=self.runner,
            store=store,
        )

    def close(self) -> None:
        """End the runner's processes and its forkserver."""
        if self._runner is not None:
            self._runner.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
