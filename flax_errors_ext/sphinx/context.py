"""The build context (kept on the environment, as myst-nb's config), and what it keeps per page."""

from __future__ import annotations

import dataclasses
import functools
from typing import TYPE_CHECKING, Any, TypeVar, cast

from docutils import nodes
from sphinx.environment.collectors import EnvironmentCollector

from flax_errors_ext.model.runs.tracebacks import import_roots
from flax_errors_ext.model.site.texts import SiteData

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence, Set
    from pathlib import Path

    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

    from flax_errors_ext.execution.catalogue.module_runs import ModuleRun
    from flax_errors_ext.execution.catalogue.modules import DiscoveryError, ModulePages
    from flax_errors_ext.execution.runs.run import RunSettings
    from flax_errors_ext.execution.session import Session
    from flax_errors_ext.model.catalogue.discover import ErrorModule
    from flax_errors_ext.model.catalogue.module_data import ModuleData
    from flax_errors_ext.model.config import CatalogueConfig
    from flax_errors_ext.model.history.releases import History
    from flax_errors_ext.model.runs.entry_record import EntryRecord
    from flax_errors_ext.model.runs.fingerprint import Fingerprint, LoadedFile
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
    """The entries' records of runs elsewhere: the pages their errors link to are forwarded."""
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
        """The pickled context, without the session (processes), modules (classes) or runs."""
        return {**self.__dict__, "session": None, "modules": {}, "module_runs": {}}


def published_roots(app: Sphinx) -> tuple[str, ...]:
    """The folders published text names files inside: the project's, and the import roots now."""
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
    if not isinstance(found := getattr(env, _ATTRIBUTE, None), BuildContext):
        raise LookupError("flax-errors: the environment has no build context yet")
    return found


T = TypeVar("T")
PER_DOC = {"records", "loaded", "folders", "module_data"}
"""What the collector keeps of each document, by docname (an extra may add its own)."""


class error_record(nodes.General, nodes.Element):
    """Carries an entry's record from the directive to the collector."""


class catalogue_index(nodes.General, nodes.Element):
    """Where the error index goes, once every record is known."""


class catalogue_figures(nodes.General, nodes.Element):
    """Where the landing page's figures go."""


class see_also_placeholder(nodes.General, nodes.Element):
    """Where an entry's links to related errors go."""


NODES = (error_record, catalogue_index, catalogue_figures, see_also_placeholder)


def kept(env: BuildEnvironment, name: str, empty: Callable[[], T]) -> T:
    """What the environment keeps under ``flax_errors_<name>``, made ``empty()`` at first."""
    return cast("T", vars(env).setdefault(f"flax_errors_{name}", empty()))


class CatalogueCollector(EnvironmentCollector):
    """Keeps each document's records, loaded files, folders, modules' data; notes live docs."""

    @staticmethod
    def records(env: BuildEnvironment) -> dict[str, list[EntryRecord]]:
        """Records by docname."""
        return kept(env, "records", dict)

    @staticmethod
    def live_docs(env: BuildEnvironment) -> set[str]:
        """The docnames holding an index or figures."""
        return kept(env, "live_docs", set)

    @staticmethod
    def loaded(env: BuildEnvironment) -> dict[str, frozenset[LoadedFile]]:
        """By docname, every file the runs of its entries loaded (cached runs too)."""
        return kept(env, "loaded", dict)

    @staticmethod
    def folders(env: BuildEnvironment) -> dict[str, dict[str, int]]:
        """By docname, the folders its entries are read from, each with its ``st_mtime_ns``.

        Sphinx takes a folder noted as a dependency for a missing file, and reads the
        page again in every build: ``env-get-outdated`` compares these instead.
        """
        return kept(env, "folders", dict)

    @staticmethod
    def module_data(env: BuildEnvironment) -> dict[str, dict[str, ModuleData]]:
        """By docname, the data of each module whose entries it shows, by module name."""
        return kept(env, "module_data", dict)

    @classmethod
    def site_data(cls, env: BuildEnvironment) -> SiteData:
        """The data of every module whose entries the site shows: its areas, related errors."""
        return SiteData(
            {m: d for found in cls.module_data(env).values() for m, d in found.items()}
        )

    @classmethod
    def by_qualname(cls, env: BuildEnvironment) -> dict[str, tuple[str, EntryRecord]]:
        """Each entry's docname and record, by full dotted name."""
        return {r.qualname: (doc, r) for doc, found in cls.records(env).items() for r in found}

    def clear_doc(self, app: Sphinx, env: BuildEnvironment, docname: str) -> None:
        """Forget a document before it is read again."""
        for name in PER_DOC:
            kept(env, name, dict[str, object]).pop(docname, None)
        self.live_docs(env).discard(docname)

    def merge_other(
        self, app: Sphinx, env: BuildEnvironment, docnames: Set[str], other: BuildEnvironment
    ) -> None:
        """Take what a parallel reader found."""
        for name in PER_DOC:
            theirs = kept(other, name, dict[str, object])
            kept(env, name, dict[str, object]).update(
                (d, theirs[d]) for d in docnames if d in theirs
            )
        self.live_docs(env).update(self.live_docs(other) & set(docnames))

    def process_doc(self, app: Sphinx, doctree: nodes.document) -> None:
        """File the records the directive left (dropping their nodes); note figures."""
        found = []
        lists: list[tuple[LoadedFile, ...]] = []
        for node in list(doctree.findall(error_record)):
            found.append(node["record"])
            lists.append(node["loaded"])
            node.parent.remove(node)
        if found:
            self.records(app.env)[app.env.docname] = found
            self.loaded(app.env)[app.env.docname] = joined_files(lists)
        if any(doctree.findall(catalogue_index)) or any(doctree.findall(catalogue_figures)):
            self.live_docs(app.env).add(app.env.docname)


def joined_files(lists: Sequence[tuple[LoadedFile, ...]]) -> frozenset[LoadedFile]:
    """The files of ``lists`` as one set, the same object for equal sets: pickled, checked once."""
    return _shared(frozenset().union(*lists))


@functools.lru_cache(maxsize=64)
def _shared(files: frozenset[LoadedFile]) -> frozenset[LoadedFile]:
    return files  # the first equal set: a cache hit hands that one out
