"""What the environment keeps of each document, between builds and from ``-j`` readers.

The nodes carry a directive's records to the collectors; the collectors file each
document's entry records and note the documents that show figures of the whole
catalogue, and merge both back from parallel readers. What the whole build shares
is its context (:mod:`flax_errors_ext.sphinx.context`).
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
    from flax_errors_ext.model.runs.loaded_files import LoadedFile


T = TypeVar("T")


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


def read_now(env: BuildEnvironment) -> set[str]:
    """The documents whose entries were read in this build."""
    return kept(env, "read_now", set)


class CatalogueCollector(EnvironmentCollector):
    """Keeps each document's entry records, the files its runs loaded, the folders it read."""

    @staticmethod
    def records(env: BuildEnvironment) -> dict[str, list[EntryRecord]]:
        """Records by docname, created on first use."""
        return kept(env, "records", dict)

    @staticmethod
    def loaded(env: BuildEnvironment) -> dict[str, frozenset[LoadedFile]]:
        """By docname, every file the runs of its entries loaded (cached runs too)."""
        return kept(env, "loaded", dict)

    @staticmethod
    def folders(env: BuildEnvironment) -> dict[str, dict[str, int]]:
        """By docname, the folders its entries are read from, each with its ``st_mtime_ns``.

        A group of message entries is a folder of catalogue files: a file added to it
        or removed from it adds or drops an entry. Sphinx cannot be told of it, since
        it takes a folder noted as a dependency for a missing file and reads the page
        again in every build; ``env-get-outdated`` compares these instead.
        """
        return kept(env, "folders", dict)

    @classmethod
    def by_qualname(cls, env: BuildEnvironment) -> dict[str, tuple[str, EntryRecord]]:
        """Each entry's docname and record, by full dotted name."""
        return {r.qualname: (doc, r) for doc, found in cls.records(env).items() for r in found}

    def clear_doc(self, app: Sphinx, env: BuildEnvironment, docname: str) -> None:
        """Forget a document's records before it is read again."""
        self.records(env).pop(docname, None)
        self.loaded(env).pop(docname, None)
        self.folders(env).pop(docname, None)

    def merge_other(
        self, app: Sphinx, env: BuildEnvironment, docnames: Set[str], other: BuildEnvironment
    ) -> None:
        """Take the records of documents a parallel reader read."""
        theirs, their_files = self.records(other), self.loaded(other)
        for docname in docnames:
            if docname in theirs:
                self.records(env)[docname] = theirs[docname]
                read_now(env).add(docname)
            if docname in their_files:
                self.loaded(env)[docname] = their_files[docname]
            if docname in self.folders(other):
                self.folders(env)[docname] = self.folders(other)[docname]

    def process_doc(self, app: Sphinx, doctree: nodes.document) -> None:
        """File the records the directive left in the doctree, and drop the nodes."""
        found = []
        lists: list[tuple[LoadedFile, ...]] = []
        for node in list(doctree.findall(error_record)):
            found.append(node["record"])
            lists.append(node["loaded"])
            node.parent.remove(node)
        if found:
            self.records(app.env)[app.env.docname] = found
            self.loaded(app.env)[app.env.docname] = joined_files(lists)
            read_now(app.env).add(app.env.docname)


_Joined = tuple[tuple[tuple["LoadedFile", ...], ...], frozenset["LoadedFile"]]
_joined_lists: dict[tuple[int, ...], _Joined] = {}
"""Recent combinations of loaded-file lists, joined, by the lists' identities."""
_JOINED_KEPT = 64


def joined_files(lists: Sequence[tuple[LoadedFile, ...]]) -> frozenset[LoadedFile]:
    """The files of ``lists`` as one set, the same set for every page that got the same lists.

    The runs of a build mostly share one list of a thousand files or more (see
    :func:`~flax_errors_ext.model.runs.outcomes.unpack_loaded`): joined once, it
    is hashed once rather than per page, and the pickled environment holds it once.
    The lists are kept beside their identities, so that a new list at a reused
    address is never taken for an old one.
    """
    key = tuple(id(files) for files in lists)
    known = _joined_lists.get(key)
    if known is None or any(a is not b for a, b in zip(known[0], lists, strict=True)):
        if len(_joined_lists) >= _JOINED_KEPT:
            _joined_lists.clear()
        known = (tuple(lists), frozenset().union(*lists))
        _joined_lists[key] = known
    return known[1]


class LiveDocsCollector(EnvironmentCollector):
    """Remembers which documents show figures of the whole catalogue."""

    @staticmethod
    def live_docs(env: BuildEnvironment) -> set[str]:
        """The docnames holding an index or figures, created on first use."""
        return kept(env, "live_docs", set)

    def clear_doc(self, app: Sphinx, env: BuildEnvironment, docname: str) -> None:
        """Forget a document before it is read again."""
        self.live_docs(env).discard(docname)

    def merge_other(
        self, app: Sphinx, env: BuildEnvironment, docnames: Set[str], other: BuildEnvironment
    ) -> None:
        """Take what a parallel reader found."""
        self.live_docs(env).update(self.live_docs(other) & set(docnames))

    def process_doc(self, app: Sphinx, doctree: nodes.document) -> None:
        """Note the document if it holds an index or figures."""
        if any(doctree.findall(catalogue_index)) or any(doctree.findall(catalogue_figures)):
            self.live_docs(app.env).add(app.env.docname)
