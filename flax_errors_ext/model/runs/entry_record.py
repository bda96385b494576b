"""What a build or a check found out about each entry: ``errors.json``, and the one report."""

from __future__ import annotations

import dataclasses
import enum
from collections import Counter
from typing import TYPE_CHECKING, Any

from flax_errors_ext.model.catalogue.records import ExampleKind, Verdict, first_paragraph
from flax_errors_ext.model.runs.fingerprint import Device
from flax_errors_ext.model.runs.tracebacks import (
    import_roots,
    raise_site,
    relative_path,
    strip_roots,
)
from flax_errors_ext.model.warning_subtypes import WarningSubtype

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from flax_errors_ext.model.catalogue.records import ErrorEntry, ExampleResult


@enum.unique
class EntryStatus(enum.StrEnum):
    """One word for an entry, from its examples' verdicts."""

    PASSED = "passed"
    FAILED = "failed"
    MALFORMED = "malformed"
    UNDOCUMENTED = "undocumented"
    NOT_RUN = "not-run"
    UNREACHABLE = "unreachable"

    @property
    def failed(self) -> bool:
        """Whether the entry fails the build (an undocumented one only in strict mode)."""
        return self in (EntryStatus.FAILED, EntryStatus.MALFORMED)


def entry_status(entry: ErrorEntry, results: Sequence[ExampleResult]) -> EntryStatus:
    """The status of ``entry`` given its examples' verdicts."""
    if entry.problems:
        return EntryStatus.MALFORMED
    if not entry.documented:
        return EntryStatus.UNDOCUMENTED
    # Upstream examples' verdicts are their own; one for other versions says nothing here.
    ours = [r for r in results if r.example.kind.ours and r.verdict is not Verdict.OTHER_VERSIONS]
    if any(r.verdict.failed for r in ours):
        return EntryStatus.FAILED
    if (results and not ours) or any(r.verdict is Verdict.NOT_RUN for r in ours):
        return EntryStatus.NOT_RUN
    kinds = {r.example.kind for r in ours}
    unreachable = ExampleKind.UNREACHABLE in kinds and ExampleKind.BAD not in kinds
    return EntryStatus.UNREACHABLE if unreachable else EntryStatus.PASSED


SCHEMA_VERSION = 1


@dataclasses.dataclass(frozen=True)
class ProblemRecord:
    """A format problem of the entry's docstring, where it is."""

    source: str
    message: str


@dataclasses.dataclass(frozen=True)
class ExampleRecord:
    """One example's verdict, with the documented and the actual text."""

    kind: ExampleKind
    source: str
    status: Verdict
    expected: str
    actual: str
    seconds: float
    detail: str
    diff: str
    caption: str = ""
    """The first paragraph of the example's description (reST), on one line."""
    raised_at: str = ""
    """``file:line`` where the error was raised (:func:`raise_site`), or ""."""
    log: str = ""
    """For a crash of this package's own, its traceback."""


@dataclasses.dataclass(frozen=True)
class EntryRecord:
    """One entry of ``errors.json``."""

    name: str
    qualname: str
    url: str
    """Site-relative, with its anchor."""
    source: str
    summary: str
    status: EntryStatus
    executed: bool
    """Whether its examples ran now (not from the cache)."""
    device: Device | None
    versions: tuple[tuple[str, str], ...]
    problems: tuple[ProblemRecord, ...]
    examples: tuple[ExampleRecord, ...]
    raised_as: tuple[str, ...] = ()
    """A message entry's classes (``ValueError``); empty for an error class's entry."""

    @property
    def raised_at(self) -> str:
        """Where its first bad example that raised was raised (``file:line``), or ""."""
        return next(
            (e.raised_at for e in self.examples if e.kind is ExampleKind.BAD and e.raised_at), ""
        )

    @property
    def version_map(self) -> dict[str, str]:
        """The versions by package."""
        return dict(self.versions)

    def raised_texts(self, roots: Sequence[str]) -> list[tuple[ExampleRecord, str]]:
        """The documented and actual error text of the examples that raise, each once."""
        found: dict[str, ExampleRecord] = {}
        for example in self.examples:
            if example.kind.raises:
                for raw in (example.expected, example.actual):
                    text = strip_roots(raw, roots)
                    if text:
                        found.setdefault(text, example)
        return [(example, text) for text, example in found.items()]

    def to_json(self, roots: Sequence[str]) -> dict[str, Any]:
        """The record as ``errors.json`` holds it: no folder of the build machine (``roots``)."""
        data = dataclasses.asdict(self)
        data["source"] = relative_source(self.source, roots)
        for item in (*data["problems"], *data["examples"]):
            item["source"] = relative_source(item["source"], roots)
            if item.get("raised_at"):
                item["raised_at"] = relative_source(item["raised_at"], roots)
            for key in ("message", "expected", "actual", "detail", "diff", "log"):
                if key in item:  # an error's text may name files too
                    item[key] = strip_roots(item[key], roots)
        data["device"] = self.device.to_json() if self.device is not None else {}
        data["versions"] = self.version_map
        for example in data["examples"]:
            example["seconds"] = round(example["seconds"], 4)
            if not example["log"]:
                del example["log"]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> EntryRecord:
        """Read a record back from ``errors.json``; ValueError if ``data`` is not one."""
        names = {field.name for field in dataclasses.fields(cls)}
        try:
            return cls(
                **{name: value for name, value in data.items() if name in names}
                | {
                    "status": EntryStatus(data["status"]),
                    "device": Device.from_json(data.get("device")),
                    "versions": tuple(data.get("versions", {}).items()),
                    "problems": tuple(ProblemRecord(**p) for p in data.get("problems", [])),
                    "examples": tuple(
                        ExampleRecord(
                            **e | {"kind": ExampleKind(e["kind"]), "status": Verdict(e["status"])}
                        )
                        for e in data.get("examples", [])
                    ),
                    "raised_as": tuple(data.get("raised_as", ())),
                }
            )
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise ValueError(f"not an errors.json entry record: {error!r}") from None


def relative_source(source: str, roots: Sequence[str]) -> str:
    """A ``file:line`` source with its file inside the deepest root that holds it."""
    path, colon, line = source.rpartition(":")
    if not (colon and line.isdigit()):
        return relative_path(source, roots)
    return f"{relative_path(path, roots)}:{line}"


def entry_record(
    entry: ErrorEntry,
    results: Sequence[ExampleResult],
    *,
    executed: bool,
    device: Device | None,
    versions: dict[str, str],
) -> EntryRecord:
    """The record of one entry from its examples' verdicts."""
    return EntryRecord(
        name=entry.name,
        qualname=entry.qualname,
        url=entry.site.path,
        source=str(entry.location),
        summary=entry.summary,
        status=entry_status(entry, results),
        executed=executed,
        device=device,
        versions=tuple(versions.items()),
        problems=tuple(ProblemRecord(str(p.location), p.message) for p in entry.problems),
        examples=tuple(
            ExampleRecord(
                kind=r.example.kind,
                source=str(r.location),
                status=r.verdict,
                expected=r.expected,
                actual=r.actual,
                seconds=r.seconds,
                detail=r.detail,
                diff=r.diff,
                caption=first_paragraph(r.example.description)[0],
                raised_at=raise_site(r.runs[-1].transcript)
                if r.example.kind.raises and r.runs and r.runs[-1].exc_msg is not None
                else "",
                log=r.log,
            )
            for r in results
        ),
        raised_as=entry.raised_as,
    )


def errors_document(
    records: Iterable[EntryRecord], executed: Iterable[str], *, roots: Sequence[str] | None = None
) -> dict[str, Any]:
    """The whole ``errors.json`` document; ``executed``: the entries that ran in this build."""
    roots = import_roots() if roots is None else roots
    ordered = sorted(records, key=lambda r: r.qualname)
    devices = [r.device for r in ordered if r.device is not None]
    versions = [r.version_map for r in ordered if r.versions]
    statuses = Counter(r.status.value for r in ordered)
    unreachable = [r.qualname for r in ordered if r.status is EntryStatus.UNREACHABLE]
    # How much of the catalogue is proven: reachable errors with a passing bad example.
    covered = [
        r.qualname
        for r in ordered
        if r.status is EntryStatus.PASSED
        and any(e.kind == "bad" and e.status == "passed" for e in r.examples)
    ]
    return {
        "schema": SCHEMA_VERSION,
        "device": devices[0].to_json() if devices else {},
        "versions": versions[0] if versions else {},
        "summary": {"entries": len(ordered), **dict(sorted(statuses.items()))},
        "coverage": {
            "entries": len(ordered),
            "reachable": len(ordered) - len(unreachable),
            "covered": len(covered),
            "unreachable": unreachable,
            "undocumented": [r.qualname for r in ordered if r.status is EntryStatus.UNDOCUMENTED],
            "failing": [r.qualname for r in ordered if r.status.failed],
        },
        "executed": sorted(executed),
        "entries": [r.to_json(roots) for r in ordered],
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
    """Every failure of one entry; ``upstream``: the setting, for another project's examples."""
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
