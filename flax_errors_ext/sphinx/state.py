"""What the environment keeps of each document, between builds and from ``-j`` readers.

The nodes carry a directive's records to the collector, which files each
document's entry records, notes the documents that show figures of the whole
catalogue, and merges both back from parallel readers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from docutils import nodes
from sphinx.environment.collectors import EnvironmentCollector

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence, Set

    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

    from flax_errors_ext.model.runs.entry_record import EntryRecord
    from flax_errors_ext.model.runs.fingerprint import LoadedFile


T = TypeVar("T")
_PER_DOC = ("records", "loaded", "folders")
"""What the collector keeps of each document, by docname."""


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
    attribute = f"flax_errors_{name}"
    if not hasattr(env, attribute):
        setattr(env, attribute, empty())
    value: T = getattr(env, attribute)
    return value


class CatalogueCollector(EnvironmentCollector):
    """Keeps each document's entry records, the files its runs loaded, the folders it read.

    And which documents show figures of the whole catalogue (an index or figures).
    """

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

        A file added to a group of message entries' folder adds an entry. Sphinx takes
        a folder noted as a dependency for a missing file, and reads the page again in
        every build: ``env-get-outdated`` compares these instead.
        """
        return kept(env, "folders", dict)

    @classmethod
    def by_qualname(cls, env: BuildEnvironment) -> dict[str, tuple[str, EntryRecord]]:
        """Each entry's docname and record, by full dotted name."""
        return {r.qualname: (doc, r) for doc, found in cls.records(env).items() for r in found}

    def clear_doc(self, app: Sphinx, env: BuildEnvironment, docname: str) -> None:
        """Forget a document before it is read again."""
        for name in _PER_DOC:
            kept(env, name, dict[str, object]).pop(docname, None)
        self.live_docs(env).discard(docname)

    def merge_other(
        self, app: Sphinx, env: BuildEnvironment, docnames: Set[str], other: BuildEnvironment
    ) -> None:
        """Take what a parallel reader found."""
        for name in _PER_DOC:
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


_joined: dict[frozenset[LoadedFile], frozenset[LoadedFile]] = {}
"""Recent sets of loaded files, each kept as the one object every page shares."""
_JOINED_KEPT = 64


def joined_files(lists: Sequence[tuple[LoadedFile, ...]]) -> frozenset[LoadedFile]:
    """The files of ``lists`` as one set, the very same set for every page whose runs loaded them.

    The runs of a build mostly share one set of a thousand files or more: shared, it
    is pickled once with the environment, and ``env-get-outdated`` looks at it once.
    """
    joined = frozenset().union(*lists)
    if len(_joined) >= _JOINED_KEPT and joined not in _joined:
        _joined.clear()
    return _joined.setdefault(joined, joined)
