"""One docutils table builder for the generated tables (the error index, the options)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from docutils import nodes

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence


def table(
    classes: list[str],
    widths: Sequence[int],
    header: Sequence[str],
    rows: Iterable[Sequence[Sequence[nodes.Node]]],
) -> nodes.table:
    """A table whose cells each hold one paragraph of the given inline nodes."""
    built = nodes.table(classes=classes)
    group = nodes.tgroup(cols=len(widths))
    built += group
    for width in widths:
        group += nodes.colspec(colwidth=width)
    head = nodes.thead()
    group += head
    head += _row([[nodes.Text(text)] for text in header])
    body = nodes.tbody()
    group += body
    for cells in rows:
        body += _row(cells)
    return built


def _row(cells: Sequence[Sequence[nodes.Node]]) -> nodes.row:
    row = nodes.row()
    for children in cells:
        entry = nodes.entry()
        entry += nodes.paragraph("", "", *children)
        row += entry
    return row
