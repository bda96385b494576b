"""Pages that the errors of past releases linked to and that have moved since.

Flax 0.4 and 0.5 printed ``.../en/latest/flax.errors.html#flax.errors.<Name>``;
later releases print ``.../en/latest/api_reference/flax.errors.html#...``. The
recorded history holds the text each release raised, URL included, so which old
page paths readers may arrive at is read from it, never listed by hand: each one
gets a page on this site that forwards to the module's page, anchor kept.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from flax_errors_ext.model.config import ModuleSpec
    from flax_errors_ext.model.history import History


def moved_pages(specs: Iterable[ModuleSpec], histories: Mapping[str, History]) -> dict[str, str]:
    """``{old docname: docname now}`` for the pages past releases' errors linked to.

    Only links into the module's ``upstream`` site count (this site mirrors its
    layout); a path that is still the module's page is not a move.
    """
    moved: dict[str, str] = {}
    for spec in specs:
        history = histories.get(spec.name)
        if history is None or not spec.upstream:
            continue
        link = re.compile(re.escape(spec.upstream + "/") + r"([\w./-]+?)\.html#")
        for release in history.releases:
            for entry in release.entries.values():
                for run in entry.examples:
                    for old in link.findall(run.exc_text):
                        if old != spec.docname and ".." not in old.split("/"):
                            moved.setdefault(old, spec.docname)
    return dict(sorted(moved.items()))
