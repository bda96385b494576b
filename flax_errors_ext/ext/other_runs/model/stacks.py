"""Whether a stack's run of the catalogue keeps its verdicts (``nox -s lock``).

A stack is one Python with the versions its constraints file locks. Refreshing
the constraints may bring a new Flax or JAX; :func:`settle` reads the run of the
catalogue on the new stack (an ``errors.json`` document) beside the one recorded
for the old, and says what keeps the new stack from being adopted.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence

SETTLED = ("passed", "unreachable")
"""The statuses every entry must have on every stack."""


def statuses(text: str) -> dict[str, str]:
    """``{qualname: status}`` of an ``errors.json`` document."""
    document: dict[str, Any] = json.loads(text)
    return {str(entry["qualname"]): str(entry["status"]) for entry in document["entries"]}


def settle(
    stack: str,
    text: str,
    before: str | None,
    settled: Sequence[str] = SETTLED,
    *,
    accept: bool = False,
) -> list[str]:
    """What keeps the run ``text`` from standing for ``stack``, one line per entry.

    An entry whose status is not one of ``settled`` always does. So does one
    whose status differs from the run recorded ``before`` (None: no run was),
    unless ``accept``: a changed status is kept only when a maintainer says so.
    """
    now = statuses(text)
    problems = [
        f"{stack}: {qualname} is {status}"
        for qualname, status in now.items()
        if status not in settled
    ]
    if before is None or accept:
        return problems
    old = statuses(before)
    problems += [
        f"{stack}: {qualname} was {old[qualname]}, is {status} (-- --accept keeps it)"
        for qualname, status in now.items()
        if status in settled and qualname in old and old[qualname] != status
    ]
    return problems
