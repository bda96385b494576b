"""``.. flax-errors-options::``: the table of settings, generated from the config dataclass."""

from __future__ import annotations

from typing import Any, ClassVar

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

from flax_errors_ext.core.config import CatalogueConfig


class OptionsDirective(SphinxDirective):
    """A table of every ``flax_errors_*`` setting, generated from the config dataclass."""

    has_content = False
    option_spec: ClassVar[dict[str, Any]] = {}

    def run(self) -> list[nodes.Node]:
        """Build the table."""
        rows = [
            (name, repr(default), help_text)
            for name, default, help_text in CatalogueConfig.options()
        ]
        table = nodes.table(classes=["flax-errors-options"])
        group = nodes.tgroup(cols=3)
        table += group
        for width in (30, 15, 55):
            group += nodes.colspec(colwidth=width)
        head = nodes.thead()
        group += head
        head += table_row(("Setting", "Default", "Meaning"))
        body = nodes.tbody()
        group += body
        for row in rows:
            body += table_row(row, literal_columns=(0, 1))
        return [table]


def table_row(cells: tuple[str, ...], literal_columns: tuple[int, ...] = ()) -> nodes.row:
    """A table row of plain text cells; the given columns as inline code."""
    row = nodes.row()
    for index, text in enumerate(cells):
        entry = nodes.entry()
        inline: nodes.Node = (
            nodes.literal(text, text) if index in literal_columns else nodes.Text(text)
        )
        entry += nodes.paragraph("", "", inline)
        row += entry
    return row
