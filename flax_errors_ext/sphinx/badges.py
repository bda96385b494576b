"""Status badges, drawn by sphinx-design's own badge node and classes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sphinx_design.badges_buttons import create_bdg_classes

from flax_errors_ext.model.site.texts import BADGES
from flax_errors_ext.sphinx.compat import BADGE_NODE

if TYPE_CHECKING:
    from docutils import nodes


def status_badge(status: str, text: str | None = None) -> nodes.inline:
    """The badge of an entry status, its meaning as the tooltip; ``text`` replaces its label."""
    shown = BADGES[status]
    label = shown.label if text is None else text
    node = BADGE_NODE(label, label, classes=create_bdg_classes(shown.colour, outline=False))
    node["tooltip"] = shown.meaning
    return node
