"""What the site says about the catalogue, and how it is organised for readers.

The records are the entries' :class:`~flax_errors_ext.model.runs.entry_record.EntryRecord`;
everything here is text and numbers, which the Sphinx side turns into nodes. The
areas, related errors and design notes are data, so that reorganising the site is
an edit here and nothing else. An error missing from :data:`AREAS` (one that Flax
adds tomorrow) is still listed, under :data:`OTHER`; another library's errors under
their module's area.
"""

from __future__ import annotations

import dataclasses
import datetime
import re
from collections import Counter, defaultdict
from typing import TYPE_CHECKING

from flax_errors_ext.model.catalogue.records import ExampleKind, first_paragraph

if TYPE_CHECKING:
    from collections.abc import Sequence

    from flax_errors_ext.model.catalogue.records import Example
    from flax_errors_ext.model.runs.entry_record import EntryRecord


@dataclasses.dataclass(frozen=True)
class Badge:
    """How a status shows on the site: a word, a colour, and what it promises."""

    label: str
    colour: str
    """A sphinx-design semantic colour (success, danger, info, warning, secondary)."""
    meaning: str


BADGES: dict[str, Badge] = {
    "passed": Badge(
        "verified", "success", "every example ran and printed exactly what is documented"
    ),
    "unreachable": Badge(
        "unreachable", "info", "this Flax cannot raise it; the evidence is checked instead"
    ),
    "failed": Badge(
        "drifted", "danger", "an example no longer does what is documented; see the entry"
    ),
    "malformed": Badge("malformed", "danger", "the entry's docstring breaks the format"),
    "undocumented": Badge("undocumented", "warning", "no examples yet"),
    "not-run": Badge("not run", "secondary", "examples were not executed in this build"),
}
"""Each status's badge (every :class:`EntryStatus` has one), most reassuring first: the
order the landing page counts them in."""


def verification_text(record: EntryRecord, also_on: Sequence[str] = ()) -> str:
    """What an entry's verification line says after its mark (passed) or badge (the rest).

    ``Verified on CPU · flax 0.12.8 · jax 0.10.2``: the versions by package name (a
    kernel reports them in another order than the cache key keeps them). No date, so
    that rebuilds from the cache give the same page. ``also_on`` names other devices
    whose runs saw the same.
    """
    places = [f"on {where}" for where in (record.device.label, *also_on)] if record.device else []
    on = f" {listed(places)}" if places else ""
    words = {
        "passed": f"Verified{on}",
        "unreachable": f"Evidence checked{on}",
        "failed": "An example no longer does what is documented" + (f" (run{on})" if on else ""),
        "malformed": "The docstring breaks the catalogue format",
        "undocumented": "No examples yet",
        "not-run": "Not run in this build: the outputs shown are the documented ones",
    }[record.status]
    return " · ".join([words, *(f"{name} {version}" for name, version in sorted(record.versions))])


def listed(items: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return " and ".join([", ".join(items[:-1]), items[-1]] if len(items) > 2 else items)


def first_screen(examples: Sequence[Example]) -> tuple[int, ...]:
    """Which examples an entry shows before any tab, by index, in the order shown.

    The first bad example, then the first good one: the wrong code and the fixed
    code one after the other. Every other example goes in the tabs below.
    """
    kinds = [example.kind for example in examples]
    return tuple(
        kinds.index(kind) for kind in (ExampleKind.BAD, ExampleKind.GOOD) if kind in kinds
    )


def evidence(examples: Sequence[Example]) -> int | None:
    """The index of the evidence an unreachable entry folds away, if it is one."""
    kinds = [example.kind for example in examples]
    if ExampleKind.BAD in kinds or ExampleKind.UNREACHABLE not in kinds:
        return None
    return kinds.index(ExampleKind.UNREACHABLE)


def caption(examples: Sequence[Example], kind: ExampleKind) -> str:
    """The first paragraph of the first ``kind`` example's description, as reST ("" if none)."""
    found = next((example for example in examples if example.kind is kind), None)
    return first_paragraph(found.description)[0] if found is not None else ""


def fix_text(examples: Sequence[Example]) -> str:
    """The one-line fix under an entry's headline: its first good example's caption.

    "" where the entry has no bad example (see :func:`lead_lines`).
    """
    if not any(example.kind is ExampleKind.BAD for example in examples):
        return ""
    return caption(examples, ExampleKind.GOOD)


def lead_lines(examples: Sequence[Example]) -> tuple[tuple[str, str], ...]:
    """The labelled one-liners under an entry's headline: ``(label, reST text)``.

    ``Fix:`` for an error that can be raised; for one that cannot, when it is and what to do.
    """
    if evidence(examples) is None:
        fix = fix_text(examples)
        return (("Fix:", fix),) if fix else ()
    lines = (
        ("When it is raised:", caption(examples, ExampleKind.UNREACHABLE)),
        ("What to do:", caption(examples, ExampleKind.GOOD)),
    )
    return tuple(line for line in lines if line[1])


@dataclasses.dataclass(frozen=True)
class Figures:
    """The catalogue at a glance, for the landing page."""

    entries: int
    statuses: tuple[tuple[str, int], ...]
    """(status, count), most reassuring first, zero counts left out."""
    device: str
    """Where the examples ran, or "" if nothing ran."""
    versions: str

    @property
    def executed(self) -> bool:
        """Whether any example ran, in this build or a cached one that still applies."""
        return bool(self.device)


def figures(records: Sequence[EntryRecord]) -> Figures:
    """Count the entries by status and say where they were checked."""
    counts = Counter(r.status.value for r in records)
    devices = [r.device for r in records if r.status != "not-run" and r.device is not None]
    versions = next((r.versions for r in records if r.versions), ())
    return Figures(
        entries=len(records),
        statuses=tuple((s, counts[s]) for s in BADGES if counts[s]),
        device=devices[0].label if devices else "",
        # By name, as each entry's line lists them: the same text cold or warm.
        versions=", ".join(f"{name} {version}" for name, version in sorted(versions)),
    )


_INLINE = re.compile(r"``(?P<literal>.+?)``|(?::[\w:.-]+:)?`(?P<ref>[^`]+?)`")
_REF_TARGET = re.compile(r"\s*<[^<>]*>$")


def inline_parts(text: str) -> list[tuple[str, bool]]:
    """Split a reST one-liner into (text, is_code) parts, for rendering without a parser.

    Only literals and roles become code, so the text can never become markup.
    """
    parts: list[tuple[str, bool]] = []
    position = 0
    for match in _INLINE.finditer(text):
        if match.start() > position:
            parts.append((text[position : match.start()], False))
        code = match["literal"] or _REF_TARGET.sub("", match["ref"]).lstrip("~!")
        parts.append((code, True))
        position = match.end()
    if position < len(text):
        parts.append((text[position:], False))
    return parts


def plain_text(text: str, code_mark: str = "") -> str:
    """ReST text without its inline markup; code parts wrapped in ``code_mark``."""
    return "".join(
        f"{code_mark}{part}{code_mark}" if code else part for part, code in inline_parts(text)
    )


def time_text(moment: datetime.datetime) -> str:
    """``2026-11-30 14:05 UTC``."""
    return moment.astimezone(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")


OTHER = "Other"

_FLAX = "flax.errors."
_OURS = "flax_errors_ext.errors."

_BY_AREA: dict[str, tuple[str, ...]] = {
    "Module definition": (
        "AssignSubModuleError",
        "CallCompactUnboundModuleError",
        "CallSetupUnboundModuleError",
        "CallShareScopeOnUnboundModuleError",
        "CallUnbindOnUnboundModuleError",
        "DescriptorAttributeError",
        "IncorrectPostInitOverrideError",
        "InvalidInstanceModuleError",
        "MultipleMethodsCompactError",
        "NameInUseError",
        "ReservedModuleAttributeError",
        "SetAttributeFrozenModuleError",
        "SetAttributeInModuleSetupError",
    ),
    "Scopes and variables": (
        "ApplyModuleInvalidMethodError",
        "ApplyScopeInvalidVariablesStructureError",
        "ApplyScopeInvalidVariablesTypeError",
        "InvalidFilterError",
        "InvalidRngError",
        "InvalidScopeError",
        "LazyInitError",
        "ModifyScopeVariableError",
        "ScopeCollectionNotFound",
        "ScopeParamNotFoundError",
        "ScopeParamShapeError",
        "ScopeVariableNotFoundError",
    ),
    "Transforms": (
        "JaxTransformError",
        "PartitioningUnspecifiedError",
        "TransformTargetError",
        "TransformedMethodReturnValueError",
    ),
    "Checkpointing and files": (
        "AlreadyExistsError",
        "InvalidCheckpointError",
        "MPACheckpointingRequiredError",
        "MPARestoreDataCorruptedError",
        "MPARestoreTargetRequiredError",
    ),
    "Cursors": ("CursorFindError", "TraverseTreeError"),
    "NNX": ("ImmutableVariableError", "TraceContextError"),
}

AREAS: dict[str, str] = {
    **{_FLAX + name: area for area, names in _BY_AREA.items() for name in names},
    _OURS + "JitPytreeError": "Errors added by flax-errors",
}
"""The area of each error, by full dotted name."""

MODULE_AREAS: dict[str, str] = {"jax.errors": "JAX: tracing and transformations"}
"""The area of every error of a module whose errors are not sorted one by one."""

AREA_ORDER: tuple[str, ...] = (
    *_BY_AREA,
    *MODULE_AREAS.values(),
    "Errors added by flax-errors",
    OTHER,
)
"""The order areas appear in on the index; any other area (a module's) comes after."""

_RELATED: tuple[tuple[str, ...], ...] = (
    # Calling into a Module that is not bound to variables.
    (
        "CallCompactUnboundModuleError",
        "CallSetupUnboundModuleError",
        "CallShareScopeOnUnboundModuleError",
        "CallUnbindOnUnboundModuleError",
        "InvalidScopeError",
    ),
    # Where attributes and submodules may be assigned.
    ("AssignSubModuleError", "SetAttributeFrozenModuleError", "SetAttributeInModuleSetupError"),
    ("ReservedModuleAttributeError", "NameInUseError"),
    ("ApplyModuleInvalidMethodError", "InvalidInstanceModuleError"),
    # What apply is given as variables.
    (
        "ApplyScopeInvalidVariablesStructureError",
        "ApplyScopeInvalidVariablesTypeError",
        "ScopeCollectionNotFound",
        "ScopeParamNotFoundError",
    ),
    ("ScopeParamNotFoundError", "ScopeParamShapeError"),
    # Which collections apply may change.
    ("InvalidFilterError", "ModifyScopeVariableError", "ScopeVariableNotFoundError"),
    # Modules and JAX transformations.
    (
        "JitPytreeError",
        "JaxTransformError",
        "TransformTargetError",
        "TransformedMethodReturnValueError",
    ),
    ("JitPytreeError", "TraceContextError"),
    (
        "InvalidCheckpointError",
        "MPACheckpointingRequiredError",
        "MPARestoreDataCorruptedError",
        "MPARestoreTargetRequiredError",
    ),
    ("AlreadyExistsError", "InvalidCheckpointError"),
    ("CursorFindError", "TraverseTreeError"),
    ("ImmutableVariableError", "TraceContextError"),
)
"""Groups of errors (by class name) that readers confuse or meet together, linked to each other."""

NOTES: dict[str, tuple[str, str]] = {
    _OURS + "JitPytreeError": (
        "jit_pytree_error_design",
        "Why JitPytreeError is not a pytree registration",
    ),
}
"""Design notes about an error: its docname and link text."""


def area_of(qualname: str) -> str:
    """The index area an error is listed under (another library's: its module's name)."""
    module = qualname.rpartition(".")[0]
    fallback = OTHER if module == _FLAX.rstrip(".") else module
    return AREAS.get(qualname) or MODULE_AREAS.get(module, fallback)


def area_rank(area: str) -> tuple[int, str]:
    """Where an area comes on the index: :data:`AREA_ORDER`, then any other by name."""
    return (AREA_ORDER.index(area), "") if area in AREA_ORDER else (len(AREA_ORDER), area)


def _related_map() -> dict[str, tuple[str, ...]]:
    full = {qualname.rpartition(".")[2]: qualname for qualname in AREAS}
    related: dict[str, set[str]] = defaultdict(set)
    for group in _RELATED:
        for name in group:
            related[name].update(other for other in group if other != name)
    return {full[name]: tuple(full[o] for o in sorted(others)) for name, others in related.items()}


RELATED: dict[str, tuple[str, ...]] = _related_map()
"""Each error's related errors, both ways round, sorted by class name."""


def related(qualname: str) -> tuple[str, ...]:
    """The errors an entry's "See also" names (some may not be in a given catalogue)."""
    return RELATED.get(qualname, ())
