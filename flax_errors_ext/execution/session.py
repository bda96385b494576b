"""One run session, used alike by the site's build and by ``flax-errors check``.

A :class:`Session` sets up everything the entries' kernels share, in one order:
the kernelspec, JAX's compilation cache, the jupyter-cache database (created
before any worker forks or thread races to), and its
:class:`~flax_errors_ext.execution.host.KernelHost`: the warm kernel server
(started by the device probe or the run's first kernel, so never for a run served
wholly from the cache) and the
:class:`~flax_errors_ext.model.runs.fingerprint.Fingerprint` every entry's cache key
starts from. A build makes the host first, as soon as it knows whether examples
run, and hands it over. Its :meth:`settings` are what :mod:`~flax_errors_ext.execution.runs.run`
needs to run an entry. Everything lives below one working folder::

    <work_dir>/jupyter/       the kernelspec
    <work_dir>/jax_cache/     JAX's persistent compilation cache
    <work_dir>/notebooks/     each entry's notebook, as last run
    <work_dir>/device.json    the device probe's answer, kept while the machine is the same
    <work_dir>/sources.json   content hashes of the Python sources runs loaded
    <work_dir>/cache-writer.log   what the process that caches the runs' outputs could not keep
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Self

from flax_errors_ext.execution.host import KernelHost
from flax_errors_ext.execution.runs.cache_writer import CacheWriter
from flax_errors_ext.execution.runs.execute import DATABASE_FILE, cache_folder
from flax_errors_ext.execution.runs.kernels import Kernels
from flax_errors_ext.execution.runs.kernelspec import install_kernelspec
from flax_errors_ext.execution.runs.run import RunSettings

if TYPE_CHECKING:
    from types import TracebackType

    from myst_nb.core.config import NbParserConfig

    from flax_errors_ext.execution.fork_server.client import WarmKernelServer
    from flax_errors_ext.model.config import CatalogueConfig
    from flax_errors_ext.model.runs.fingerprint import Fingerprint


def open_cache_database(path: Path) -> str | None:
    """Open (or create) the jupyter-cache database; rebuild a broken one from its notebooks.

    An unreadable database (truncated, overwritten, from an incompatible version)
    is moved aside, to ``global.db.broken-<time>`` in the cache folder, and a new one
    indexes the executed notebooks the folder keeps, each under the hash its folder
    is named by: nothing they hold is lost, and no example runs again for it. Where
    even that fails, the whole folder is set aside and a new one started (every
    example then runs again). Returns what was done, for the build's log, or None
    when the database was fine.
    """
    from jupyter_cache import get_cache

    try:
        cache = get_cache(str(path))
        cache.list_cache_records()
        cache.list_project_records()
    except Exception as error:  # sqlalchemy's, sqlite3's or jupyter-cache's own
        why = f"{type(error).__name__}: {(str(error).splitlines() or ['no message'])[0]}"
    else:
        return None
    stamp = time.strftime("%Y%m%d-%H%M%S")
    database = path / DATABASE_FILE
    try:
        aside = _free_name(database.with_name(f"{database.name}.broken-{stamp}"))
        database.rename(aside)
        kept = _index_cached_notebooks(path)
    except Exception:  # the folder itself is unusable: start afresh beside it
        aside = _free_name(path.with_name(f"{path.name}.broken-{stamp}"))
        path.rename(aside)
        get_cache(str(path)).list_cache_records()
        return (
            f"the execution cache at {path} could not be read ({why}); it was moved to "
            f"{aside} and a new one started, so every example runs again"
        )
    return (
        f"the execution cache database {database} could not be read ({why}); it was "
        f"moved to {aside} and rebuilt from the {kept} executed notebook(s) the cache "
        "keeps, which are reused as before"
    )


def _index_cached_notebooks(path: Path) -> int:
    """Create the cache's database anew and record each executed notebook it keeps.

    jupyter-cache keeps each executed notebook at ``executed/<hash>/base.ipynb``,
    the hash of the notebook's code: the record it needs is that hash. Returns
    how many were recorded.
    """
    from jupyter_cache import get_cache
    from jupyter_cache.cache.db import NbCacheRecord

    cache = get_cache(str(path))
    cache.list_cache_records()  # creates the database
    db = cache.db
    kept = 0
    for notebook in sorted(path.glob("executed/*/base.ipynb")):
        # ``data``: myst-nb reads a cached run's time from it (not recorded any more).
        NbCacheRecord.create_record(
            uri=str(notebook),
            hashkey=notebook.parent.name,
            db=db,
            data={},
            description="recovered",
        )
        kept += 1
    return kept


def _free_name(wanted: Path) -> Path:
    """``wanted``, or ``wanted-2``, ``wanted-3`` ...: the first that does not exist yet."""
    found, number = wanted, 1
    while found.exists():
        number += 1
        found = wanted.with_name(f"{wanted.name}-{number}")
    return found


CACHE_WRITER_LOG = "cache-writer.log"


class Session:
    """The kernels, caches and fingerprint of one run of catalogue examples."""

    def __init__(
        self,
        work_dir: Path,
        config: CatalogueConfig,
        nb_config: NbParserConfig,
        host: KernelHost | None = None,
    ) -> None:
        """A session in ``work_dir``; ``host``, one made before it, if it runs as this one does."""
        self.work_dir = work_dir
        self.config = config
        self.nb_config = nb_config
        made_alike = (self.executes, work_dir, config)
        if host is not None and (host.executes, host.work_dir, host.config) != made_alike:
            host.close()
            host = None
        self.host = host or KernelHost(work_dir, config, executes=self.executes)
        """The warm kernel server and the fingerprint (:mod:`~flax_errors_ext.execution.host`)."""
        self.kernels = Kernels(prepare=self.host.start_server)
        """The run's kernels, kept from entry to entry, stopped at :meth:`close`."""
        self.recovered: str | None = None
        """Set by :meth:`prepare` when the cache database was unreadable: what was done."""
        self.cache_writer = (
            CacheWriter(cache_folder(nb_config), work_dir / CACHE_WRITER_LOG)
            if nb_config.execution_mode == "cache"
            else None
        )
        """The process the runs' outputs are cached by, from the first run that ends."""
        self.unkept: str | None = None
        """Set by :meth:`close` when the cache did not keep every run: what it said."""

    @property
    def executes(self) -> bool:
        """Whether examples run at all (myst-nb's execution mode is not ``off``)."""
        return bool(self.nb_config.execution_mode != "off")

    @property
    def notebook_dir(self) -> Path:
        """Where each entry's notebook is written before it runs."""
        return self.work_dir / "notebooks"

    def prepare(self) -> None:
        """The kernelspec, the compilation cache and the cache database, before any run."""
        install_kernelspec(self.work_dir / "jupyter", self.host.kernel_env)
        if self.nb_config.execution_mode == "cache":
            self.recovered = open_cache_database(Path(self.nb_config.execution_cache_path))

    def start_server(self) -> WarmKernelServer | None:
        """The host's warm kernel server, started now if not yet (see :class:`KernelHost`)."""
        return self.host.start_server()

    def fingerprint(self) -> Fingerprint:
        """The run's fingerprint; the devices are probed only when examples run."""
        return self.host.fingerprint()

    def settings(self) -> RunSettings:
        """What running any entry of this session needs."""
        return RunSettings(
            fingerprint=self.fingerprint(),
            timeout=self.config.example_timeout(self.nb_config.execution_timeout),
            notebook_dir=self.notebook_dir,
            nb_config=self.nb_config,
            sources_store=self.work_dir / "sources.json",
            output_limit=self.config.output_limit,
            kernels=self.kernels,
            cache_writer=self.cache_writer,
        )

    def close(self) -> None:
        """Stop the kernels and the server (or keep it, if asked); wait for the runs' caching."""
        self.kernels.close()
        if self.cache_writer is not None:
            self.unkept = self.cache_writer.close()
        self.host.close()

    def __enter__(self) -> Self:
        self.prepare()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
