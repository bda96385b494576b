"""Other runs that differ from this build alike, said once, each difference judged.

Two runs of the same versions (Python 3.11's stack on one CPU device and on eight)
that differ alike are one :class:`DifferingRuns`. A difference only in a link's page
or a line number (:mod:`~flax_errors_ext.ext.other_runs.model.incidental`) is a
clause of one sentence; one of other verdicts or words is shown with both texts.
Only the page groups them: in ``errors.json`` each run's outcome stays its own.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from flax_errors_ext.ext.other_runs.model.comparison import Agreement, normalised
from flax_errors_ext.ext.other_runs.model.incidental import Incidental, incidental

if TYPE_CHECKING:
    from collections.abc import Sequence

    from flax_errors_ext.ext.other_runs.model.comparison import DeviceOutcome, Difference
    from flax_errors_ext.ext.other_runs.model.incidental import PrintedLinks

_NOUNS = {"bad": "message", "good": "output"}


@dataclasses.dataclass(frozen=True)
class DifferingRuns:
    """Runs of the same versions that differ from this build in the same way."""

    outcomes: tuple[DeviceOutcome, ...]
    shown: tuple[Difference, ...] = ()
    """The differences a reader needs both texts of: other verdicts, other words."""
    incidental: tuple[tuple[Difference, Incidental], ...] = ()
    """The differences only in a link's page or a line number, with what differs."""

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
        return _joined([f"on {o.device.label}" for o in self.outcomes])

    def title(self) -> str:
        """``Differs on GPU (NVIDIA H200): bad example 1: passed in both, with other text``."""
        return f"Differs {self.phrase}: " + "; ".join(str(d) for d in self.shown)

    def sentence(self) -> str:
        """The incidental differences in one sentence; empty where there are none.

        ``Bad examples 1 and 2: the same message with flax 0.12.8, jax 0.10.2 on CPU
        \u00d78 and on CPU, except the page of its link (errors.html; 101/errors.html in
        this build) and a line number in flax/linen/module.py (bad example 2).``
        """
        if not self.incidental:
            return ""
        labels = [difference.example for difference, _ in self.incidental]
        clauses: dict[str, list[str]] = {}
        for difference, found in self.incidental:
            for clause in found.parts():
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
            f"except {_joined(said)}."
        )


def differing(
    outcomes: Sequence[DeviceOutcome], links: PrintedLinks | None = None
) -> list[DifferingRuns]:
    """A group per way the ``outcomes`` of one entry differ, in the order of its first run.

    ``links`` are the links the entry's errors print; None: only line numbers are
    incidental.
    """
    found: dict[tuple[object, ...], list[DeviceOutcome]] = {}
    for outcome in outcomes:
        if outcome.agreement is Agreement.DIFFERS:
            found.setdefault(_seen(outcome), []).append(outcome)
    return [_judged(tuple(group), links) for group in found.values()]


def _seen(outcome: DeviceOutcome) -> tuple[object, ...]:
    """What makes two runs' outcomes the same to a reader: versions, verdicts, texts."""
    return (
        outcome.versions,
        *(
            (d.example, d.here, d.there, normalised(d.text_here), normalised(d.text_there))
            for d in outcome.differences
        ),
    )


def _judged(outcomes: tuple[DeviceOutcome, ...], links: PrintedLinks | None) -> DifferingRuns:
    """The group, its differences told into those shown in full and the incidental ones."""
    shown: list[Difference] = []
    minor: list[tuple[Difference, Incidental]] = []
    for difference in outcomes[0].differences:
        here, there = normalised(difference.text_here), normalised(difference.text_there)
        found = incidental(here, there, links) if difference.here is difference.there else None
        if found is None:
            shown.append(difference)
        else:
            minor.append((difference, found))
    return DifferingRuns(outcomes, tuple(shown), tuple(minor))


def _labels(labels: Sequence[str]) -> str:
    """``bad examples 1 and 2, good example 1`` for the examples' labels."""
    numbers: dict[str, list[str]] = {}
    for label in labels:
        kind, _, number = label.rpartition(" ")
        numbers.setdefault(kind, []).append(number)
    return ", ".join(
        f"{kind}{'s' if len(found) > 1 else ''} {_joined(found)}"
        for kind, found in numbers.items()
    )


def _joined(parts: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    if len(parts) < 2:
        return "".join(parts)
    return f"{', '.join(parts[:-1])} and {parts[-1]}"
