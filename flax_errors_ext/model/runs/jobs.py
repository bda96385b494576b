"""What an entry's process runs (its job, and so the cache's key), and what it gave."""

from __future__ import annotations

import base64
import dataclasses
import functools
import itertools
import json
import zlib
from typing import TYPE_CHECKING, Any

from flax_errors_ext.model.catalogue.records import StatementRun, Verdict
from flax_errors_ext.model.runs.entry_record import entry_record
from flax_errors_ext.model.runs.fingerprint import Device, LoadedFile
from flax_errors_ext.model.runs.judge import statement_flags
from flax_errors_ext.model.runs.output_limit import DEFAULT_LIMIT, is_cut

if TYPE_CHECKING:
    from collections.abc import Collection

    from flax_errors_ext.model.catalogue.records import ErrorEntry, ExampleResult, Statement
    from flax_errors_ext.model.runs.entry_record import EntryRecord
    from flax_errors_ext.model.runs.fingerprint import Fingerprint


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

    ``documented``: the statements whose text goes along, so that a cut keeps the verdict.
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
    """Per example, the doctest numbers of its statements that run: one record each."""
    return [[n for n, s in example if not s.skip] for example in _number_statements(entry)]


def _number_statements(entry: ErrorEntry) -> list[list[tuple[int, Statement]]]:
    numbers = itertools.count()
    return [[(next(numbers), s) for s in example.statements] for example in entry.examples]


def cut_and_drifted(outcome: EntryOutcome) -> frozenset[int]:
    """The cut statements' numbers of each example that drifted at one (maybe the cut's doing)."""
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


@dataclasses.dataclass(frozen=True)
class Execution:
    """What running (or looking up) one entry produced."""

    runs: tuple[tuple[StatementRun, ...] | None, ...]
    """Per example, the statements' records; None where the example never finished."""
    failure: Verdict | None = None
    """TIMED_OUT or CRASHED when the entry's process did not run to the end."""
    failure_detail: str = ""
    failure_log: str = ""
    """The process's last words, or the traceback of our own error that stopped it."""
    executed: bool = False
    """True if its process ran now; False if the records came from the cache."""
    seconds: float = 0.0
    device: Device | None = None
    versions: dict[str, str] = dataclasses.field(default_factory=dict)
    loaded: tuple[LoadedFile, ...] = ()
    """Every file the process had loaded code from when the examples were done."""

    @classmethod
    def of(cls, examples: dict[int, Any], finish: dict[str, Any] | None, total: int) -> Execution:
        """The records of a run (now, or from the cache) for an entry of ``total`` examples."""
        finish = finish or {}
        return cls(
            runs=tuple(
                tuple(StatementRun.from_json(s) for s in examples[i]) if i in examples else None
                for i in range(total)
            ),
            device=Device.from_json(finish.get("device")),
            versions=finish.get("versions", {}),
            loaded=unpack_loaded(finish.get("loaded")),
        )


@dataclasses.dataclass(frozen=True)
class EntryOutcome:
    """An entry, how it ran, and the verdict on each of its examples."""

    entry: ErrorEntry
    execution: Execution
    results: tuple[ExampleResult, ...]

    def record(self, fingerprint: Fingerprint) -> EntryRecord:
        """The entry's ``errors.json`` record; the build's probe stands in for a missing device."""
        device = self.execution.device
        if device is None and self.execution.runs and isinstance(fingerprint.device, Device):
            device = fingerprint.device
        return entry_record(
            self.entry,
            self.results,
            executed=self.execution.executed,
            device=device,
            versions=self.execution.versions or fingerprint.version_map,
        )


def unpack_loaded(packed: Any) -> tuple[LoadedFile, ...]:
    """The files an entry's process packed (``in_process.loaded_files``); () if none."""
    return _unpacked(packed) if isinstance(packed, str) else ()


_shared_files: dict[tuple[Any, ...], LoadedFile] = {}
"""Every loaded file read in this process, once: Sphinx's pickled environment holds each once."""


@functools.lru_cache(maxsize=256)
def _unpacked(packed: str) -> tuple[LoadedFile, ...]:
    try:
        items = json.loads(zlib.decompress(base64.b64decode(packed)))
        return tuple(_shared_files.setdefault(tuple(i), LoadedFile.from_json(i)) for i in items)
    except (TypeError, ValueError, zlib.error):
        return ()
