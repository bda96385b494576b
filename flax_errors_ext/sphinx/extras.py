"""Where an extra (:mod:`flax_errors_ext.ext`) joins the build: the events the core emits.

* ``flax-errors-context-inited(app, context)``, on ``config-inited``, before moved pages are
  forwarded: read files into ``context.extras`` (by extension name), ``context.other_runs``.
* ``flax-errors-entry-extras(app, record, module_run)``: :class:`EntryExtras` or None
  (``module_run.extras`` keeps what is derived once for all the module's pages).
* ``flax-errors-module-extras(app, module_run)``, at a module's page's end: nodes or None.
* ``flax-errors-index-extras(app, to)``, after the index's areas (``to(location,
  *children)`` links to an entry): :class:`IndexPart` s or None.
* ``flax-errors-errors-document(app, document)``: add to ``errors.json``, in place.
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
    """The verification line as the extra words it; None leaves it to the core, or another."""
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
    """The link to it in the index's first line, to ``anchor`` in the first of ``parts``."""
    anchor: str
    parts: tuple[nodes.Node, ...]


def setup_extra(app: Sphinx, static: Path | None = None) -> dict[str, Any]:
    """Load the core and serve ``static``; the metadata the extra's ``setup()`` returns."""
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
    """Raise ConfigError for a setting whose extra is not loaded (it would do nothing)."""
    defaults = CatalogueConfig()
    for name, extension in EXTRA_SETTINGS.items():
        # Left as it is, or set to read nothing, a setting asks nothing of its extra.
        value = getattr(config, name)
        if value and value != getattr(defaults, name) and extension not in app.extensions:
            raise ConfigError(
                f"flax_errors_{name} is set, but only the extension {extension} reads it: "
                f"add {extension!r} to extensions in conf.py, or leave flax_errors_{name} out"
            )


def index_extras(app: Sphinx, to: Callable[..., nodes.reference]) -> list[IndexPart]:
    """What the loaded extras add to the error index, after its areas."""
    found = app.emit(INDEX_EXTRAS, to)
    return [part for parts in found for part in parts or () if isinstance(part, IndexPart)]
