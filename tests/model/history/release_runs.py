"""Releases' runs of entries ``A`` and ``B`` in a few words, for the history's tests."""

from __future__ import annotations

from flax_errors_ext.model.history.releases import (
    EntryRun,
    ExampleRun,
    History,
    Outcome,
    Release,
    ReleaseRun,
)
from flax_errors_ext.model.runs.fingerprint import Device

CPU = Device("cpu", "cpu", 1)


def release(
    flax: str, jax: str = "0.4.30", classes: tuple[str, ...] = ("A", "B"), **entries: EntryRun
) -> ReleaseRun:
    return ReleaseRun(Release(flax, jax, jax, "3.11.7", CPU), classes, entries)


def example(text: str = "", outcome: Outcome = Outcome.RAISED, code: str = "c1") -> ExampleRun:
    exc_type = text.split(":", 1)[0] if text else ""
    reason = text if outcome is Outcome.COULD_NOT_RUN else ""
    if outcome is Outcome.COULD_NOT_RUN:
        text, exc_type = "", ""
    return ExampleRun(code, outcome, exc_type, text, reason)


def present(*examples: ExampleRun) -> EntryRun:
    return EntryRun(True, examples)


def absent(*examples: ExampleRun) -> EntryRun:
    return EntryRun(False, examples)


def history(
    *runs: tuple[str, EntryRun], classes: dict[str, tuple[str, ...]] | None = None
) -> History:
    """The history of entry ``A`` over these ``(flax, run)``, oldest first.

    Each release's classes are given, or just ``A`` where it is present.
    """
    return History(
        tuple(
            release(flax, classes=(classes or {}).get(flax, ("A",) if run.present else ()), A=run)
            for flax, run in runs
        )
    )
