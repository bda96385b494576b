"""Where an extra joins the build: the events the core emits, and what they carry.

The core (discover, run, judge, render) knows no extra. An extra
(:mod:`flax_errors_ext.ext`) is an extension of its own, loaded where a project
lists it; it connects to these events, which the core emits at the points where an
extra adds to the build:

* ``flax-errors-context-inited(app, context)``: on ``config-inited``, once the
  build context is made and before the pages that moved are forwarded. An extra
  reads what its settings name, keeps it in ``context.extras`` under its
  extension's name, adds the texts other releases raised to
  ``context.raised_elsewhere`` (the pages they link to are forwarded), and defers
  what it could not read (:meth:`~.context.BuildContext.defer`).
* ``flax-errors-entry-extras(app, record, module_run)``: as an entry's section is
  rendered, from its :class:`~flax_errors_ext.model.runs.entry_record.EntryRecord` and
  its module's run in this build
  (:class:`~flax_errors_ext.execution.catalogue.module_runs.ModuleRun`, whose
  ``extras`` keeps what an extra derives from the run once for all its pages). An
  extra returns :class:`EntryExtras`, or None where it adds nothing.
* ``flax-errors-module-extras(app, module_run)``: at the end of a module's page. An
  extra returns its nodes, or None.
* ``flax-errors-index-extras(app, to)``: as the error index is written, after its
  areas. ``to(location, *children)`` is a reference to an
  :class:`~flax_errors_ext.layout.EntryLocation` from the page being written. An
  extra returns :class:`IndexPart` s, each linked from the index's first line, or None.
* ``flax-errors-errors-document(app, document)``: before ``errors.json`` is
  written. An extra adds its part to the document, in place.

A setting that only an extra reads (:data:`EXTRA_SETTINGS`) is refused where that
extra is not loaded: set, it would otherwise change nothing, silently.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from sphinx.errors import ConfigError

from flax_errors_ext.model.config import CatalogueConfig
from flax_errors_ext.version import __version__

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from docutils import nodes
    from sphinx.application import Sphinx
    from sphinx.config import Config
    from sphinx.environment import BuildEnvironment

    from flax_errors_ext.execution.catalogue.module_runs import ModuleRun
    from flax_errors_ext.model.runs.entry_record import EntryRecord
    from flax_errors_ext.sphinx.context import BuildContext

CONTEXT_INITED = "flax-errors-context-inited"
ENTRY_EXTRAS = "flax-errors-entry-extras"
MODULE_EXTRAS = "flax-errors-module-extras"
INDEX_EXTRAS = "flax-errors-index-extras"
ERRORS_DOCUMENT = "flax-errors-errors-document"
EVENTS = (CONTEXT_INITED, ENTRY_EXTRAS, MODULE_EXTRAS, INDEX_EXTRAS, ERRORS_DOCUMENT)

EXTRA_SETTINGS = {
    "history": "flax_errors_ext.ext.history",
    "device_runs": "flax_errors_ext.ext.other_runs",
}
"""The settings (``flax_errors_<name>``) that only an extra reads, and that extra."""


@dataclasses.dataclass(frozen=True)
class EntryExtras:
    """What one extra adds to an entry's section."""

    verified: str | None = None
    """The verification line as the extra words it ("Verified on CPU and on GPU");
    None leaves it to the core, or to another extra."""
    parts: tuple[nodes.Node, ...] = ()
    """Shown below the entry's examples, in the order the extras were loaded."""

    @classmethod
    def joined(cls, found: list[Any]) -> EntryExtras:
        """What every extra added: the first wording of the line, every extra's nodes."""
        added = [extra for extra in found if isinstance(extra, EntryExtras)]
        return cls(
            next((extra.verified for extra in added if extra.verified is not None), None),
            tuple(node for extra in added for node in extra.parts),
        )


@dataclasses.dataclass(frozen=True)
class IndexPart:
    """What one extra adds to the error index, after its areas."""

    title: str
    """The link to it in the index's first line."""
    anchor: str
    parts: tuple[nodes.Node, ...]
    """Its nodes, the first of which holds ``anchor``."""


def setup_events(app: Sphinx) -> None:
    """Declare the events an extra connects to."""
    for event in EVENTS:
        app.add_event(event)


def setup_extra(app: Sphinx, static: Path | None = None) -> dict[str, Any]:
    """What every extra's ``setup()`` starts with: the core loaded, its own static folder.

    Returns the extension's metadata, which an extra's ``setup()`` returns.
    """
    app.setup_extension("flax_errors_ext")
    if static is not None:
        add_static_folder(app, static)
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True}


def add_static_folder(app: Sphinx, folder: Path) -> None:
    """Serve the files of ``folder`` with the site's static files."""

    def added(app: Sphinx, config: Config) -> None:
        config.html_static_path = [*config.html_static_path, str(folder)]

    app.connect("config-inited", added)


def require_loaded_extras(app: Sphinx, config: CatalogueConfig) -> None:
    """Refuse a setting an extra reads where the project does not load that extra.

    Raises:
        ConfigError: naming the setting and the extension to add to ``extensions``.
    """
    defaults = CatalogueConfig()
    for name, extension in EXTRA_SETTINGS.items():
        # Left as it is, or set to read nothing, a setting asks nothing of its extra.
        value = getattr(config, name)
        if value and value != getattr(defaults, name) and extension not in app.extensions:
            raise ConfigError(
                f"flax_errors_{name} is set, but only the extension {extension} reads it: "
                f"add {extension!r} to extensions in conf.py, or leave flax_errors_{name} out"
            )


def read_extras(app: Sphinx, context: BuildContext) -> None:
    """Let every loaded extra read what its settings name into ``context``."""
    app.emit(CONTEXT_INITED, context)


def entry_extras(env: BuildEnvironment, record: EntryRecord, module_run: ModuleRun) -> EntryExtras:
    """What the loaded extras add to the section of the entry ``record`` is of.

    From the environment, which a directive has (its ``app`` is deprecated).
    """
    return EntryExtras.joined(env.events.emit(ENTRY_EXTRAS, record, module_run))


def module_extras(env: BuildEnvironment, module_run: ModuleRun) -> list[nodes.Node]:
    """What the loaded extras add at the end of the page of ``module_run``'s module."""
    return [node for found in env.events.emit(MODULE_EXTRAS, module_run) for node in found or ()]


def index_extras(app: Sphinx, to: Callable[..., nodes.reference]) -> list[IndexPart]:
    """What the loaded extras add to the error index, after its areas."""
    found = app.emit(INDEX_EXTRAS, to)
    return [part for parts in found for part in parts or () if isinstance(part, IndexPart)]


def complete_document(app: Sphinx, document: dict[str, Any]) -> None:
    """Let every loaded extra add its part to ``errors.json``."""
    app.emit(ERRORS_DOCUMENT, document)
