"""Other runs that differ alike, said once: a sentence where only a link's page or line differs."""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING

from flax_errors_ext.ext.other_runs.model.comparison import Agreement, normalised
from flax_errors_ext.layout import PAGE_SUFFIX
from flax_errors_ext.model.site.texts import listed

if TYPE_CHECKING:
    from collections.abc import Sequence

    from flax_errors_ext.ext.other_runs.model.comparison import DeviceOutcome, Difference
    from flax_errors_ext.layout import SiteLayout

# What a difference may be in and still be incidental, each as the text before, the
# value set aside (named ``value``; a line number's file ``file``) and the text after:
# a traceback's ``File "x.py", line 12`` (first: its file is not followed by ``:line``)
# and ``flax/linen/module.py:2089``.
_LINES = (
    re.compile(r"(?P<before>File \"(?P<file>[^\"]+)\", line )(?P<value>\d+)(?P<after>)"),
    re.compile(
        r"(?<![\w.\\/-])(?P<before>(?P<file>[^\s\"'<>():]*\.(?:py|pyx|pyi|c|cc|cpp|h)):)"
        r"(?P<value>\d+)(?P<after>)\b"
    ),
)
_MASK = "\x00"  # what is set aside; no text a run records holds it
_NOUNS = {"bad": "message", "good": "output"}


@dataclasses.dataclass(frozen=True)
class PrintedLinks:
    """The links a module's errors print to their anchors on the site at ``base``."""

    layout: SiteLayout
    module: str
    base: str

    def pattern(self, text: str) -> re.Pattern[str] | None:
        """The links in ``text`` whose page is incidental, the page as ``value``; None: none."""
        linked = self.layout.linked_pages(self.base, self.module, text)
        forwarded = self.layout.forwards(self.module, linked)
        page = self.layout.module_page(self.module)
        pages = sorted((p for p in linked if forwarded.get(p, p) == page), key=len, reverse=True)
        if not pages:
            return None
        return re.compile(
            f"(?P<before>{re.escape(self.base.rstrip('/') + '/')})"
            f"(?P<value>{'|'.join(re.escape(p) for p in pages)})"
            f"(?P<after>{re.escape(f'{PAGE_SUFFIX}#{self.module}.')})"
        )


@dataclasses.dataclass(frozen=True)
class DifferingRuns:
    """Runs of the same versions that differ from this build in the same way."""

    outcomes: tuple[DeviceOutcome, ...]
    shown: tuple[Difference, ...] = ()
    """The differences a reader needs both texts of: other verdicts, other words."""
    incidental: tuple[tuple[Difference, tuple[str, ...]], ...] = ()
    """The differences only in a link's page or a line number, with a clause per what differs."""

    @property
    def phrase(self) -> str:
        """``with flax 0.12.8, jax 0.10.2 on CPU \u00d78 and on CPU``; one run's own phrase."""
        first = self.outcomes[0]
        if len(self.outcomes) == 1:
            return first.phrase
        return f"with {first.versions} {self.there}" if first.versions else self.there

    @property
    def there(self) -> str:
        """Where the other texts were seen, to label them (the title names the versions)."""
        first = self.outcomes[0]
        if len(self.outcomes) == 1 and first.same_device:
            return first.phrase
        return listed([f"on {o.device.label}" for o in self.outcomes])

    def title(self) -> str:
        """``Differs on GPU (NVIDIA H200): bad example 1: passed in both, with other text``."""
        return f"Differs {self.phrase}: " + "; ".join(str(d) for d in self.shown)

    def sentence(self) -> str:
        """``Bad example 1: the same message on CPU, except a line number in x.py.``, or ""."""
        if not self.incidental:
            return ""
        labels = [difference.example for difference, _ in self.incidental]
        clauses: dict[str, list[str]] = {}
        for difference, found in self.incidental:
            for clause in found:
                clauses.setdefault(clause, []).append(difference.example)
        said = [
            clause if where == labels else f"{clause} ({_labels(where)})"
            for clause, where in clauses.items()
        ]
        kinds = {label.partition(" ")[0] for label in labels}
        noun = _NOUNS.get(kinds.pop(), "text") if len(kinds) == 1 else "text"
        named = _labels(labels)
        return (
            f"{named[:1].upper()}{named[1:]}: the same {noun} {self.phrase}, "
            f"except {listed(said)}."
        )


def differing(
    outcomes: Sequence[DeviceOutcome], links: PrintedLinks | None = None
) -> list[DifferingRuns]:
    """A group per way the ``outcomes`` of one entry differ, in the order of its first run."""
    found: dict[tuple[object, ...], list[DeviceOutcome]] = {}
    for outcome in outcomes:
        if outcome.agreement is Agreement.DIFFERS:
            seen = [
                (d.example, d.here, d.there, normalised(d.text_here), normalised(d.text_there))
                for d in outcome.differences
            ]
            found.setdefault((outcome.versions, *seen), []).append(outcome)
    groups = []
    for group in found.values():
        shown: list[Difference] = []
        minor: list[tuple[Difference, tuple[str, ...]]] = []
        for difference in group[0].differences:
            here, there = normalised(difference.text_here), normalised(difference.text_there)
            clauses = (
                incidental(here, there, links) if difference.here is difference.there else None
            )
            if clauses is None:
                shown.append(difference)
            else:
                minor.append((difference, clauses))
        groups.append(DifferingRuns(tuple(group), tuple(shown), tuple(minor)))
    return groups


def incidental(here: str, there: str, links: PrintedLinks | None = None) -> tuple[str, ...] | None:
    """How ``here`` and ``there`` differ, a clause each, if only incidentally; else None."""
    if here == there:
        return None
    patterns = [links.pattern(f"{here}\n{there}") if links is not None else None, *_LINES]
    mine, my_values = _set_aside(here, patterns)
    theirs, their_values = _set_aside(there, patterns)
    if mine != theirs:
        return None
    pairs = zip(my_values, their_values, strict=True)
    changed = [(file, t, h) for (file, h), (_, t) in pairs if h != t]
    clauses = [
        f"the page of its link ({t}{PAGE_SUFFIX}; {h}{PAGE_SUFFIX} in this build)"
        for file, t, h in changed
        if not file
    ]
    clauses += [f"a line number in {file}" for file, _, _ in changed if file]
    return tuple(dict.fromkeys(clauses))


def _set_aside(
    text: str, patterns: Sequence[re.Pattern[str] | None]
) -> tuple[str, list[tuple[str, str]]]:
    found: list[tuple[str, str]] = []

    def aside(match: re.Match[str]) -> str:
        found.append((match.groupdict().get("file") or "", match["value"]))
        return f"{match['before']}{_MASK}{match['after']}"

    for pattern in patterns:
        if pattern is not None:
            text = pattern.sub(aside, text)
    return text, found


def _labels(labels: Sequence[str]) -> str:
    """``bad examples 1 and 2, good example 1`` for the examples' labels."""
    numbers: dict[str, list[str]] = {}
    for label in labels:
        kind, _, number = label.rpartition(" ")
        numbers.setdefault(kind, []).append(number)
    return ", ".join(
        f"{kind}{'s' if len(found) > 1 else ''} {listed(found)}" for kind, found in numbers.items()
    )
