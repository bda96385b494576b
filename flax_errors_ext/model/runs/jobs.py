"""What an entry's process runs: its job, built from the entry, and so the cache's key.

Pure records, for the runner (:mod:`flax_errors_ext.execution.runs.runner`) to send
and the store to hash. Statements are numbered across the whole docstring, as
doctest numbers them, so that a traceback names ``<doctest pkg.E[n]>`` as
``pytest --doctest-modules`` does.
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import TYPE_CHECKING

from flax_errors_ext.model.catalogue.records import Verdict
from flax_errors_ext.model.runs.judge import statement_flags
from flax_errors_ext.model.runs.output_limit import DEFAULT_LIMIT, is_cut

if TYPE_CHECKING:
    from collections.abc import Collection

    from flax_errors_ext.model.catalogue.records import ErrorEntry, Statement
    from flax_errors_ext.model.runs.outcomes import EntryOutcome


@dataclasses.dataclass(frozen=True)
class ExampleJob:
    """One example's statements, as doctest numbers them in the docstring."""

    statements: tuple[tuple[int, str], ...]
    documented: tuple[tuple[int, tuple[str, int]], ...] = ()
    """Texts that cut outputs must keep (:func:`~.in_process.run_statements`)."""
    module_namespace: str | None = None
    """Another project's example runs in a copy of its module's namespace."""


@dataclasses.dataclass(frozen=True)
class EntryJob:
    """What an entry's process runs: the whole of it, and so the cache's key."""

    qualname: str
    total: int
    """How many statements the docstring has."""
    examples: tuple[ExampleJob, ...]
    module: str | None = None
    """The catalogued module, imported before the examples run."""
    import_paths: tuple[str, ...] = ()
    output_limit: int | None = None


def entry_job(
    entry: ErrorEntry,
    module: str | None,
    import_paths: tuple[str, ...] = (),
    output_limit: int | None = DEFAULT_LIMIT,
    documented: Collection[int] = (),
) -> EntryJob:
    """What ``entry``'s process runs: each example's statements, numbered as doctest does.

    ``documented``: the statements whose documented text goes along, so that their
    cut output keeps its verdict (:func:`~flax_errors_ext.model.runs.output_limit.fit`).
    """
    examples = []
    for example, numbered in zip(entry.examples, _number_statements(entry), strict=True):
        texts = tuple(
            (n, (s.exc_msg if s.exc_msg is not None else s.want, statement_flags(s)))
            for n, s in numbered
            if n in documented and not s.skip
        )
        examples.append(
            ExampleJob(
                statements=tuple((n, s.source) for n, s in numbered if not s.skip),
                documented=texts,
                module_namespace=None if example.kind.ours else entry.module,
            )
        )
    total = sum(len(example.statements) for example in entry.examples)
    return EntryJob(entry.qualname, total, tuple(examples), module, import_paths, output_limit)


def statement_numbers(entry: ErrorEntry) -> list[list[int]]:
    """Per example, the doctest numbers of its statements that run (not skipped).

    They line up with an example's records: one record per statement that runs.
    """
    return [[n for n, s in example if not s.skip] for example in _number_statements(entry)]


def _number_statements(entry: ErrorEntry) -> list[list[tuple[int, Statement]]]:
    """Number statements across the whole docstring, as doctest does."""
    numbers = itertools.count()
    return [[(next(numbers), s) for s in example.statements] for example in entry.examples]


def cut_and_drifted(outcome: EntryOutcome) -> frozenset[int]:
    """The numbers of the cut statements of each example that drifted at a cut one.

    A drifted verdict on a cut text may be the cut's doing; a passing one never is.
    """
    found: set[int] = set()
    for result, runs, numbers in zip(
        outcome.results, outcome.execution.runs, statement_numbers(outcome.entry), strict=True
    ):
        if result.verdict is not Verdict.DRIFTED or runs is None:
            continue
        cut = {
            n: s.location
            for n, s, run in zip(numbers, result.example.statements_run, runs, strict=False)
            if is_cut(run.exc_msg if run.exc_msg is not None else run.got)
        }
        if result.failed_at in cut.values():
            found.update(cut)
    return frozenset(found)
