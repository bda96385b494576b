"""Which code blocks of another project's docstring the catalogue runs, and what the others say.

Its ``>>>`` statements run as the entry's upstream example
(:func:`~flax_errors_ext.model.catalogue.parse.parse_upstream`); any other code (a
``::`` block, a statement doctest skips, all of them when upstream examples are
off) is only shown, labelled by :func:`not_run_label` as not run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from flax_errors_ext.model.catalogue.records import ExampleKind

if TYPE_CHECKING:
    from collections.abc import Iterable

    from flax_errors_ext.model.catalogue.records import Example

_PROMPT = ">>>"


def ran_statements(examples: Iterable[Example]) -> frozenset[str]:
    """The first lines of the upstream statements that run (doctest skips none of them)."""
    return frozenset(
        statement.source.strip().splitlines()[0]
        for example in examples
        if example.kind is ExampleKind.UPSTREAM
        for statement in example.statements
        if statement.source.strip() and not statement.skip
    )


def block_runs(text: str, ran: frozenset[str]) -> bool:
    """Whether a code block shows statements that run: one of its ``>>>`` lines is one."""
    lines = (line.strip() for line in text.splitlines())
    return any(
        line.startswith(_PROMPT) and line.removeprefix(_PROMPT).strip() in ran for line in lines
    )


def not_run_label(project: str) -> str:
    """The label of a block that is shown but never run: ``From Flax's docstring, not run``."""
    return f"From {project}'s docstring, not run"
