"""What the fork server does once, before it forks: the imports every kernel needs.

The server imports ipykernel, jax and flax (:data:`PRELOAD`) and the modules every
kernel would import lazily (:data:`WARM_UP`), without starting a JAX backend, and
does JAX's search for plugins where it finds none. It notes what a later build
must compare to know whether the server is still fresh: the import-time
environment (:class:`ImportEnvironment`), the files imported and the folders
packages are installed into.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.metadata
import importlib.util
import os
import pkgutil
import site
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from types import ModuleType

PRELOAD = (
    "ipykernel.kernelapp",
    "ipykernel.ipkernel",
    "ipykernel.zmqshell",
    "ipykernel.debugger",
    "IPython",
    "numpy",
    "jax",
    "jax.numpy",
    "flax",
    "flax.linen",
)
# Imported lazily by every kernel (JAX's first lowering, the kernel's own start-up),
# so importing them once here spares each kernel that work. Not required: a JAX
# or IPython without one of them still gets a working server. Only modules that
# are the same whenever imported: not doctest (nor what imports it), whose
# debugger subclasses pdb's class as found at import, which IPython's start-up
# replaces (every example then crashed on a missing ``set_theme_name``).
WARM_UP = (
    "jaxlib.mlir.dialects.mhlo",
    "jaxlib.mlir.dialects.builtin",
    "IPython.core.completerlib",
    "IPython.core.debugger",
    "IPython.core.logger",
    "IPython.core.oinspect",
    "IPython.utils.wildcard",
    "IPython.extensions.storemagic",
    "readline",
    "unittest",  # doctest's own imports, all but doctest itself (see above)
    "difflib",
    "concurrent.futures.thread",
    "runpy",
    "argcomplete",
    "traitlets.config.argcomplete_config",
    "sqlite3",
    "tornado.platform.asyncio",
)
# Environment variables read when these modules are imported: a kernel that needs
# other values than the server had must import afresh.
_IMPORT_TIME_PREFIXES = (
    "JAX_",
    "XLA_",
    "TF_",
    "CUDA",
    "NVIDIA_",
    "TPU_",
    "FLAX_",
    "PYTHON",
    "PJRT_",  # JAX's plugins named by path: looked for once, here (_look_for_jax_plugins)
)


def _import_time_env(env: dict[str, str]) -> dict[str, str]:
    return {
        k: v
        for k, v in env.items()
        if k.startswith(_IMPORT_TIME_PREFIXES) and not k.startswith("FLAX_ERRORS_")
    }


class ImportEnvironment:
    """The import-time environment the server's imports saw, to compare a build's with.

    Importing jax sets a few such variables itself (``TF_CPP_MIN_LOG_LEVEL``, ...):
    they are its doing, not the build's choice, so they are left out on both sides;
    otherwise a build that had itself imported jax, or one that had not, would
    never be served.
    """

    def __init__(self, before: dict[str, str], after: dict[str, str]) -> None:
        self._set_by_import = {
            k for k in before.keys() | after.keys() if before.get(k) != after.get(k)
        }
        self._seen = self._chosen(before)

    def _chosen(self, env: dict[str, str]) -> dict[str, str]:
        return {k: v for k, v in _import_time_env(env).items() if k not in self._set_by_import}

    def matches(self, env: dict[str, str]) -> bool:
        """Whether imports under ``env`` would have seen what the server's saw."""
        return self._chosen(env) == self._seen


def preload() -> dict[str, int]:
    """Import what every kernel needs, and make sure that this left no backend running.

    Returns:
        Every file imported (noted once here for the kernels to report as their
        dependencies, see
        :func:`~flax_errors_ext.execution.runs.kernel_environment.note_environment`)
        and every folder packages are installed into, with its modification time:
        what a later build's freshness check compares.

    Raises:
        SystemExit: if a JAX backend started on import: its threads would not
            survive a fork. A server that exits makes every launcher start an
            ordinary kernel instead.
    """
    for name in PRELOAD:
        importlib.import_module(name)
    for name in WARM_UP:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    from jax._src import xla_bridge

    if xla_bridge.backends_are_initialized():
        raise SystemExit("flax-errors kernel server: a JAX backend started on import; not serving")
    _look_for_jax_plugins(xla_bridge)
    from flax_errors_ext.execution.runs.kernel_environment import note_environment

    imported = {path: mtime for path, _, mtime in note_environment().values()}
    return imported | _package_folders()


def _look_for_jax_plugins(xla_bridge: ModuleType) -> None:
    """Do JAX's search for PJRT plugins once, here, where it finds none.

    JAX searches when a backend first starts, in every kernel: it reads the entry
    points of every installed distribution, work every kernel would repeat. Where
    the search finds nothing, its outcome (no plugin) is the same in every kernel,
    so the server does it for them all. Where it would find a plugin, each kernel
    still searches for itself: registering a plugin loads its library, whose
    start-up need not survive a fork. A plugin installed later makes the server
    stale (:func:`_package_folders`), and a kernel that names plugins by
    environment variable is not served (``PJRT_`` is an import-time prefix).
    """
    search = getattr(xla_bridge, "_discover_and_register_pjrt_plugins", None)
    if search is None or os.environ.get("PJRT_NAMES_AND_LIBRARY_PATHS"):
        return  # a JAX that searches otherwise, or plugins named by path
    if importlib.metadata.entry_points(group="jax_plugins"):
        return
    namespace = importlib.util.find_spec("jax_plugins")  # imported or not
    if namespace is not None and any(
        pkgutil.iter_modules(namespace.submodule_search_locations or [])
    ):
        return
    search()


def _package_folders() -> dict[str, int]:
    """The folders packages are installed into, with their modification times.

    One changes when a distribution is installed into it or removed from it, which
    makes the server stale: a new JAX plugin, say, that its kernels would not see.
    """
    folders = {}
    for folder in {*site.getsitepackages(), site.getusersitepackages()} & set(sys.path):
        with contextlib.suppress(OSError):
            folders[folder] = os.stat(folder).st_mtime_ns
    return folders
