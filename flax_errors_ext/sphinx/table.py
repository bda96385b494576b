"""The docutils the generated parts share: a table (the error index, the options), inline text."""

from __future__ import annotations

from typing import TYPE_CHECKING

from docutils import nodes

from flax_errors_ext.model.site.texts import inline_parts

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


def inline_text(text: str) -> list[nodes.Node]:
    """A reST one-liner's text, with its inline literals as code and nothing else as markup."""
    return [
        nodes.literal(part, part) if code else nodes.Text(part)
        for part, code in inline_parts(text)
    ]


def _row(cells: Sequence[Sequence[nodes.Node]]) -> nodes.row:
    row = nodes.row()
    for children in cells:
        entry = nodes.entry()
        entry += nodes.paragraph("", "", *children)
        row += entry
    return row
