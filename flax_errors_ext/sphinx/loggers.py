"""The extension's warnings: one type, ``flax-errors``, a subtype to suppress, a location."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from sphinx.util import logging

from flax_errors_ext.sphinx.compat import SHOWS_WARNING_TYPES

if TYPE_CHECKING:
    from docutils import nodes
    from sphinx.application import Sphinx

    from flax_errors_ext.model.warning_subtypes import WarningSubtype

LOGGER = logging.getLogger("flax_errors_ext")
WARNING_TYPE = "flax-errors"


def warn(message: str, subtype: WarningSubtype, location: str | nodes.Node) -> None:
    """Log a ``flax-errors.<subtype>`` warning at ``file:line`` or a node (a path: a docname)."""
    if not SHOWS_WARNING_TYPES:
        message += f" [{WARNING_TYPE}.{subtype.value}]"
    LOGGER.warning(message, type=WARNING_TYPE, subtype=subtype.value, location=location)


def conf_location(app: Sphinx, setting: str) -> str:
    """The full path ``conf.py:N`` of ``setting`` (N=1 if unset): a bare name reads as docname."""
    path = Path(app.confdir, "conf.py")
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        lines = []
    assignment = re.compile(rf"\s*{re.escape(setting)}\s*(?::[^=]*)?=")
    line = next((n for n, text in enumerate(lines, 1) if assignment.match(text)), 1)
    return f"{path}:{line}"
