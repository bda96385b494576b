"""The build context: what one build knows, made once and kept in one place.

:class:`BuildContext` is made on ``config-inited`` and completed on
``builder-inited`` (the run session), before any ``-j`` reader forks. Directives
and collectors have the environment, not the application, so the context lives
on the environment (as myst-nb's config does); until the environment exists, on
the application (:func:`hold`, :func:`settle`). It is pickled with the
environment, without its live session: the next build compares its fingerprint
with the one the last build pickled.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from flax_errors_ext.model.runs.tracebacks import import_roots

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

    from flax_errors_ext.execution.catalogue.module_runs import ModuleRun
    from flax_errors_ext.execution.catalogue.modules import DiscoveryError, ModulePages
    from flax_errors_ext.execution.runs.run import RunSettings
    from flax_errors_ext.execution.session import Session
    from flax_errors_ext.model.catalogue.discover import ErrorModule
    from flax_errors_ext.model.config import CatalogueConfig
    from flax_errors_ext.model.history.releases import History
    from flax_errors_ext.model.runs.entry_record import EntryRecord
    from flax_errors_ext.model.runs.fingerprint import Fingerprint
    from flax_errors_ext.model.warning_subtypes import WarningSubtype

WORK_DIR = "flax_errors"
"""The session's folder, beside the output folder (``_build/flax_errors``)."""

_ATTRIBUTE = "flax_errors_context"


@dataclasses.dataclass
class BuildContext:
    """What every step and every read of one build shares."""

    config: CatalogueConfig
    catalogue_folders: tuple[Path, ...]
    """Where catalogue files are looked for, first first."""
    histories: dict[str, History] = dataclasses.field(default_factory=dict)
    """The recorded histories, by the module each names, as the history extra read them."""
    extras: dict[str, Any] = dataclasses.field(default_factory=dict)
    """What each loaded extra read for the build, by its extension's name."""
    other_runs: list[EntryRecord] = dataclasses.field(default_factory=list)
    """The entries' records of runs elsewhere (other releases, stacks, devices): the
    pages their errors link to are forwarded, and where they were raised is matched."""
    project_dir: Path | None = None
    """The folder of ``conf.py``: where a group of message entries' examples import from."""
    deferred: list[tuple[str, WarningSubtype, str]] = dataclasses.field(default_factory=list)
    """Problems found before Sphinx can log warnings: ``(message, subtype, location)``."""
    session: Session | None = None
    """From ``builder-inited`` until ``build-finished``; never pickled."""
    published_roots: tuple[str, ...] = ()
    """:func:`published_roots` as the session opened, for readers that have no application."""
    reading: frozenset[str] = frozenset()
    """The documents this build reads (``env-before-read-docs``)."""
    changed: bool = True
    """Whether the run's fingerprint differs from the last build's: every page is read again."""
    modules: dict[str, ErrorModule | DiscoveryError] = dataclasses.field(default_factory=dict)
    """Each module as discovered, or why it could not be; never pickled."""
    module_runs: dict[str, ModuleRun] = dataclasses.field(default_factory=dict)
    """Each module's run in this build, once run; never pickled."""
    module_pages: dict[str, ModulePages] = dataclasses.field(default_factory=dict)
    """Each listed module's entry pages: kept for the next build."""
    _run: RunSettings | None = None

    @property
    def run(self) -> RunSettings:
        """What running an entry needs besides the entry (from ``builder-inited`` on)."""
        if self._run is None:
            raise LookupError("flax-errors: the run session is opened on builder-inited")
        return self._run

    def defer(self, message: str, subtype: WarningSubtype, location: str) -> None:
        """Note a problem to warn of on ``builder-inited``, once Sphinx can."""
        self.deferred.append((message, subtype, location))

    def take_deferred(self) -> list[tuple[str, WarningSubtype, str]]:
        """The problems noted so far, in order; each is handed out once."""
        taken, self.deferred = self.deferred, []
        return taken

    def start(self, session: Session, roots: tuple[str, ...], last: BuildContext | None) -> None:
        """Keep the opened session, its settings and the ``roots``; compare with ``last``."""
        settings = session.settings()
        self.session = session
        self._run = settings
        self.published_roots = roots
        self.changed = last is None or not last.ran_with(settings.fingerprint)

    def read_now(self, by_doc: Mapping[str, list[EntryRecord]]) -> list[str]:
        """The documents of ``by_doc`` (records by docname) whose entries this build read."""
        return [docname for docname in by_doc if docname in self.reading]

    def ran_with(self, fingerprint: Fingerprint) -> bool:
        """Whether this build's runs had ``fingerprint`` (never, before the session opened)."""
        return self._run is not None and self._run.fingerprint == fingerprint

    def close(self) -> None:
        """Close the session (its processes), if open."""
        if self.session is not None:
            self.session.close()

    def __getstate__(self) -> dict[str, Any]:
        """The pickled context, without the session (processes), modules (classes) or runs.

        The next build, and a ``-j`` reader's merge, need none of them.
        """
        return {**self.__dict__, "session": None, "modules": {}, "module_runs": {}}


def published_roots(app: Sphinx) -> tuple[str, ...]:
    """The folders that published text names files inside, now.

    The project's (``conf.py``'s folder) and those modules were imported from: never
    the build machine's folders above them. Asked again at the end of a build, where
    the modules the pages imported (an editable install's package) count too.
    """
    return (str(app.confdir), *import_roots())


def hold(app: Sphinx, context: BuildContext) -> None:
    """Keep ``context`` on the application until the environment is there."""
    setattr(app, _ATTRIBUTE, context)


def settle(app: Sphinx) -> tuple[BuildContext, BuildContext | None]:
    """Move the held context onto the environment; also the one the last build pickled."""
    context: BuildContext = getattr(app, _ATTRIBUTE)
    last = getattr(app.env, _ATTRIBUTE, None)
    delattr(app, _ATTRIBUTE)
    setattr(app.env, _ATTRIBUTE, context)
    return context, last if isinstance(last, BuildContext) else None


def build_context(env: BuildEnvironment) -> BuildContext:
    """This build's context, from ``builder-inited`` on."""
    found = getattr(env, _ATTRIBUTE, None)
    if not isinstance(found, BuildContext):
        raise LookupError("flax-errors: the environment has no build context yet")
    return found
