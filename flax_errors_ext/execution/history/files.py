"""Read the history files a project lists (``flax_errors_history``).

The site and the command line read them here, alike: the recorded runs of past
releases (``nox -s history``) that entries show and that ``explain`` matches.
"""

from __future__ import annotations

import dataclasses
import json
from typing import TYPE_CHECKING

from flax_errors_ext.model.history.releases import SHIPPED, SHIPPED_HISTORY, History

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path


def read_histories(
    folder: Path, names: Iterable[str], modules: set[str]
) -> tuple[dict[str, History], list[str]]:
    """The history files ``names`` lists, by the module each one names, and the problems.

    ``names`` are relative to ``folder`` (that of ``conf.py``), or ``SHIPPED``. A file of
    a module not in ``modules`` is left out; one that cannot be read, or names a module
    another file already holds, gets a message instead (and shows nothing).
    """
    found: dict[str, History] = {}
    problems: list[str] = []
    for name in filter(None, names):
        path = SHIPPED_HISTORY if name == SHIPPED else (folder / name).resolve()
        try:
            history = History.from_json(json.loads(path.read_text("utf-8")))
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
            problems.append(f"history file {path} not read: {error}")
            continue
        if history.module not in modules:
            continue
        if history.module in found:
            problems.append(
                f"{path}: {history.module} has a history already ({found[history.module].path})"
            )
            continue
        found[history.module] = dataclasses.replace(history, path=str(path))
    return found, problems
