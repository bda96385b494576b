"""What running (or looking up) an entry gave: its records, and the verdicts on them.

Pure records: :class:`Execution` is read from the runs an entry's process sent (now,
or kept by the execution cache), and :class:`EntryOutcome` adds the verdict on each
example, from which the entry's ``errors.json`` record is made.
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import json
import zlib
from typing import TYPE_CHECKING, Any

from flax_errors_ext.model.catalogue.records import StatementRun, Verdict
from flax_errors_ext.model.runs.entry_record import entry_record
from flax_errors_ext.model.runs.fingerprint import Device, LoadedFile

if TYPE_CHECKING:
    from flax_errors_ext.model.catalogue.records import ErrorEntry, ExampleResult
    from flax_errors_ext.model.runs.entry_record import EntryRecord
    from flax_errors_ext.model.runs.fingerprint import Fingerprint


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
    """Where the examples ran; None if unknown (not run, or the process could not tell)."""
    versions: dict[str, str] = dataclasses.field(default_factory=dict)
    loaded: tuple[LoadedFile, ...] = ()
    """Every file the process had loaded code from when the examples were done."""

    @classmethod
    def of(cls, examples: dict[int, Any], finish: dict[str, Any] | None, total: int) -> Execution:
        """The records of a run (now, or when it was kept) for an entry of ``total`` examples."""
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
    """An entry, how its notebook ran, and the verdict on each of its examples."""

    entry: ErrorEntry
    execution: Execution
    results: tuple[ExampleResult, ...]

    def record(self, fingerprint: Fingerprint) -> EntryRecord:
        """The entry's ``errors.json`` record.

        The device is the one the entry's process saw; where it reported none
        (it timed out or crashed first), the build's own probe stands in for it.
        """
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
    """The files :func:`~.in_process.loaded_files` packed; () if none."""
    return _unpacked(packed) if isinstance(packed, str) else ()


_shared_files: dict[tuple[Any, ...], LoadedFile] = {}
"""Every loaded file read in this process, once: most entries of a build loaded the
same files, and the environment Sphinx pickles then holds each once."""


@functools.lru_cache(maxsize=256)
def _unpacked(packed: str) -> tuple[LoadedFile, ...]:
    """The files packed in ``packed``, unpacked once per distinct list."""
    try:
        items = json.loads(zlib.decompress(base64.b64decode(packed)))
        return tuple(_shared_files.setdefault(tuple(i), LoadedFile.from_json(i)) for i in items)
    except (TypeError, ValueError, zlib.error):
        return ()
