"""The machine-readable catalogue (``errors.json``) and the one report of failures.

The site's build and ``flax-errors check`` both report through :func:`failures`,
so a failure reads the same in a build log and in a terminal.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import TYPE_CHECKING, Any

from flax_errors_ext.model.runs.entry_record import EntryStatus
from flax_errors_ext.model.runs.tracebacks import import_roots
from flax_errors_ext.model.warning_subtypes import WarningSubtype

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from flax_errors_ext.model.runs.entry_record import EntryRecord

SCHEMA_VERSION = 1


def errors_document(
    records: Iterable[EntryRecord],
    executed: Iterable[str],
    *,
    roots: Sequence[str] | None = None,
) -> dict[str, Any]:
    """The whole ``errors.json`` document from every entry's record.

    ``executed``: the entries whose examples ran in this build (the rest were not
    read again, or came from the cache). ``roots``: folders the records' sources are
    written relative to (``flax/errors.py``); by default those this interpreter
    imports from (:func:`~flax_errors_ext.model.runs.tracebacks.import_roots`).
    """
    if roots is None:
        roots = import_roots()
    ordered = sorted(records, key=lambda r: r.qualname)
    devices = [r.device for r in ordered if r.device is not None]
    versions = [r.version_map for r in ordered if r.versions]
    statuses = Counter(r.status.value for r in ordered)
    return {
        "schema": SCHEMA_VERSION,
        "device": devices[0].to_json() if devices else {},
        "versions": versions[0] if versions else {},
        "summary": {"entries": len(ordered), **dict(sorted(statuses.items()))},
        "coverage": coverage(ordered),
        "executed": sorted(executed),
        "entries": [r.to_json(roots) for r in ordered],
    }


def coverage(records: Sequence[EntryRecord]) -> dict[str, Any]:
    """How much of the catalogue is proven: reachable errors with a passing bad example."""
    unreachable = [r.qualname for r in records if r.status is EntryStatus.UNREACHABLE]
    covered = [
        r.qualname
        for r in records
        if r.status is EntryStatus.PASSED
        and any(e.kind == "bad" and e.status == "passed" for e in r.examples)
    ]
    return {
        "entries": len(records),
        "reachable": len(records) - len(unreachable),
        "covered": len(covered),
        "unreachable": unreachable,
        "undocumented": [r.qualname for r in records if r.status is EntryStatus.UNDOCUMENTED],
        "failing": [r.qualname for r in records if r.status.failed],
    }


def coverage_line(figures: dict[str, Any]) -> str:
    """The coverage figures as one sentence for the build log."""
    line = (
        f"{figures['covered']}/{figures['reachable']} reachable errors have an executed, "
        f"passing bad example"
    )
    for label in ("unreachable", "undocumented", "failing"):
        names = [q.rpartition(".")[2] for q in figures[label]]
        line += f"; {label}: {', '.join(names) if names else 'none'}"
    return line


def summary_line(document: dict[str, Any]) -> str:
    """The statuses of a document's entries: ``39 errors: 36 passed, 3 unreachable``."""
    total = document["summary"]["entries"]
    counts = ", ".join(
        f"{count} {status}" for status, count in document["summary"].items() if status != "entries"
    )
    return f"{total} error{'' if total == 1 else 's'}: {counts or 'none'}"


@dataclasses.dataclass(frozen=True)
class Failure:
    """One reason the build fails (or, for an undocumented entry, may fail)."""

    location: str
    """The docstring or catalogue-file line to fix."""
    subtype: WarningSubtype
    message: str
    fails: bool = True
    """False for what fails only in strict mode: an entry without examples."""

    def __str__(self) -> str:
        return f"{self.location}: [flax-errors.{self.subtype}] {self.message}"


def failures(
    record: EntryRecord, *, strict: bool = False, upstream: str = "warn"
) -> list[Failure]:
    """Every failure of one entry: format problems, failing examples, missing examples.

    ``upstream`` (the ``flax_errors_upstream`` setting) says what a failing example
    from another project's docstring is: ``error`` fails, ``warn`` is reported
    without failing (unless warnings do), ``show`` and ``off`` are not reported.
    """
    found = [
        Failure(p.source, WarningSubtype.MALFORMED, f"{record.qualname}: {p.message}")
        for p in record.problems
    ]
    for example in record.examples:
        if not example.status.failed:
            continue
        message = f"{record.qualname}: {example.kind} example {example.status}: {example.detail}"
        if example.diff:
            message += "\n" + example.diff.rstrip("\n")
        if example.kind.ours:
            found.append(Failure(example.source, WarningSubtype(example.status.value), message))
        elif upstream in ("error", "warn"):
            subtype = WarningSubtype.UPSTREAM
            found.append(Failure(example.source, subtype, message, fails=upstream == "error"))
    if record.status is EntryStatus.UNDOCUMENTED:
        message = (
            f"{record.qualname} has no examples; add 'Bad example:' and 'Good example:' sections"
        )
        found.append(Failure(record.source, WarningSubtype.UNDOCUMENTED, message, fails=strict))
    return found
