"""Status badges, drawn by sphinx-design's own badge node and classes."""

from __future__ import annotations

from sphinx_design.badges_buttons import create_bdg_classes, sd_badge

from flax_errors_ext.model.site import badge


def status_badge(status: str, text: str | None = None) -> sd_badge:
    """The badge of an entry status, its meaning as the tooltip; ``text`` replaces its label."""
    shown = badge(status)
    label = shown.label if text is None else text
    node = sd_badge(label, label, classes=create_bdg_classes(shown.colour, outline=False))
    node["tooltip"] = shown.meaning
    return node
