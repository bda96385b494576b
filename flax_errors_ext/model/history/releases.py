"""Every entry's bad examples across Flax's releases (``history/flax.json``), and their spans."""

from __future__ import annotations

import dataclasses
import enum
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flax_errors_ext.model.runs.fingerprint import Device
from flax_errors_ext.model.runs.tracebacks import strip_tensorstore_notes

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence


SCHEMA = 1
SHIPPED = "shipped"
"""How ``flax_errors_history`` names the file shipped with this package."""
SHIPPED_HISTORY = Path(__file__).resolve().parents[2] / "history" / "flax.json"


def version_key(version: str) -> tuple[int, ...]:
    """``"0.10.7"`` as ``(0, 10, 7)``, so that 0.10 sorts after 0.9."""
    return tuple(int(match) for match in re.findall(r"\d+", version))


@enum.unique
class Outcome(enum.StrEnum):
    """What one bad example did on one release."""

    RAISED = "raised"
    """Exactly this entry's error."""
    RAISED_OTHER = "raised-other"
    NO_RAISE = "no-raise"
    COULD_NOT_RUN = "could-not-run"
    """An earlier statement raised, the process died or it timed out: the reason says which."""


@dataclasses.dataclass(frozen=True)
class Release:
    """Where a release's examples ran: the versions, the interpreter and the device."""

    flax: str
    jax: str
    jaxlib: str
    python: str
    device: Device | None = None


@dataclasses.dataclass(frozen=True)
class Substitution:
    """One exact text substitution made in an example's code before it ran."""

    old: str
    new: str

    def __str__(self) -> str:
        return f"{self.old} → {self.new}"


@dataclasses.dataclass(frozen=True)
class ExampleRun:
    """One bad example on one release."""

    code: str
    """The hash of the example's code (not of its ``rewritten`` code), so a rerun skips it."""
    outcome: Outcome
    exc_type: str = ""
    exc_text: str = ""
    """What it raised, as Python prints the exception's last line: ``Class: message``."""
    reason: str = ""
    rewritten: tuple[Substitution, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The record with its empty fields left out."""
        rewritten = [dataclasses.asdict(made) for made in self.rewritten]
        data = {**dataclasses.asdict(self), "rewritten": rewritten}
        return {key: value for key, value in data.items() if value}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ExampleRun:
        """Read an example's record."""
        texts = {key: str(data.get(key, "")) for key in ("exc_type", "exc_text", "reason")}
        made = (Substitution(str(s["old"]), str(s["new"])) for s in data.get("rewritten", ()))
        return cls(str(data["code"]), Outcome(data["outcome"]), **texts, rewritten=tuple(made))


@dataclasses.dataclass(frozen=True)
class EntryRun:
    """One entry on one release: whether ``flax.errors`` had the class, and its bad examples."""

    present: bool
    examples: tuple[ExampleRun, ...] = ()
    """One per bad example, in the catalogue file's order (none for an unreachable one)."""

    def runs_of(self, codes: Sequence[str]) -> tuple[ExampleRun, ...] | None:
        """The records of the examples with these code hashes, in order; None if one has none."""
        found = {example.code: example for example in self.examples}
        runs = tuple(found.get(code) for code in codes)
        return None if None in runs else tuple(run for run in runs if run is not None)

    def to_json(self) -> dict[str, Any]:
        """The entry's record."""
        return {"present": self.present, "examples": [e.to_json() for e in self.examples]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> EntryRun:
        """Read an entry's record."""
        examples = tuple(ExampleRun.from_json(e) for e in data.get("examples", ()))
        return cls(bool(data["present"]), examples)


@dataclasses.dataclass(frozen=True)
class ReleaseRun:
    """What one release did: its versions, the classes of its ``flax.errors``, each entry."""

    release: Release
    classes: tuple[str, ...]
    """Every exception class its ``flax.errors`` defined, catalogued or not."""
    entries: Mapping[str, EntryRun]
    """By class name (the catalogue file's stem)."""
    pace: float = 0.0
    """The seconds an entry took on its latest run (0: unknown), for estimates of time left."""

    def raisers(self, qualname: str) -> list[tuple[str, int, ExampleRun]]:
        """``(entry, index, run)`` of every example that raised ``qualname``, by entry."""
        return [
            (name, index, run)
            for name, row in sorted(self.entries.items())
            for index, run in enumerate(row.examples)
            if run.exc_type == qualname
        ]

    def to_json(self) -> dict[str, Any]:
        """The release's record, in one canonical order."""
        return {
            **dataclasses.asdict(self.release),
            "pace": round(self.pace, 2),
            "classes": sorted(self.classes),
            "entries": {name: self.entries[name].to_json() for name in sorted(self.entries)},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ReleaseRun:
        """Read a release's record (also what the runner writes for one run)."""
        versions = {key: str(data[key]) for key in ("flax", "jax", "jaxlib")}
        python, device = str(data.get("python", "")), Device.from_json(data.get("device"))
        release = Release(**versions, python=python, device=device)
        entries = {str(k): EntryRun.from_json(v) for k, v in data.get("entries", {}).items()}
        return cls(release, tuple(data.get("classes", ())), entries, float(data.get("pace", 0.0)))


@dataclasses.dataclass(frozen=True)
class History:
    """Every recorded release, oldest first: the content of ``flax.json``."""

    releases: tuple[ReleaseRun, ...] = ()
    module: str = "flax.errors"
    path: str = dataclasses.field(default="", compare=False)

    def to_json(self) -> dict[str, Any]:
        """The data as the file holds it, but the writer's summaries."""
        return {
            "schema": SCHEMA,
            "module": self.module,
            "releases": [r.to_json() for r in self.releases],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> History:
        """Read the file's data; ValueError if it was written in another layout."""
        if data.get("schema") != SCHEMA:
            raise ValueError(f"history schema {data.get('schema')!r}, expected {SCHEMA}")
        releases = (ReleaseRun.from_json(r) for r in data.get("releases", ()))
        ordered = sorted(releases, key=lambda r: version_key(r.release.flax))
        return cls(tuple(ordered), str(data.get("module", "flax.errors")))


_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
# An object's id as JAX's tracer-leak checker prints it: <DynamicJaxprTracer 1396766998>.
_OBJECT_ID = re.compile(r"(<[\w.]+ )\d{6,}>")
_TEMPORARY = re.compile(r"\btmp[\w-]{6,}")


def comparable(text: str) -> str:
    """``text`` without what changes from one run to the next.

    Addresses, object ids, temporary names, and TensorStore's spec and source lines.
    """
    # Temporary names first: ``tmpiw0x858c`` holds what looks like an address.
    text = _ADDRESS.sub("0x…", _TEMPORARY.sub("tmp…", strip_tensorstore_notes(text)))
    return _OBJECT_ID.sub(r"\1…>", text)


@dataclasses.dataclass(frozen=True)
class Span:
    """Consecutive recorded releases on which a bad example did the same."""

    first: str
    last: str
    outcome: Outcome
    present: bool
    text: str = ""
    """What was raised, or why it could not run."""

    @property
    def versions(self) -> str:
        """``0.8.5`` or ``0.6.11-0.7.5``."""
        return version_range(self.first, self.last)


def timelines(
    history: History, name: str, codes: tuple[str, ...] | None = None
) -> tuple[tuple[Span, ...], ...]:
    """Each bad example of ``name``'s spans, oldest first; ``codes``: only records of these."""
    recorded = [len(r.entries[name].examples) for r in history.releases if name in r.entries]
    count = len(codes) if codes is not None else max(recorded, default=0)
    found: list[list[Span]] = [[] for _ in range(count)]
    for record in history.releases:
        if (entry := record.entries.get(name)) is None:
            continue
        version = record.release.flax
        for index, run in enumerate(entry.examples[:count]):
            if codes is not None and run.code != codes[index]:
                continue
            text = run.reason if run.outcome is Outcome.COULD_NOT_RUN else run.exc_text
            span = Span(version, version, run.outcome, entry.present, text)
            spans = found[index]
            if spans and _same(spans[-1], span):
                spans[-1] = dataclasses.replace(spans[-1], last=version)
            else:
                spans.append(span)
    return tuple(tuple(spans) for spans in found)


@dataclasses.dataclass(frozen=True)
class Retired:
    """A class that ``flax.errors`` had in a recorded release and no longer has."""

    name: str
    first: str
    last: str
    gone_since: str
    """The first recorded release after ``last``."""
    texts: tuple[tuple[str, str], ...] = ()
    """``(release, text)`` for each wording an example saw it raise, oldest first."""


def retired(history: History) -> tuple[Retired, ...]:
    """The classes the newest recorded release lacks that an earlier one had."""
    versions = [r.release.flax for r in history.releases]
    newest = set(history.releases[-1].classes if history.releases else ())
    found = []
    for name in sorted({n for r in history.releases for n in r.classes} - newest):
        had = [r.release.flax for r in history.releases if name in r.classes]
        gone_since = versions[versions.index(had[-1]) + 1]
        texts: dict[str, tuple[str, str]] = {}
        for record in history.releases:
            for _, _, run in record.raisers(f"{history.module}.{name}"):
                texts.setdefault(comparable(run.exc_text), (record.release.flax, run.exc_text))
        found.append(Retired(name, had[0], had[-1], gone_since, tuple(texts.values())))
    return tuple(found)


def _same(a: Span, b: Span) -> bool:
    return (a.outcome, a.present, comparable(a.text)) == (b.outcome, b.present, comparable(b.text))


def version_range(first: str, last: str) -> str:
    """``0.8.5`` where ``first`` is ``last``, else ``0.6.11-0.7.5``."""
    return first if first == last else f"{first}-{last}"


def quote(text: str, limit: int) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
