"""Text that varies from run to run: found by running twice, and told apart by shape.

``update`` must never write text the next run will not print again (an address, a
temporary folder). :func:`ellipsized` puts ``...`` over what differs between two
runs; :func:`volatile_parts` names what looks bound to vary even when they agree.
"""

from __future__ import annotations

import difflib
import doctest
import re
from typing import TYPE_CHECKING

from flax_errors_ext.model.runs.judge import OPTION_FLAGS

if TYPE_CHECKING:
    from collections.abc import Iterable

    from flax_errors_ext.model.catalogue.records import ExampleResult, Location

_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{6,}\b")


def ellipsized(first: str, second: str) -> str:
    """``first`` with ``...`` over every span where ``second`` differs from it.

    Differences are widened to whole words, so that the proposal reads as text
    (``at 0x...>``, not ``at 0x7f...a0>``). doctest with ELLIPSIS accepts both
    runs' texts against the proposal; where no such proposal is found, ``...``.
    """
    if first == second:
        return first
    matcher = difflib.SequenceMatcher(None, first, second, autojunk=False)
    gaps: list[list[int]] = []
    for tag, differs_from, differs_to, _, _ in matcher.get_opcodes():
        if tag == "equal":
            continue
        start, end = differs_from, differs_to
        while start > 0 and _in_word(first[start - 1]):
            start -= 1
        while end < len(first) and _in_word(first[end]):
            end += 1
        if gaps and start <= gaps[-1][1]:
            gaps[-1][1] = max(gaps[-1][1], end)
        else:
            gaps.append([start, end])
    parts, at = [], 0
    for start, end in gaps:
        parts.append(first[at:start])
        at = end
    parts.append(first[at:])
    proposal = doctest.ELLIPSIS_MARKER.join(parts)
    checker = doctest.OutputChecker()
    if checker.check_output(proposal, first, OPTION_FLAGS) and checker.check_output(
        proposal, second, OPTION_FLAGS
    ):
        return proposal
    return doctest.ELLIPSIS_MARKER


def _in_word(char: str) -> bool:
    """Whether ``char`` belongs to a word or a number (``0.31``, ``tmp_ab12``)."""
    return char.isalnum() or char in "._"


def volatile_parts(text: str, folders: Iterable[str]) -> list[str]:
    """What in ``text`` looks bound to vary: memory addresses, and the given folders."""
    found = [match.group(0) for match in _ADDRESS.finditer(text)]
    found += [folder for folder in folders if folder and len(folder) > 1 and folder in text]
    return found


def statement_texts(results: Iterable[ExampleResult]) -> dict[Location, str]:
    """What each statement that ran printed or raised, by its location."""
    texts: dict[Location, str] = {}
    for result in results:
        for statement, run in zip(result.example.statements_run, result.runs, strict=False):
            texts[statement.location] = run.exc_msg if run.exc_msg is not None else run.got
    return texts
