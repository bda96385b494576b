"""The extension's warnings: one type, ``flax-errors``, a named subtype, always a location.

A project can silence a subtype with ``suppress_warnings = ["flax-errors.<subtype>"]``.
"""

from __future__ import annotations

from typing import Any

from sphinx.util import logging

LOGGER = logging.getLogger("flax_errors_ext")
WARNING_TYPE = "flax-errors"


def warn(message: str, subtype: str, location: Any) -> None:
    """Log a ``flax-errors.<subtype>`` warning at ``location`` (``file:line`` or a node)."""
    LOGGER.warning(message, type=WARNING_TYPE, subtype=subtype, location=location)
