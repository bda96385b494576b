"""The machine-readable catalogue (``errors.json``) and the failure report."""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any

from flax_errors_ext.core.records import ErrorEntry, ExampleResult, FormatProblem, Verdict
from flax_errors_ext.urls import entry_path

SCHEMA_VERSION = 1


def entry_status(
    results: list[ExampleResult], problems: tuple[FormatProblem, ...], entry: ErrorEntry
) -> str:
    """One word for an entry: passed, failed, malformed, undocumented, not-run or unreachable."""
    if problems:
        return "malformed"
    if not entry.documented:
        return "undocumented"
    if any(r.verdict.failed for r in results):
        return "failed"
    if any(r.verdict is Verdict.NOT_RUN for r in results):
        return "not-run"
    return "unreachable" if entry.unreachable else "passed"


def entry_record(
    entry: ErrorEntry,
    results: list[ExampleResult],
    *,
    executed: bool,
    device: dict[str, Any],
    versions: dict[str, str],
) -> dict[str, Any]:
    """The ``errors.json`` record of one entry."""
    return {
        "name": entry.name,
        "qualname": entry.qualname,
        "url": entry_path(entry.qualname),
        "source": str(entry.location),
        "summary": entry.summary,
        "status": entry_status(results, entry.problems, entry),
        "executed": executed,
        "device": device,
        "versions": versions,
        "problems": [{"source": str(p.location), "message": p.message} for p in entry.problems],
        "examples": [
            {
                "kind": r.example.kind.value,
                "source": str(r.location),
                "status": r.verdict.value,
                "expected": r.expected,
                "actual": r.actual,
                "seconds": round(r.seconds, 4),
                "detail": r.detail,
                "diff": r.diff,
            }
            for r in results
        ],
    }


def catalogue(records: list[dict[str, Any]], executed: list[str]) -> dict[str, Any]:
    """The whole ``errors.json`` document from the entries' records.

    Args:
        records: Every entry's record.
        executed: Dotted names of the entries whose examples a kernel ran in this
            build (the rest were not read again, or came from the cache).
    """
    records = sorted(records, key=lambda r: r["qualname"])
    devices = [r["device"] for r in records if r.get("device")]
    versions = [r["versions"] for r in records if r.get("versions")]
    statuses = Counter(r["status"] for r in records)
    return {
        "schema": SCHEMA_VERSION,
        "device": devices[0] if devices else {},
        "versions": versions[0] if versions else {},
        "summary": {"entries": len(records), **dict(sorted(statuses.items()))},
        "coverage": coverage(records),
        "executed": sorted(executed),
        "entries": records,
    }


def coverage(records: list[dict[str, Any]]) -> dict[str, Any]:
    """How much of the catalogue is proven: reachable errors with a passing bad example."""
    unreachable = [r["qualname"] for r in records if r["status"] == "unreachable"]
    covered = [
        r["qualname"]
        for r in records
        if r["status"] == "passed"
        and any(e["kind"] == "bad" and e["status"] == "passed" for e in r["examples"])
    ]
    return {
        "entries": len(records),
        "reachable": len(records) - len(unreachable),
        "covered": len(covered),
        "unreachable": unreachable,
        "undocumented": [r["qualname"] for r in records if r["status"] == "undocumented"],
        "failing": [r["qualname"] for r in records if r["status"] in ("failed", "malformed")],
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


@dataclasses.dataclass(frozen=True)
class Failure:
    """One reason the build fails, located at the docstring line to fix."""

    location: str
    subtype: str
    """The warning subtype: the verdict (``drifted``, ``no-raise`` ...) or ``malformed``."""
    message: str


def failures(record: dict[str, Any]) -> list[Failure]:
    """Every failure of one entry record: format problems, then failing examples."""
    found = [
        Failure(p["source"], "malformed", f"{record['qualname']}: {p['message']}")
        for p in record["problems"]
    ]
    for example in record["examples"]:
        if Verdict(example["status"]).failed:
            message = (
                f"{record['qualname']}: {example['kind']} example {example['status']}: "
                f"{example['detail']}"
            )
            if example["diff"]:
                message += "\n" + example["diff"].rstrip("\n")
            found.append(Failure(example["source"], example["status"], message))
    return found
