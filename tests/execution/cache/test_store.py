"""The execution cache: raw runs by the hash of what ran, written whole or not at all."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from flax_errors_ext.execution.cache.store import RunStore, key
from flax_errors_ext.execution.runs.runner import RawRun
from flax_errors_ext.model.runs.fingerprint import Fingerprint
from flax_errors_ext.model.runs.jobs import EntryJob, ExampleJob

if TYPE_CHECKING:
    from pathlib import Path

JOB = EntryJob("pkg.E", 1, (ExampleJob(((0, "1 / 0\n"),)),), "pkg")
PRINT = Fingerprint.of({"jax": "0.10.2"}, None, {})
RUN = RawRun(
    {0: [{"got": "", "exc_msg": "ZeroDivisionError: division by zero\n"}]}, {"loaded": ""}
)


def test_a_run_kept_is_served_by_its_key(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    store.put(key(JOB, PRINT), RUN)

    kept = store.get(key(JOB, PRINT))

    assert kept == (RUN.examples, RUN.finish)
    assert [p.suffix for p in (tmp_path / "flax-errors").iterdir()] == [".json"]


def test_the_key_is_the_code_and_the_fingerprint() -> None:
    other_code = dataclasses.replace(JOB, examples=(ExampleJob(((0, "2 / 0\n"),)),))
    other_versions = Fingerprint.of({"jax": "0.10.3"}, None, {})

    keys = {key(JOB, PRINT), key(other_code, PRINT), key(JOB, other_versions)}

    assert len(keys) == 3
    assert key(JOB, PRINT) == key(dataclasses.replace(JOB), PRINT)


def test_an_unreadable_or_incomplete_file_is_a_miss(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    name = key(JOB, PRINT)
    store.put(name, RUN)
    kept = tmp_path / "flax-errors" / f"{name}.json"

    kept.write_text('{"examples": {}')
    assert store.get(name) is None
    kept.write_text('{"examples": {}}')  # no wrap-up: never a run that ran to the end
    assert store.get(name) is None
    kept.write_text('{"examples": {"first": []}, "finish": {}}')  # valid JSON, not ours
    assert store.get(name) is None


def test_a_forgotten_run_is_a_miss(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    name = key(JOB, PRINT)
    store.put(name, RUN)

    store.forget(name)
    store.forget(name)  # twice: nothing to forget is no error

    assert store.get(name) is None
