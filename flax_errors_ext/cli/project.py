"""The project a command works on: its ``conf.py`` read into the site's own config.

The ``flax_errors_*`` values go into the same
:class:`~flax_errors_ext.model.config.CatalogueConfig` the Sphinx extension
validates, so that a command checks what the site checks.
"""

from __future__ import annotations

import contextlib
import dataclasses
import runpy
from pathlib import Path
from typing import Any

from flax_errors_ext.model.catalogue.discover import catalogue_folders
from flax_errors_ext.model.config import PREFIX, CatalogueConfig

CONF_PLACES = ("conf.py", "docs/conf.py")
"""Where a project's Sphinx configuration is looked for, in order."""
DEFAULT_MODULES = (
    "flax_errors_ext.errors",
    "flax.errors",
    "jax.errors",
    "flax.messages",
    "jax.messages",
)
"""What is catalogued when no ``conf.py`` is found: this package's errors, Flax's and JAX's,
and the errors Flax and JAX raise as builtin exceptions (their message entries)."""
NOTEBOOK_TIMEOUT = "nb_execution_timeout"
"""myst-nb's limit on a cell, which an example's follows where flax_errors_timeout is unset."""


class UsageError(Exception):
    """The command cannot run as asked (exit status 2); the message says why."""


@dataclasses.dataclass(frozen=True)
class Project:
    """A project's catalogue settings, and the ``conf.py`` they came from (if any)."""

    config: CatalogueConfig
    conf: Path | None
    notebook_timeout: int | None = None
    """``nb_execution_timeout`` as ``conf.py`` sets it."""

    @property
    def catalogue_folders(self) -> tuple[Path, ...]:
        """The project's catalogue folders, then the shipped one."""
        return catalogue_folders([(self.folder / d).resolve() for d in self.config.catalogue_dirs])

    @property
    def folder(self) -> Path:
        """What the project's settings name files relative to: ``conf.py``'s folder."""
        return self.conf.parent if self.conf is not None else Path.cwd()

    def described(self) -> str:
        """Where the settings come from, for messages."""
        return str(self.conf) if self.conf is not None else "defaults (no conf.py found)"


def find_conf(explicit: Path | None) -> Path | None:
    """``explicit`` (UsageError if it is no file), else the first of :data:`CONF_PLACES`."""
    if explicit is not None:
        if not explicit.is_file():
            raise UsageError(f"--conf {explicit}: no such file")
        return explicit.resolve()
    return next((Path(p).resolve() for p in CONF_PLACES if Path(p).is_file()), None)


def load_project(conf: Path | None, overrides: dict[str, Any]) -> Project:
    """The project's config from ``conf`` (defaults without one), then ``overrides``.

    ``overrides``: config fields (without the ``flax_errors_`` prefix) set by flags;
    None values are left out. A ``conf.py`` that fails to run, or an invalid value,
    is a UsageError.
    """
    values: dict[str, Any] = {PREFIX + "modules": list(DEFAULT_MODULES)}
    notebook_timeout = None
    if conf is not None:
        found = _run_conf(conf)
        values = {k: v for k, v in found.items() if k.startswith(PREFIX)}
        notebook_timeout = found.get(NOTEBOOK_TIMEOUT)
        if notebook_timeout is not None and (
            not isinstance(notebook_timeout, int) or isinstance(notebook_timeout, bool)
        ):
            raise UsageError(
                f"{conf}: {NOTEBOOK_TIMEOUT} must be a whole number of seconds; "
                f"got {notebook_timeout!r}"
            )
    values.update({PREFIX + name: v for name, v in overrides.items() if v is not None})
    try:
        config = CatalogueConfig.from_values(values)
    except ValueError as error:
        raise UsageError(f"{conf or 'command line'}: {error}") from None
    return Project(config, conf, notebook_timeout)


def _run_conf(conf: Path) -> dict[str, Any]:
    """Run ``conf.py`` as Sphinx does: from its own folder, with ``__file__`` set."""
    with contextlib.chdir(conf.parent):
        try:
            return runpy.run_path(str(conf), run_name="__sphinx_conf__")
        except BaseException as error:  # a conf.py may sys.exit(); never let it end us
            if isinstance(error, KeyboardInterrupt):
                raise
            raise UsageError(f"{conf} failed to run: {type(error).__name__}: {error}") from None
