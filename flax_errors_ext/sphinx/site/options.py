"""``.. flax-errors-options::``: the table of settings, generated from the config dataclass."""

from __future__ import annotations

from typing import Any, ClassVar

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

from flax_errors_ext.model.config import CatalogueConfig
from flax_errors_ext.sphinx.table import table


class OptionsDirective(SphinxDirective):
    """A table of every ``flax_errors_*`` setting, generated from the config dataclass."""

    has_content = False
    option_spec: ClassVar[dict[str, Any]] = {}

    def run(self) -> list[nodes.Node]:
        """Build the table."""
        rows: list[list[list[nodes.Node]]] = [
            [
                [nodes.literal(name, name)],
                [nodes.literal(repr(default), repr(default))],
                [nodes.Text(help_text)],
            ]
            for name, default, help_text in CatalogueConfig.options()
        ]
        return [
            table(["flax-errors-options"], (30, 15, 55), ("Setting", "Default", "Meaning"), rows)
        ]
