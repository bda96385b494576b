"""What the site says about the catalogue, as text and numbers, and how it is organised."""

from __future__ import annotations

import dataclasses
import functools
import re
from collections import Counter, defaultdict
from typing import TYPE_CHECKING

from flax_errors_ext.model.catalogue.records import ExampleKind, first_paragraph

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from flax_errors_ext.model.catalogue.module_data import ModuleData
    from flax_errors_ext.model.catalogue.records import Example
    from flax_errors_ext.model.runs.entry_record import EntryRecord


@dataclasses.dataclass(frozen=True)
class Badge:
    """How a status shows on the site: a word, a colour, and what it promises."""

    label: str
    colour: str
    """A sphinx-design semantic colour."""
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
"""Each status's badge, most reassuring first (the landing page's order)."""


def verification_text(record: EntryRecord, also_on: Sequence[str] = ()) -> str:
    """An entry's verification line after its mark or badge; no date, so cached builds match."""
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
    """Which examples an entry shows before the tabs, by index: the first bad, then good one."""
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
    """The one-line fix under an entry's headline: the first good example's caption, if any bad."""
    bad = any(example.kind is ExampleKind.BAD for example in examples)
    return caption(examples, ExampleKind.GOOD) if bad else ""


def lead_lines(examples: Sequence[Example]) -> tuple[tuple[str, str], ...]:
    """The labelled one-liners under an entry's headline: ``(label, reST text)``."""
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
    """Split a reST one-liner into (text, is_code) parts: only literals and roles are code."""
    parts: list[tuple[str, bool]] = []
    position = 0
    for match in _INLINE.finditer(text):
        if match.start() > position:
            parts.append((text[position : match.start()], False))
        parts.append((match["literal"] or _REF_TARGET.sub("", match["ref"]).lstrip("~!"), True))
        position = match.end()
    if position < len(text):
        parts.append((text[position:], False))
    return parts


def plain_text(text: str, code_mark: str = "") -> str:
    """ReST text without its inline markup; code parts wrapped in ``code_mark``."""
    return "".join(
        f"{code_mark}{part}{code_mark}" if code else part for part, code in inline_parts(text)
    )


OTHER = "Other"


@dataclasses.dataclass(frozen=True)
class SiteData:
    """How the site sorts and links the errors: by the modules' data (their ``module.toml``)."""

    modules: Mapping[str, ModuleData]

    def area_of(self, qualname: str) -> str:
        """An error's index area: its module data's, else :data:`OTHER` (Flax's) or its module."""
        module, _, name = qualname.rpartition(".")
        data = self.modules.get(module)
        listed = next((a for a, names in data.areas if name in names), "") if data else ""
        fallback = OTHER if module == "flax.errors" else module
        return listed or (data.area if data else "") or fallback

    @functools.cached_property
    def order(self) -> tuple[str, ...]:
        """The areas the index puts first: of the modules with an ``order``, then :data:`OTHER`."""
        ranked = sorted(
            (data.order, module) for module, data in self.modules.items() if data.order is not None
        )
        datas = [self.modules[module] for _, module in ranked]
        areas = [area for data in datas for area in (*dict(data.areas), data.area) if area]
        return tuple(dict.fromkeys([*areas, OTHER]))

    def area_rank(self, area: str) -> tuple[int, str]:
        """Where an area comes on the index: :attr:`order`, then any other by name."""
        return (self.order.index(area), "") if area in self.order else (len(self.order), area)

    @functools.cached_property
    def _related(self) -> dict[str, tuple[str, ...]]:
        related: dict[str, set[str]] = defaultdict(set)
        for data in self.modules.values():
            for group in data.related:
                for qualname in group:
                    related[qualname].update(other for other in group if other != qualname)
        return {
            qualname: tuple(sorted(others, key=lambda other: (other.rpartition(".")[2], other)))
            for qualname, others in related.items()
        }

    def related(self, qualname: str) -> tuple[str, ...]:
        """The errors an entry's "See also" names, both ways round, by class name."""
        return self._related.get(qualname, ())

    def note(self, qualname: str) -> tuple[str, str] | None:
        """The docname and link text of a design note about an error, if it has one."""
        module, _, name = qualname.rpartition(".")
        data = self.modules.get(module)
        notes = data.notes if data is not None else ()
        return next(((doc, title) for n, doc, title in notes if n == name), None)
