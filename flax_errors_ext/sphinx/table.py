"""The docutils the generated parts share: tables, inline text, status badges."""

from __future__ import annotations

from typing import TYPE_CHECKING

from docutils import nodes
from sphinx_design.badges_buttons import create_bdg_classes

from flax_errors_ext.model.site.texts import BADGES, inline_parts
from flax_errors_ext.sphinx.compat import BADGE_NODE

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


def joined(groups: Iterable[Sequence[nodes.Node]], separator: str) -> list[nodes.Node]:
    """The nodes of ``groups``, the text ``separator`` between each two."""
    found: list[nodes.Node] = []
    for group in groups:
        found += [nodes.Text(separator), *group] if found else group
    return found


def labelled(label: str, kind: str, *children: nodes.Node) -> nodes.paragraph:
    """A paragraph of class ``kind``: ``label`` in bold, then ``children``."""
    opening = (nodes.strong(label, label), nodes.Text(" "))
    return nodes.paragraph("", "", *opening, *children, classes=[kind])


def status_badge(status: str, text: str | None = None) -> nodes.inline:
    """The badge of an entry status, its meaning as the tooltip; ``text`` replaces its label."""
    shown = BADGES[status]
    label = shown.label if text is None else text
    node = BADGE_NODE(label, label, classes=create_bdg_classes(shown.colour, outline=False))
    node["tooltip"] = shown.meaning
    return node


def _row(cells: Sequence[Sequence[nodes.Node]]) -> nodes.row:
    row = nodes.row()
    for children in cells:
        entry = nodes.entry()
        entry += nodes.paragraph("", "", *children)
        row += entry
    return row
