"""Runs of the catalogue on other devices, read from their ``errors.json``, beside this build's."""

from __future__ import annotations

import dataclasses
import enum
import json
import re
from typing import TYPE_CHECKING, Any

from flax_errors_ext.model.catalogue.records import Verdict
from flax_errors_ext.model.history.releases import comparable
from flax_errors_ext.model.runs.entry_record import SCHEMA_VERSION, EntryRecord, EntryStatus
from flax_errors_ext.model.runs.fingerprint import Device
from flax_errors_ext.model.runs.tracebacks import strip_roots
from flax_errors_ext.model.site.texts import verification_text

if TYPE_CHECKING:
    from collections.abc import Sequence

    from flax_errors_ext.model.runs.entry_record import ExampleRecord


# Another machine's installed code, wherever its interpreter lives: the path up to
# site-packages (``/opt/venv/lib/python3.12/site-packages/``) says nothing of the error.
_INSTALLED_PREFIX = re.compile(
    r"(?:[A-Za-z]:)?[/\\][^\s\"'<>()]*?[/\\](?:site|dist)-packages[/\\]"
)
# The folders above a temporary name (``/tmp/``, ``/scratch/me/``): where the
# machine keeps its temporary files says nothing of the error either.
_TEMPORARY_FOLDERS = re.compile(r"(?<![\w.])[^\s\"'<>()]*[/\\](?=tmp[\w-]{6,})")
NOT_COMPARED = (EntryStatus.NOT_RUN, EntryStatus.UNDOCUMENTED, EntryStatus.MALFORMED)
"""Statuses of an entry whose examples did not run, here or there."""


@enum.unique
class Agreement(enum.StrEnum):
    """What another run did with an entry, beside this build."""

    SAME = "same"
    DIFFERS = "differs"
    NOT_COMPARED = "not-compared"


@dataclasses.dataclass(frozen=True)
class Difference:
    """One example that did something else on the other run."""

    example: str
    """``bad example 1``; ``the entry`` where only its status differs (texts: the verdicts)."""
    here: Verdict | EntryStatus
    there: Verdict | EntryStatus
    text_here: str
    text_there: str

    def __str__(self) -> str:
        if self.here is self.there:
            return f"{self.example}: {self.here} in both, with other text"
        return f"{self.example}: {self.there} there, {self.here} here"

    def to_json(self) -> dict[str, Any]:
        """The difference as ``errors.json`` records it."""
        return {**dataclasses.asdict(self), "here": self.here.value, "there": self.there.value}


@dataclasses.dataclass(frozen=True)
class DeviceOutcome:
    """What one other run did with one entry."""

    source: str
    device: Device
    status: EntryStatus | None
    """The entry's status in that run; None where it has no record of the entry."""
    differences: tuple[Difference, ...]
    reason: str
    """Why nothing was compared ("" where something was)."""
    versions: str
    """The run's versions that are not the build's (``flax 0.12.8, jax 0.10.2``), or empty."""
    same_device: bool
    """Whether the run had the build's device: then only its versions differ."""

    @property
    def agreement(self) -> Agreement:
        """Differs where an example does, not compared where there is a reason, else the same."""
        if self.differences:
            return Agreement.DIFFERS
        return Agreement.NOT_COMPARED if self.reason else Agreement.SAME

    @property
    def where(self) -> str:
        """``GPU (NVIDIA H200) with flax 0.12.10``; only the versions on the build's device."""
        if self.same_device and self.versions:
            return self.versions
        return f"{self.device.label} with {self.versions}" if self.versions else self.device.label

    @property
    def phrase(self) -> str:
        """``on GPU (NVIDIA H200)``, or ``with flax 0.12.8, jax 0.10.2`` for another stack."""
        return f"with {self.where}" if self.same_device else f"on {self.where}"

    def note(self) -> str:
        """``Not compared on GPU (NVIDIA H200): it has no record of this entry``, with a stop."""
        return f"Not compared {self.phrase}: {self.reason}."

    def to_json(self) -> dict[str, Any]:
        """The outcome as an entry of ``errors.json`` records it."""
        return {
            "source": self.source,
            "device": self.device.to_json(),
            "where": self.where,
            "agreement": self.agreement.value,
            "status": self.status.value if self.status is not None else None,
            "differences": [d.to_json() for d in self.differences],
            "reason": self.reason,
        }


def normalised(text: str) -> str:
    """``text`` as runs are compared: addresses, temporary names and install folders aside."""
    text = _TEMPORARY_FOLDERS.sub("", _INSTALLED_PREFIX.sub("", text))
    return comparable(text).strip()


def compare(
    record: EntryRecord,
    runs: Sequence[DeviceRun],
    versions: dict[str, str],
    roots: Sequence[str] = (),
) -> list[DeviceOutcome]:
    """What each of ``runs`` did with ``record``'s entry beside this build's, examples paired."""
    outcomes = []
    for run in runs:
        other = run.other_versions(versions)
        same_device = record.device is not None and run.device == record.device
        theirs = run.record(record.qualname)
        if (same_device and not other) or (theirs is None and not run.covers(record.qualname)):
            continue
        differences, reason = _differences(record, theirs, roots)
        status = theirs.status if theirs is not None else None
        outcomes.append(
            DeviceOutcome(run.source, run.device, status, differences, reason, other, same_device)
        )
    return outcomes


def _differences(
    record: EntryRecord, theirs: EntryRecord | None, roots: Sequence[str]
) -> tuple[tuple[Difference, ...], str]:
    if theirs is None:
        return (), "it has no record of this entry"
    if record.status in NOT_COMPARED:
        return (), f"{record.status} here"
    if theirs.status in NOT_COMPARED:
        return (), f"{theirs.status} there"
    there = _numbered(theirs.examples)
    pairs = [
        (label, mine, there[label], strip_roots(mine.actual, roots))
        for label, mine in _numbered(record.examples).items()
        if label in there and _ran_alike(mine, there[label], roots)
    ]
    differences = [
        Difference(label, mine.status, other.status, text, other.actual)
        for label, mine, other, text in pairs
        if mine.status is not other.status or normalised(text) != normalised(other.actual)
    ]
    if theirs.status is not record.status and not differences:
        # Each side ran only the examples that hold for its versions, and those agree;
        # the entry itself does not: its texts are each side's example verdicts.
        verdicts = [
            "".join(f"{label}: {e.status}\n" for label, e in _numbered(side.examples).items())
            for side in (record, theirs)
        ]
        differences.append(Difference("the entry", record.status, theirs.status, *verdicts))
    reason = "" if differences or pairs else "its examples of this entry are not the ones here"
    return tuple(differences), reason


def _ran_alike(mine: ExampleRecord, other: ExampleRecord, roots: Sequence[str]) -> bool:
    ran = not {mine.status, other.status} & {Verdict.NOT_RUN, Verdict.OTHER_VERSIONS}
    return ran and normalised(strip_roots(mine.expected, roots)) == normalised(other.expected)


def _numbered(examples: Sequence[ExampleRecord]) -> dict[str, ExampleRecord]:
    """The entry's own examples (not upstream ones) by ``bad example 1`` labels."""
    ours = [example for example in examples if example.kind.ours]
    kinds = [example.kind for example in ours]
    return {
        f"{example.kind} example {kinds[: n + 1].count(example.kind)}": example
        for n, example in enumerate(ours)
    }


def verified_text(record: EntryRecord, outcomes: Sequence[DeviceOutcome]) -> str:
    """The verification line, naming each device that saw the same (other versions last)."""
    same = [o for o in outcomes if o.agreement is Agreement.SAME]
    text = verification_text(record, [o.where for o in same if not o.versions])
    if record.device is None:
        return text
    return "".join([text, *(f" · and {o.phrase}" for o in same if o.versions)])


def merge_document(document: dict[str, Any], runs: Sequence[DeviceRun]) -> dict[str, Any]:
    """``errors.json`` with ``device_runs`` and, in each entry, what each run did (``devices``)."""
    if not runs:
        return document
    versions = {str(k): str(v) for k, v in document.get("versions", {}).items()}
    entries = []
    for data in document["entries"]:
        outcomes = compare(EntryRecord.from_json(data), runs, versions)
        entries.append({**data, "devices": [o.to_json() for o in outcomes]})
    return {**document, "device_runs": [run.summary() for run in runs], "entries": entries}


class DeviceRunError(ValueError):
    """A device run's document cannot be read; the message names the file and why."""


@dataclasses.dataclass(frozen=True)
class DeviceRun:
    """One run of the catalogue elsewhere, as its ``errors.json`` document records it."""

    source: str
    """The file as the configuration names it (relative to ``conf.py``)."""
    device: Device
    versions: tuple[tuple[str, str], ...]
    records: tuple[EntryRecord, ...]

    def record(self, qualname: str) -> EntryRecord | None:
        """The run's record of the entry ``qualname``, if it has one."""
        return next((r for r in self.records if r.qualname == qualname), None)

    def covers(self, qualname: str) -> bool:
        """Whether the run ran the module of the entry ``qualname`` at all."""
        module = qualname.rpartition(".")[0]
        return any(r.qualname.rpartition(".")[0] == module for r in self.records)

    def other_versions(self, versions: dict[str, str]) -> str:
        """``flax 0.12.10, jax 0.11.2``: the run's versions that are not ``versions``'s."""
        return ", ".join(
            f"{name} {version}"
            for name, version in sorted(self.versions)
            if versions.get(name) not in (None, version)
        )

    def summary(self) -> dict[str, Any]:
        """The run as ``errors.json`` lists it: its file, device, versions and size."""
        return {
            "source": self.source,
            "device": self.device.to_json(),
            "versions": dict(self.versions),
            "entries": len(self.records),
        }


def parse_run(text: str, source: str) -> DeviceRun:
    """Read a device run from its ``errors.json`` text; DeviceRunError names ``source``'s flaw."""
    try:
        data = json.loads(text)
    except ValueError as error:
        raise DeviceRunError(f"{source}: not JSON ({error})") from None
    if not isinstance(data, dict) or "entries" not in data:
        raise DeviceRunError(
            f"{source}: not an errors.json document (a JSON object with 'schema', "
            "'device', 'versions' and 'entries'; flax-errors check --json writes one)"
        )
    if data.get("schema") != SCHEMA_VERSION:
        raise DeviceRunError(
            f"{source}: errors.json schema {data.get('schema')!r}; this build reads "
            f"schema {SCHEMA_VERSION}"
        )
    device = Device.from_json(data.get("device"))
    if device is None:
        raise DeviceRunError(
            f"{source}: no device recorded ('device' is {data.get('device')!r}); a run "
            "whose examples executed records the JAX devices they ran on"
        )
    versions = data.get("versions", {})
    if not isinstance(versions, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in versions.items()
    ):
        raise DeviceRunError(f"{source}: 'versions' must map package names to versions")
    entries = data["entries"]
    if not isinstance(entries, list):
        raise DeviceRunError(f"{source}: 'entries' must be a list of entry records")
    records = []
    for number, item in enumerate(entries, 1):
        try:
            if not isinstance(item, dict):
                raise ValueError(f"not a JSON object: {item!r:.60}")
            records.append(EntryRecord.from_json(item))
        except ValueError as error:
            name = item.get("qualname", "?") if isinstance(item, dict) else "?"
            raise DeviceRunError(f"{source}: entry {number} ({name}): {error}") from None
    return DeviceRun(source, device, tuple(versions.items()), tuple(records))
