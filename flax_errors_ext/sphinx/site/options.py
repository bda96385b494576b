"""The generated tables of the options page: the settings, and the warnings' subtypes."""

from __future__ import annotations

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

from flax_errors_ext.model.config import CatalogueConfig
from flax_errors_ext.model.warning_subtypes import WarningSubtype
from flax_errors_ext.sphinx.loggers import WARNING_TYPE
from flax_errors_ext.sphinx.table import inline_text, table


class OptionsDirective(SphinxDirective):
    """A table of every ``flax_errors_*`` setting, generated from the config dataclass."""

    def run(self) -> list[nodes.Node]:
        """The table, one row per setting."""
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


class WarningsDirective(SphinxDirective):
    """A table of every warning subtype, named as ``suppress_warnings`` takes it."""

    def run(self) -> list[nodes.Node]:
        """The table, one row per subtype in the enum's order."""
        rows: list[list[list[nodes.Node]]] = []
        for subtype in WarningSubtype:
            name = f"{WARNING_TYPE}.{subtype.value}"
            rows.append([[nodes.literal(name, name)], inline_text(subtype.description)])
        return [table(["flax-errors-warnings"], (30, 70), ("Warning", "Meaning"), rows)]
