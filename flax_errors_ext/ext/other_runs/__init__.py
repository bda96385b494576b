"""Other stacks' and devices' runs (``flax_errors_device_runs``) compared with this build's."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sphinx.application import Sphinx


def setup(app: Sphinx) -> dict[str, Any]:
    """Load the core, and join its build: the runs read, shown beside entries, in errors.json."""
    from flax_errors_ext.ext.other_runs.sphinx import beside_entries
    from flax_errors_ext.sphinx import extras

    metadata = extras.setup_extra(app)
    app.connect(extras.CONTEXT_INITED, beside_entries.read_runs)
    app.connect(extras.ENTRY_EXTRAS, beside_entries.entry_extras)
    app.connect(extras.ERRORS_DOCUMENT, beside_entries.add_to_document)
    return metadata
