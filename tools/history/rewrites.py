"""The bad examples as a past release runs them: exact substitutions for APIs that changed.

``nox -s history`` runs the catalogue's bad examples, written for the newest Flax
and jax, on old releases. Where an API they use changed (new-style keys from
``jax.random.key``, which Flax before 0.7 rejects), a rule of
``flax_errors_ext/history/rewrites.toml`` substitutes one exact text for another in
the statements' code, on the releases its version bounds name. Nothing is guessed:
an example that fails all the same stays "could not run", with its reason, and an
example's record lists the substitutions it ran with
(:attr:`~flax_errors_ext.model.history.releases.ExampleRun.rewritten`).

Pure: the table is parsed from its text; the runner and the nox session read the file.
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from typing import TYPE_CHECKING, Any

from flax_errors_ext.ext.history.model.cells import bad_examples
from flax_errors_ext.model.history.releases import Substitution, version_key

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from flax_errors_ext.model.catalogue.records import ErrorEntry, Example

_FIELDS = {"old", "new", "flax_from", "flax_below", "why"}
_VERSION = re.compile(r"\d+(\.\d+)*")


@dataclasses.dataclass(frozen=True)
class Rule:
    """One substitution and the Flax releases it is made for."""

    old: str
    """The exact text replaced, every occurrence of it in a statement's code."""
    new: str
    why: str
    """What changed, and what was measured: the table's comment, kept with the rule."""
    flax_from: str = ""
    """The first release it applies to ("": every release up to ``flax_below``)."""
    flax_below: str = ""
    """The first release it no longer applies to ("": every release from ``flax_from``)."""

    @property
    def substitution(self) -> Substitution:
        """What a record that ran with this rule keeps of it."""
        return Substitution(self.old, self.new)

    def applies_to(self, flax: str) -> bool:
        """Whether the rule is made on Flax ``flax`` (``flax_from <= flax < flax_below``)."""
        version = version_key(flax)
        if self.flax_from and version < version_key(self.flax_from):
            return False
        return not (self.flax_below and version >= version_key(self.flax_below))

    def __str__(self) -> str:
        bounds = [f">= {self.flax_from}"] if self.flax_from else []
        bounds += [f"< {self.flax_below}"] if self.flax_below else []
        return f"{self.substitution} (flax {', '.join(bounds) or 'any'})"


def parse_rules(text: str) -> tuple[Rule, ...]:
    """The ``[[rule]]`` tables of ``rewrites.toml``, in the file's order.

    Raises:
        ValueError: if the text is not TOML, or a rule has unknown or missing keys, an
            empty ``old``, ``new`` equal to ``old``, an empty ``why``, or a bound that
            is not a version.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"rewrites: {error}") from error
    if set(data) - {"rule"}:
        raise ValueError(f"rewrites: unknown tables {sorted(set(data) - {'rule'})}")
    return tuple(_rule(number, item) for number, item in enumerate(data.get("rule", ()), 1))


def _rule(number: int, item: Any) -> Rule:
    where = f"rewrites: rule {number}"
    if not isinstance(item, dict):
        raise ValueError(f"{where} is not a table")
    if set(item) - _FIELDS:
        raise ValueError(f"{where}: unknown keys {sorted(set(item) - _FIELDS)}")
    if not all(isinstance(value, str) for value in item.values()):
        raise ValueError(f"{where}: every value must be a string")
    rule = Rule(
        item.get("old", ""),
        item.get("new", ""),
        item.get("why", "").strip(),
        item.get("flax_from", ""),
        item.get("flax_below", ""),
    )
    if not rule.old:
        raise ValueError(f"{where}: no `old` text")
    if "new" not in item or rule.new == rule.old:
        raise ValueError(f"{where}: `new` must be given and differ from `old`")
    if not rule.why:
        raise ValueError(f"{where} ({rule.substitution}): no `why`")
    for bound in (rule.flax_from, rule.flax_below):
        if bound and not _VERSION.fullmatch(bound):
            raise ValueError(f"{where}: {bound!r} is not a version")
    return rule


def rules_for(rules: Iterable[Rule], flax: str) -> tuple[Rule, ...]:
    """The rules made on Flax ``flax``, in the table's order."""
    return tuple(rule for rule in rules if rule.applies_to(flax))


def rewrite(example: Example, rules: Sequence[Rule]) -> tuple[Example, tuple[Substitution, ...]]:
    """``example`` with ``rules`` made in its code, and the substitutions that changed it.

    Each rule in turn replaces every occurrence of its text in each statement that
    runs (skipped ones are left alone); a rule whose text is in no such statement
    is not listed. Only the code changes: the documented texts, the options and the
    locations stay the catalogue's.
    """
    statements = list(example.statements)
    made: list[Substitution] = []
    for rule in rules:
        hit = False
        for index, statement in enumerate(statements):
            if not statement.skip and rule.old in statement.source:
                source = statement.source.replace(rule.old, rule.new)
                statements[index] = dataclasses.replace(statement, source=source)
                hit = True
        if hit:
            made.append(rule.substitution)
    if not made:
        return example, ()
    return dataclasses.replace(example, statements=tuple(statements)), tuple(made)


def entry_rewrites(
    entries: Iterable[ErrorEntry], rules: Sequence[Rule]
) -> dict[str, tuple[tuple[Substitution, ...], ...]]:
    """The substitutions each bad example of each entry runs with under ``rules``.

    By class name, one tuple per bad example: with the code hashes
    (:func:`~flax_errors_ext.ext.history.model.cells.entry_codes`), what a record must match
    to count as done (:func:`~tools.history.plan.pending`).
    """
    return {
        entry.name: tuple(rewrite(example, rules)[1] for example in bad_examples(entry))
        for entry in entries
    }
