"""Where the Sphinx releases supported (6.2.1 to 9.x) differ, and the warnings, worded alike.

Each shim says which versions need it: once pyproject.toml's lower bounds pass those, it goes.
"""

from __future__ import annotations

import io
import posixpath
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sphinx
from docutils import nodes
from sphinx.util import logging

from flax_errors_ext.sphinx.context import WORK_DIR

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config

    from flax_errors_ext.model.warning_subtypes import WarningSubtype

LOGGER = logging.getLogger("flax_errors_ext")
WARNING_TYPE = "flax-errors"

# Sphinx < 7.3 never ends a warning with its [type.subtype], the name to suppress it
# by (later ones do, by show_warning_types): the extension's warnings then name it.
SHOWS_WARNING_TYPES = sphinx.version_info >= (7, 3)


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


# Sphinx < 7.2 knows autodoc's option by its old name only; later ones take both.
NO_INDEX = "no-index" if sphinx.version_info >= (7, 2) else "noindex"


class tooltip_badge(nodes.inline, nodes.General):
    """A badge whose ``tooltip`` is its ``title`` (sphinx-design < 0.8); always defined."""


def _visit_tooltip_badge(translator: Any, node: tooltip_badge) -> None:
    title = {"title": node["tooltip"]} if node.get("tooltip") else {}
    translator.body.append(translator.starttag(node, "span", "", **title))


def _depart_tooltip_badge(translator: Any, node: tooltip_badge) -> None:
    translator.body.append("</span>")


BADGE_NODE: type[nodes.inline]
try:
    from sphinx_design.badges_buttons import sd_badge as BADGE_NODE
except ImportError:  # sphinx-design < 0.8
    BADGE_NODE = tooltip_badge


REDIRECT_TEMPLATE = """\
<html><head><noscript><meta http-equiv="refresh" content="0; url=${to_uri}" /></noscript>\
<script>window.location.replace("${to_uri}" + window.location.hash);</script></head></html>
"""
"""A redirect page that keeps the URL's ``#anchor``, the part an error's URL needs."""


def read_inventory(data: bytes, base: str) -> list[tuple[str, str, str]]:
    """An ``objects.inv``'s ``(object type, name, URL)``s under ``base`` (Sphinx < 8.2: tuples)."""
    from sphinx.util.inventory import InventoryFile

    if hasattr(InventoryFile, "loads"):
        objects: Any = InventoryFile.loads(data, uri=base).data
    else:  # Sphinx < 8.2
        objects = InventoryFile.load(io.BytesIO(data), base, posixpath.join)
    return [
        (objtype, name, item.uri if hasattr(item, "uri") else item[2])
        for objtype, items in objects.items()
        for name, item in items.items()
    ]


def keep_redirect_anchors(app: Sphinx, config: Config) -> None:
    """Give sphinx-reredirects < 0.1.6 our template (theirs drops the ``#anchor``), unless set."""
    if "sphinx_reredirects" not in app.extensions:
        return
    import sphinx_reredirects  # type: ignore[import-untyped]

    default = getattr(sphinx_reredirects, "REDIRECT_FILE_DEFAULT_TEMPLATE", "location.hash")
    if "location.hash" in default or config.redirect_html_template_file:
        return
    path = Path(app.outdir).parent / WORK_DIR / "redirect.html"
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.is_file() or path.read_text(encoding="utf-8") != REDIRECT_TEMPLATE:
        path.write_text(REDIRECT_TEMPLATE, encoding="utf-8")
    # Read by sphinx-reredirects relative to the source folder: an absolute path stays.
    config.redirect_html_template_file = str(path)


def setup_compat(app: Sphinx) -> None:
    """Register the shims (those this Sphinx does not need do nothing)."""
    app.add_node(tooltip_badge, html=(_visit_tooltip_badge, _depart_tooltip_badge))
    app.connect("config-inited", keep_redirect_anchors)
