"""The execution cache: each entry's raw run, kept under the hash of what it ran.

One JSON file per run in ``<nb_execution_cache_path>/flax-errors/``, named by the
SHA-256 of the job and the build's fingerprint; raw records, judged afresh by each
build; written atomically by the build's own process; an unreadable file is a miss.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import tempfile
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

    from flax_errors_ext.execution.runs.runner import RawRun
    from flax_errors_ext.model.runs.fingerprint import Fingerprint
    from flax_errors_ext.model.runs.jobs import EntryJob

FOLDER = "flax-errors"


def key(job: EntryJob, fingerprint: Fingerprint) -> str:
    """The hash a run of ``job`` is kept under."""
    text = json.dumps([fingerprint.to_json(), dataclasses.asdict(job)], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


class RunStore:
    """Raw runs that ran to the end, by :func:`key`."""

    def __init__(self, cache_dir: Path) -> None:
        self.folder = cache_dir / FOLDER

    def get(self, name: str) -> tuple[dict[int, list[dict[str, Any]]], dict[str, Any]] | None:
        """The kept run's records by example, and its wrap-up; None if none is, or unreadable."""
        with contextlib.suppress(OSError, ValueError, TypeError, AttributeError, KeyError):
            found = json.loads((self.folder / f"{name}.json").read_text(encoding="utf-8"))
            examples = {int(i): list(records) for i, records in found["examples"].items()}
            if isinstance(found["finish"], dict):
                return examples, found["finish"]
        return None

    def put(self, name: str, run: RawRun) -> None:
        """Keep ``run``, which ran to the end; OSError where it cannot (nothing half-written)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        data = {"examples": {str(i): r for i, r in run.examples.items()}, "finish": run.finish}
        descriptor, temporary = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
        try:
            with os.fdopen(descriptor, "w", encoding="utf-8") as file:
                json.dump(data, file)
            os.replace(temporary, self.folder / f"{name}.json")
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise

    def forget(self, name: str) -> None:
        """Drop the run kept under ``name``, if any."""
        with contextlib.suppress(OSError):
            (self.folder / f"{name}.json").unlink()
