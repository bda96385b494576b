"""Every catalogue entry's bad examples across Flax's releases, as data.

``nox -s history`` runs each entry's bad examples in a venv per Flax release
(``flax_errors_ext/execution/history/release_runner.py``) and keeps what happened in
``flax_errors_ext/history/flax.json``. This module is that file's model: the typed
records, their one JSON form, judging one run, merging a release's run into the
data, and which (release, entry) pairs still need a run. Each example's record
carries a hash of its code and the substitutions it ran with on that release (the
rules of ``flax_errors_ext/history/rewrites.toml``:
:mod:`~flax_errors_ext.model.history.rewrites`), so that a rerun runs only what
changed.
:mod:`~flax_errors_ext.model.history.timeline` reads the data into summaries.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flax_errors_ext.model.catalogue.records import ErrorEntry, Example, ExampleKind
from flax_errors_ext.model.runs.fingerprint import Device
from flax_errors_ext.model.runs.tracebacks import strip_jax_note, strip_roots

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Mapping, Sequence

    from flax_errors_ext.model.catalogue.records import StatementRun

SCHEMA = 1
"""The version of the file's layout; bumped when the runner records differently."""
SHIPPED = "shipped"
"""How ``flax_errors_history`` names the file shipped with this package."""
SHIPPED_HISTORY = Path(__file__).resolve().parents[2] / "history" / "flax.json"
"""The history shipped with this package: ``flax.errors`` on Flax 0.4 to 0.12."""


def version_key(version: str) -> tuple[int, ...]:
    """``"0.10.7"`` as ``(0, 10, 7)``, so that 0.10 sorts after 0.9."""
    return tuple(int(match) for match in re.findall(r"\d+", version))


class Outcome(enum.StrEnum):
    """What one bad example did on one release."""

    RAISED = "raised"
    """Its last statement raised exactly this entry's error."""
    RAISED_OTHER = "raised-other"
    """Its last statement raised another exception (kept, with its text)."""
    NO_RAISE = "no-raise"
    """Every statement ran and none raised."""
    COULD_NOT_RUN = "could-not-run"
    """An earlier statement raised (an API that did not exist yet), the process died or
    it timed out; the reason says which."""


@dataclasses.dataclass(frozen=True)
class Pin:
    """A release to run, as ``releases.toml`` lists it."""

    flax: str
    jax: str
    jaxlib: str


@dataclasses.dataclass(frozen=True)
class Release:
    """Where a release's examples ran: the versions, the interpreter and the device."""

    flax: str
    jax: str
    jaxlib: str
    python: str
    device: Device | None = None

    @property
    def pin(self) -> Pin:
        """The versions alone, to compare with the planned ones."""
        return Pin(self.flax, self.jax, self.jaxlib)

    def to_json(self) -> dict[str, Any]:
        """The release as the file records it."""
        return {
            "flax": self.flax,
            "jax": self.jax,
            "jaxlib": self.jaxlib,
            "python": self.python,
            "device": self.device.to_json() if self.device else None,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Release:
        """Read a release record."""
        return cls(
            str(data["flax"]),
            str(data["jax"]),
            str(data["jaxlib"]),
            str(data.get("python", "")),
            Device.from_json(data.get("device")),
        )


@dataclasses.dataclass(frozen=True)
class Substitution:
    """One exact text substitution made in an example's code before it ran."""

    old: str
    new: str

    def __str__(self) -> str:
        return f"{self.old} → {self.new}"

    def to_json(self) -> dict[str, str]:
        """The substitution as the file records it."""
        return {"old": self.old, "new": self.new}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Substitution:
        """Read a substitution's record."""
        return cls(str(data["old"]), str(data["new"]))


@dataclasses.dataclass(frozen=True)
class ExampleRun:
    """One bad example on one release."""

    code: str
    """The hash of the example's code (:func:`code_hash`) when it ran."""
    outcome: Outcome
    exc_type: str = ""
    """The dotted class of what the last statement raised (raised, raised-other)."""
    exc_text: str = ""
    """What it raised, as Python prints the exception's last line: ``Class: message``."""
    reason: str = ""
    """Why it could not run: the statement and the exception that stopped it, or the
    process's end."""
    rewritten: tuple[Substitution, ...] = ()
    """The substitutions made in its code before it ran on this release, in the order
    made (none: it ran as the catalogue has it). ``code`` stays the catalogue code's."""

    def to_json(self) -> dict[str, Any]:
        """The record with its empty fields left out."""
        data: dict[str, Any] = {"code": self.code, "outcome": self.outcome.value}
        for key in ("exc_type", "exc_text", "reason"):
            if getattr(self, key):
                data[key] = getattr(self, key)
        if self.rewritten:
            data["rewritten"] = [s.to_json() for s in self.rewritten]
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ExampleRun:
        """Read an example's record."""
        return cls(
            str(data["code"]),
            Outcome(data["outcome"]),
            str(data.get("exc_type", "")),
            str(data.get("exc_text", "")),
            str(data.get("reason", "")),
            tuple(Substitution.from_json(s) for s in data.get("rewritten", ())),
        )


@dataclasses.dataclass(frozen=True)
class EntryRun:
    """One entry on one release: whether ``flax.errors`` had the class, and its bad examples."""

    present: bool
    examples: tuple[ExampleRun, ...] = ()
    """One per bad example, in the catalogue file's order (none for an unreachable one)."""

    @property
    def codes(self) -> tuple[str, ...]:
        """The code hashes its examples ran with."""
        return tuple(example.code for example in self.examples)

    @property
    def rewrites(self) -> tuple[tuple[Substitution, ...], ...]:
        """The substitutions each of its examples ran with."""
        return tuple(example.rewritten for example in self.examples)

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
    """The seconds an entry took on its latest run (0: unknown): what estimates of the
    time left go by."""

    def to_json(self) -> dict[str, Any]:
        """The release's record, in one canonical order."""
        return {
            **self.release.to_json(),
            "pace": round(self.pace, 2),
            "classes": sorted(self.classes),
            "entries": {name: self.entries[name].to_json() for name in sorted(self.entries)},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ReleaseRun:
        """Read a release's record (also what the runner writes for one run)."""
        entries = {str(k): EntryRun.from_json(v) for k, v in data.get("entries", {}).items()}
        classes = tuple(data.get("classes", ()))
        return cls(Release.from_json(data), classes, entries, float(data.get("pace", 0.0)))


@dataclasses.dataclass(frozen=True)
class History:
    """Every recorded release, oldest first: the content of ``flax.json``."""

    releases: tuple[ReleaseRun, ...] = ()
    module: str = "flax.errors"

    def release(self, flax: str) -> ReleaseRun | None:
        """The record of Flax ``flax``, if there is one."""
        return next((r for r in self.releases if r.release.flax == flax), None)

    def merged(self, run: ReleaseRun) -> History:
        """The history with ``run`` recorded.

        A run of a release already recorded with the same jax and jaxlib adds to it
        (entries not in ``run`` are kept); with other versions it replaces it.
        """
        old = self.release(run.release.flax)
        if old is not None and old.release.pin == run.release.pin:
            pace = run.pace if run.entries else old.pace
            run = dataclasses.replace(run, entries={**old.entries, **run.entries}, pace=pace)
        others = [r for r in self.releases if r.release.flax != run.release.flax]
        ordered = sorted([*others, run], key=lambda r: version_key(r.release.flax))
        return dataclasses.replace(self, releases=tuple(ordered))

    def pending(
        self,
        plan: Sequence[Pin],
        codes: Mapping[str, tuple[str, ...]],
        rewrites: Mapping[str, Mapping[str, tuple[tuple[Substitution, ...], ...]]] | None = None,
    ) -> dict[str, tuple[str, ...]]:
        """The entries each planned release must run: ``{flax version: names}``.

        An entry runs where it has no record, or one whose code hashes differ from
        ``codes`` (its bad examples now; :func:`entry_codes`), or whose examples ran
        with other substitutions than ``rewrites`` makes there now (by flax version,
        then by entry, one tuple per bad example;
        :func:`~flax_errors_ext.model.history.rewrites.entry_rewrites`; none where
        left out); every entry runs where the release is recorded with another jax or
        jaxlib. Releases with nothing to run are left out, so an empty result means
        that nothing changed.
        """
        todo: dict[str, tuple[str, ...]] = {}
        for pin in plan:
            recorded = self.release(pin.flax)
            if recorded is None or recorded.release.pin != pin:
                names = tuple(sorted(codes))
            else:
                entries = recorded.entries
                made = (rewrites or {}).get(pin.flax, {})
                names = tuple(
                    name
                    for name in sorted(codes)
                    if name not in entries
                    or entries[name].codes != codes[name]
                    or entries[name].rewrites != made.get(name, ((),) * len(codes[name]))
                )
            if names:
                todo[pin.flax] = names
        return todo

    def seconds_left(self, todo: Mapping[str, Sequence[str]]) -> float | None:
        """About how long running ``todo`` (:meth:`pending`) takes; None if no pace is known.

        A release goes at its recorded pace; one not recorded yet, at the slowest
        recorded.
        """
        paces = [r.pace for r in self.releases if r.pace]
        if not paces:
            return None
        total = 0.0
        for flax, names in todo.items():
            recorded = self.release(flax)
            total += len(names) * (recorded.pace if recorded and recorded.pace else max(paces))
        return total

    def to_json(self) -> dict[str, Any]:
        """The data as the file holds it (the summaries are added by the writer)."""
        return {
            "schema": SCHEMA,
            "module": self.module,
            "releases": [r.to_json() for r in self.releases],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> History:
        """Read the file's data.

        Raises:
            ValueError: if it was written in another layout.
        """
        if data.get("schema") != SCHEMA:
            raise ValueError(f"history schema {data.get('schema')!r}, expected {SCHEMA}")
        releases = (ReleaseRun.from_json(r) for r in data.get("releases", ()))
        ordered = sorted(releases, key=lambda r: version_key(r.release.flax))
        return cls(tuple(ordered), str(data.get("module", "flax.errors")))


def bad_examples(entry: ErrorEntry) -> tuple[Example, ...]:
    """The examples the history runs: the entry's own bad examples."""
    return tuple(e for e in entry.examples if e.kind is ExampleKind.BAD)


def code_hash(example: Example) -> str:
    """A hash of the code an example runs: its statements' sources, not their texts.

    A reworded documented message leaves it alone (the record keeps what was raised);
    any change to what runs changes it.
    """
    digest = hashlib.sha256()
    for statement in example.statements:
        if not statement.skip:
            digest.update(statement.source.encode("utf-8") + b"\0")
    return digest.hexdigest()[:16]


def entry_codes(entries: Iterable[ErrorEntry]) -> dict[str, tuple[str, ...]]:
    """Each entry's bad examples' code hashes, by class name."""
    return {entry.name: tuple(code_hash(e) for e in bad_examples(entry)) for entry in entries}


def judge_run(
    example: Example,
    runs: Sequence[StatementRun] | None,
    accepted: Collection[str],
    failure: str = "",
    roots: Iterable[str] = (),
    rewritten: Iterable[Substitution] = (),
) -> ExampleRun:
    """What one run of a bad example did.

    Args:
        example: The bad example.
        runs: One record per statement that is not skipped; None if the process
            died or timed out.
        accepted: The dotted names that count as this entry's error
            (``flax.errors.X``, and the class's own path if it lives elsewhere).
        failure: Why there are no runs (with ``runs`` None).
        roots: Folders the process imported from; paths under them are written
            relative to them (``flax/__init__.py``), so no machine's folders are kept.
        rewritten: The substitutions made in the example's code before it ran (the
            record keeps them; ``example`` is the catalogue's, whose code it hashes).
    """
    made = tuple(rewritten)
    run = _judged(code_hash(example), example, runs, accepted, failure, tuple(roots))
    return dataclasses.replace(run, rewritten=made) if made else run


def _judged(
    code: str,
    example: Example,
    runs: Sequence[StatementRun] | None,
    accepted: Collection[str],
    failure: str,
    folders: tuple[str, ...],
) -> ExampleRun:
    if runs is None:
        return ExampleRun(code, Outcome.COULD_NOT_RUN, reason=failure or "it did not run")
    chosen = [s for s in example.statements if not s.skip]
    if len(runs) != len(chosen):
        why = f"{len(runs)} of its {len(chosen)} statements reported back"
        return ExampleRun(code, Outcome.COULD_NOT_RUN, reason=why)
    for number, (statement, run) in enumerate(zip(chosen[:-1], runs[:-1], strict=True), 1):
        if run.exc_msg is not None and statement.exc_msg is None:
            why = f"statement {number} of {len(chosen)} raised {_exception(run.exc_msg, folders)}"
            return ExampleRun(code, Outcome.COULD_NOT_RUN, reason=why)
    last = runs[-1]
    if last.exc_msg is None:
        return ExampleRun(code, Outcome.NO_RAISE)
    exc_type = last.exc_type or _exception(last.exc_msg, folders).split(":", 1)[0]
    outcome = Outcome.RAISED if exc_type in accepted else Outcome.RAISED_OTHER
    return ExampleRun(code, outcome, exc_type, _exception(last.exc_msg, folders))


def _exception(text: str, roots: tuple[str, ...]) -> str:
    return strip_roots(strip_jax_note(text), roots).strip("\n")
