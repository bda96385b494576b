"""Plan the rewrite of drifted documented text (keeping its layout and an author's ``...``)."""

from __future__ import annotations

import dataclasses
import difflib
import doctest
import io
import re
import tokenize
from typing import TYPE_CHECKING

from flax_errors_ext.model.catalogue.records import Example, Verdict
from flax_errors_ext.model.runs.judge import OPTION_FLAGS, judge, statement_flags
from flax_errors_ext.model.runs.output_limit import is_cut

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from flax_errors_ext.model.catalogue.records import (
        ExampleResult,
        Location,
        Statement,
        StatementRun,
    )

_WORD = re.compile(r"(\S+)(\s*)")
_ELLIPSIS = doctest.ELLIPSIS_MARKER
_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{6,}\b")
_checker = doctest.OutputChecker()


class UpdateError(Exception):
    """The documented text cannot be rewritten as planned; nothing was written."""


@dataclasses.dataclass(frozen=True)
class Edit:
    """Replace the documented text of one statement; lines without the prompt's indentation."""

    location: Location
    """The statement's ``>>>`` line."""
    start: int
    old: tuple[str, ...]
    new: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.location.path}:{self.start}"


@dataclasses.dataclass(frozen=True)
class Skip:
    """A failing statement that rewriting its text cannot fix."""

    location: Location
    reason: str

    def __str__(self) -> str:
        return f"{self.location}: {self.reason}"


def plan(results: Iterable[ExampleResult]) -> tuple[list[Edit], list[Skip]]:
    """The edits that make the documented text match the runs, and what they cannot fix."""
    edits: list[Edit] = []
    skips: list[Skip] = []
    for result in results:
        if result.verdict is Verdict.PASSED:
            continue
        for statement, run in zip(result.example.statements_run, result.runs, strict=False):
            alone = Example(result.example.kind, (statement,), "", statement.location)
            verdict = judge(alone, (run,))
            if verdict.verdict is Verdict.PASSED:
                continue
            if verdict.verdict is not Verdict.DRIFTED:  # what follows ran in another state
                reason = f"{verdict.verdict.value}: {verdict.detail}; only drifted text is updated"
                skips.append(Skip(statement.location, reason))
                break
            try:
                edits.append(_edit(statement, run))
            except UpdateError as error:
                skips.append(Skip(statement.location, str(error)))
        else:  # no failure but drift; did every statement run?
            if len(result.runs) < len(result.example.statements_run):
                skips.append(Skip(result.location, f"{result.verdict.value}: {result.detail}"))
    return edits, skips


def _edit(statement: Statement, run: StatementRun) -> Edit:
    if statement.want_line <= 0:
        raise UpdateError("the parser did not record where the documented text is")
    if statement.exc_msg is not None:
        documented, actual = statement.exc_msg, run.exc_msg or ""
        # The tail of the documented traceback: the lines above stay as written.
        start = statement.want_line + statement.want.count("\n") - documented.count("\n")
    else:
        documented, actual, start = statement.want, run.got, statement.want_line
    if is_cut(actual):
        raise UpdateError(
            "the output was cut to flax_errors_output_limit; raise the limit to update it"
        )
    new = rewrite(documented, actual, statement_flags(statement))
    return Edit(statement.location, start, tuple(documented.splitlines()), tuple(new.splitlines()))


def rewrite(documented: str, actual: str, flags: int = OPTION_FLAGS) -> str:
    """Documented text that matches ``actual`` and keeps as much of ``documented`` as can."""
    if _checker.check_output(documented, actual, flags):
        return documented
    trailing = documented.rstrip().endswith(_ELLIPSIS)
    for candidate in (_merge(documented, actual, flags), _as_output(actual)):
        if trailing and not candidate.rstrip().endswith(_ELLIPSIS):
            candidate = candidate.rstrip() + _ELLIPSIS + "\n"  # noqa: PLW2901 - the variant to try
        if _checker.check_output(candidate, actual, flags):
            return candidate
    raise UpdateError(f"cannot write {actual!r} as documented output that doctest would accept")


_Token = tuple[str, str]
"""A word and the whitespace after it."""


def _tokens(text: str) -> tuple[str, list[_Token]]:
    lead = text[: len(text) - len(text.lstrip())]
    return lead, [(m.group(1), m.group(2)) for m in _WORD.finditer(text)]


def _merge(documented: str, actual: str, flags: int) -> str:
    lead, doc = _tokens(documented)
    _, act = _tokens(actual)
    matcher = difflib.SequenceMatcher(None, [w for w, _ in doc], [w for w, _ in act], False)
    merged: list[_Token] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        ours, theirs = doc[i1:i2], act[j1:j2]
        if tag == "equal":
            merged += [(word, _space(space, theirs[k][1])) for k, (word, space) in enumerate(ours)]
        elif ours and _checker.check_output(_words(ours), _words(theirs), flags):
            merged += ours  # the old words still match the new ones (they hold an ...)
        elif i2 == len(doc) and j2 == len(act) and ours and ours[-1][0].endswith(_ELLIPSIS):
            merged += _cut_tail(ours, theirs)
        elif len(ours) == len(theirs):
            # Word for word: the new words take the old places, line breaks and all.
            merged += [(word, _space(ours[k][1], space)) for k, (word, space) in enumerate(theirs)]
        else:
            merged += theirs
    return _as_output(lead + "".join(word + space for word, space in merged))


def _words(tokens: Sequence[_Token]) -> str:
    return " ".join(word for word, _ in tokens) + "\n"


def _space(documented: str, actual: str) -> str:
    return actual if actual.count("\n") > documented.count("\n") else documented


def _cut_tail(ours: Sequence[_Token], theirs: Sequence[_Token]) -> list[_Token]:
    last_word, last_space = ours[-1]
    standalone = last_word == _ELLIPSIS
    kept = list(ours[:-1]) if standalone else [*ours[:-1], (last_word[: -len(_ELLIPSIS)], "")]
    target = " ".join(word for word, _ in kept if word)
    best = max(
        range(len(theirs) + 1),
        key=lambda k: difflib.SequenceMatcher(
            None, target, " ".join(w for w, _ in theirs[:k])
        ).ratio(),
    )
    cut = list(theirs[:best])
    if standalone:
        if cut:
            cut[-1] = (cut[-1][0], ours[-2][1] if len(ours) > 1 else " ")
        return [*cut, (_ELLIPSIS, last_space)]
    if not cut:
        return [(_ELLIPSIS, last_space)]
    cut[-1] = (cut[-1][0] + _ELLIPSIS, last_space)
    return cut


def _as_output(text: str) -> str:
    lines = [line.rstrip() for line in text.rstrip().split("\n")]
    if lines == [""]:
        return ""
    return "".join((line or doctest.BLANKLINE_MARKER) + "\n" for line in lines)


def apply_each(text: str, edits: Sequence[Edit], *, python: bool) -> tuple[str, list[Skip]]:
    """``text`` with ``edits`` made bottom-up (or skipped); the rest stays byte for byte."""
    lines = io.StringIO(text, newline="").readlines()
    skips: list[Skip] = []
    below = len(lines) + 1
    for edit in sorted(edits, key=lambda e: e.start, reverse=True):
        if edit.start + len(edit.old) > below:
            skips.append(Skip(edit.location, f"{edit}: overlaps another edit"))
            continue
        try:
            lines[edit.start - 1 : edit.start - 1 + len(edit.old)] = _replacement(
                lines, text, edit, python=python
            )
        except UpdateError as error:
            skips.append(Skip(edit.location, str(error)))
        else:
            below = edit.start
    return "".join(lines), skips


def _replacement(lines: list[str], text: str, edit: Edit, *, python: bool) -> list[str]:
    prompt = _line(lines, edit.location.line, edit)
    indent = prompt[: len(prompt) - len(prompt.lstrip())]
    if not prompt.lstrip().startswith(">>>"):
        raise UpdateError(f"{edit.location}: expected a '>>>' statement here")
    raw = _raw_string(text, edit.location.line) if python else True
    for offset, old in enumerate(edit.old):
        found = _line(lines, edit.start + offset, edit)
        if found.rstrip() != (indent + _escape(old, raw, python)).rstrip():
            raise UpdateError(
                f"{edit.location.path}:{edit.start + offset}: expected the documented "
                f"text {old!r}, found {found.rstrip()!r}"
            )
    # New lines end like the line above them, so a file with CRLF endings keeps them.
    above = lines[edit.start - 2]
    ending = above[len(above.rstrip("\r\n")) :] or "\n"
    return [(indent + _escape(line, raw, python)).rstrip() + ending for line in edit.new]


def _line(lines: list[str], number: int, edit: Edit) -> str:
    if not 1 <= number <= len(lines):
        raise UpdateError(f"{edit}: line {number} is past the end of the file")
    return lines[number - 1].rstrip("\r\n")


def _escape(line: str, raw: bool, python: bool) -> str:
    if not python:
        return line
    if '"""' in line or "'''" in line:
        raise UpdateError(f"cannot write a triple quote into a docstring: {line!r}")
    # In a plain docstring "\\" in the file is "\" in __doc__, which doctest reads.
    return line if raw else line.replace("\\", "\\\\")


def _raw_string(text: str, line: int) -> bool:
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.STRING and token.start[0] <= line <= token.end[0]:
                prefix = token.string[: len(token.string) - len(token.string.lstrip("rRbBuUfF"))]
                return "r" in prefix.lower()
    except (tokenize.TokenError, SyntaxError) as error:
        raise UpdateError(f"cannot read the Python source: {error}") from error
    raise UpdateError(f"line {line} is not inside a string literal")


def ellipsized(first: str, second: str) -> str:
    """``first`` with ``...`` over each word that ``second`` differs in, else ``...``."""
    if first == second:
        return first
    matcher = difflib.SequenceMatcher(None, first, second, autojunk=False)
    gaps: list[list[int]] = []
    for tag, differs_from, differs_to, _, _ in matcher.get_opcodes():
        if tag == "equal":
            continue
        start, end = differs_from, differs_to
        # To whole words and numbers (``0.31``, ``tmp_ab12``).
        while start > 0 and (first[start - 1].isalnum() or first[start - 1] in "._"):
            start -= 1
        while end < len(first) and (first[end].isalnum() or first[end] in "._"):
            end += 1
        if gaps and start <= gaps[-1][1]:
            gaps[-1][1] = max(gaps[-1][1], end)
        else:
            gaps.append([start, end])
    bounds = [0, *(at for gap in gaps for at in gap), len(first)]
    proposal = _ELLIPSIS.join(first[a:b] for a, b in zip(bounds[::2], bounds[1::2], strict=True))
    if all(_checker.check_output(proposal, text, OPTION_FLAGS) for text in (first, second)):
        return proposal
    return _ELLIPSIS


def volatile_parts(text: str, folders: Iterable[str]) -> list[str]:
    """What in ``text`` looks bound to vary: memory addresses, and the given folders."""
    found = [match.group(0) for match in _ADDRESS.finditer(text)]
    return found + [folder for folder in folders if len(folder) > 1 and folder in text]


def statement_texts(results: Iterable[ExampleResult]) -> dict[Location, str]:
    """What each statement that ran printed or raised, by its location."""
    texts: dict[Location, str] = {}
    for result in results:
        for statement, run in zip(result.example.statements_run, result.runs, strict=False):
            texts[statement.location] = run.exc_msg if run.exc_msg is not None else run.got
    return texts
