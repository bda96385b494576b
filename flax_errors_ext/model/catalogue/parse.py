"""Read a docstring in the catalogue format into an :class:`~.records.ErrorEntry`.

A napoleon ``Examples:`` section with a malformed example yields none: a library's own
doctests are never read as ours.
"""

from __future__ import annotations

import dataclasses
import doctest
import re
from typing import NamedTuple

from flax_errors_ext.model.catalogue.conditions import (
    FIELD,
    Condition,
    ConditionError,
    parse_conditions,
)
from flax_errors_ext.model.catalogue.records import (
    ErrorEntry,
    Example,
    ExampleKind,
    FormatProblem,
    Location,
    Prose,
    Statement,
    first_paragraph,
    kind_problems,
    statement_problem,
    syntax_problem,
)

SECTION_TITLES = {f"{kind.section_title}:": kind for kind in ExampleKind if kind.ours}
NAPOLEON_TITLES = ("Example:", "Examples:")
_TITLE = re.compile(r"^[A-Z][\w \-]*:\s*$")
_DOCTEST_LINE = re.compile(r"line (\d+) of the docstring")


class Line(NamedTuple):
    """One line of a docstring, with its line in the source file."""

    number: int
    text: str


def parse_docstring(
    docstring: str, qualname: str, path: str, first_line: int, *, message: bool = False
) -> ErrorEntry:
    """Parse ``docstring`` (``__doc__``) at ``path:first_line``; ``message``: a message entry's."""
    own_class = None if message else qualname
    lines = _clean(docstring, first_line)
    summary, summary_end = first_paragraph(_text(lines))
    # The summary stays in the prose: it is the explanation's opening paragraph.
    explanation = lines[:summary_end]
    examples: list[Example] = []
    problems: list[FormatProblem] = []
    i = summary_end
    while i < len(lines):
        section = _section_at(lines, i, qualname, path, own_class)
        if section is None:
            explanation.append(lines[i])
            i += 1
            continue
        found, section_problems, i = section
        problems.extend(section_problems)
        examples.extend(found)
    prose = _prose(explanation, path)
    at = Location(path, first_line)
    entry = ErrorEntry(
        qualname, summary, prose, tuple(examples), tuple(problems), at, None, message
    )
    if message and not entry.raised_as and not problems:
        problem = FormatProblem(
            "a message entry needs a 'Bad example:' that ends in the traceback of the "
            "error it documents ('ValueError: <message>')",
            at,
        )
        entry = dataclasses.replace(entry, problems=(problem,))
    return entry


def _section_at(
    lines: list[Line], i: int, qualname: str, path: str, own_class: str | None
) -> tuple[list[Example], list[FormatProblem], int] | None:
    """The examples and problems of the section ``lines[i]`` starts (None: none), and its end."""
    line = lines[i]
    body_end = next((j for j in range(i + 1, len(lines)) if lines[j].text[:1].strip()), len(lines))
    body = lines[i + 1 : body_end]
    holds_examples = any(b.text.lstrip().startswith(">>>") for b in body)
    location = Location(path, line.number)
    if line.text in SECTION_TITLES:
        example, problems = _parse_section(
            SECTION_TITLES[line.text], body, qualname, location, own_class
        )
        return ([] if example is None else [example]), problems, body_end
    if line.text in NAPOLEON_TITLES and holds_examples:
        found, problems = _parse_napoleon(body, qualname, location, own_class)
        return found, problems, body_end
    if _TITLE.match(line.text) and holds_examples:
        problem = FormatProblem(
            f"unknown section title {line.text.strip()!r}; a section that holds "
            "examples must be titled 'Bad example:', 'Good example:', 'Unreachable:' "
            "or 'Examples:'",
            location,
        )
        return [], [problem], body_end
    if line.text.startswith(">>>"):
        problem = FormatProblem(
            "a doctest outside any section; put it under 'Bad example:' or 'Good example:'",
            location,
        )
        return [], [problem], _paragraph_end(lines, i)
    return None


def parse_prose(docstring: str, path: str, first_line: int) -> tuple[str, tuple[Prose, ...]]:
    """A library's docstring: its first sentence (its paragraph may end in ``::``), and all."""
    lines = _clean(docstring, first_line)
    if cut_opening([line.text for line in lines[:3]]):
        lines = [lines[0], *lines[2:]]
    paragraph, _ = first_paragraph(_text(lines))
    sentence = re.split(r"(?<=[.!?:])\s", paragraph, maxsplit=1)[0].rstrip(":")
    return sentence, tuple(dataclasses.replace(p, foreign=True) for p in _prose(lines, path))


def cut_opening(texts: list[str]) -> bool:
    """Whether a blank line cuts the opening sentence in two (as in many of Flax's)."""
    if len(texts) > 2 and texts[1] == "" and texts[2].strip():
        opening = texts[0].rstrip()
        return bool(opening) and not opening.endswith((".", "!", "?", ":", ")", "::"))
    return False


def parse_upstream(docstring: str, path: str, first_line: int) -> Example | None:
    """Another project's doctest statements as one upstream example; None: shown, not run."""
    lines = _clean(docstring, first_line)
    try:
        parsed = doctest.DocTestParser().get_examples(_text(lines), path)
    except ValueError:
        return None
    statements = []
    for item in parsed:
        location = Location(path, lines[item.lineno].number)
        if syntax_problem(item, location) is not None:
            return None
        statements.append(_statement(item, location, lines))
    if not statements:
        return None
    return Example(ExampleKind.UPSTREAM, tuple(statements), "", statements[0].location)


def _text(lines: list[Line]) -> str:
    return "\n".join(line.text for line in lines) + "\n"


def _prose(lines: list[Line], path: str) -> tuple[Prose, ...]:
    kept = [n for n, line in enumerate(lines) if line.text.strip()]
    if not kept:
        return ()
    lines = lines[kept[0] : kept[-1] + 1]
    return (Prose(_text(lines)[:-1], path, tuple(line.number for line in lines)),)


def cleandoc_lines(docstring: str) -> list[str]:
    """A docstring's lines dedented as :func:`inspect.cleandoc` does, every line kept."""
    raw = docstring.expandtabs().split("\n")
    indent = min((len(text) - len(text.lstrip()) for text in raw[1:] if text.strip()), default=0)
    return [raw[0].strip(), *(text[indent:].rstrip() for text in raw[1:])]


def _clean(docstring: str, first_line: int) -> list[Line]:
    lines = [Line(first_line + n, text) for n, text in enumerate(cleandoc_lines(docstring))]
    while lines and not lines[0].text:
        lines.pop(0)
    return lines


def _dedent(body: list[Line]) -> list[Line]:
    indent = min((len(b.text) - len(b.text.lstrip()) for b in body if b.text.strip()), default=0)
    return [Line(b.number, b.text[indent:]) for b in body]


def _paragraph_end(lines: list[Line], start: int) -> int:
    return next((i for i in range(start, len(lines)) if not lines[i].text.strip()), len(lines))


def _parse_section(
    kind: ExampleKind, body: list[Line], qualname: str, title: Location, own_class: str | None
) -> tuple[Example | None, list[FormatProblem]]:
    path = title.path
    holds_for, body, condition_problem = _holds_for(_dedent(body), path)
    if condition_problem is not None:
        return None, [condition_problem]
    start = next((n for n, b in enumerate(body) if b.text.startswith(">>>")), None)
    if start is None:
        return None, [FormatProblem(f"'{kind.section_title}:' has no >>> statements", title)]
    description = _text(body[:start]).strip()
    return _parse_block(kind, description, body[start:], qualname, path, holds_for, own_class)


def _parse_napoleon(
    body: list[Line], qualname: str, title: Location, own_class: str | None
) -> tuple[list[Example], list[FormatProblem]]:
    parsed = [
        _parse_block(None, description, block, qualname, title.path, (), own_class)
        for description, block in _napoleon_blocks(_dedent(body))
    ]
    problems = [problem for _, found in parsed for problem in found]
    return ([] if problems else [e for e, _ in parsed if e is not None]), problems


def _napoleon_blocks(body: list[Line]) -> list[tuple[str, list[Line]]]:
    # Blocks with no prose between them are one example, up to one ending in a traceback.
    found: list[tuple[str, list[Line]]] = []
    prose: list[str] = []
    block: list[Line] = []
    i = 0
    while i < len(body):
        line = body[i]
        if not line.text.lstrip().startswith(">>>"):
            if block and line.text.strip():
                found.append(("\n".join(prose).strip(), block))
                prose, block = [], []
            if not block:
                prose.append(line.text)
            i += 1
            continue
        end = _paragraph_end(body, i)
        indent = len(line.text) - len(line.text.lstrip())
        if block and _ends_in_traceback(block):
            found.append(("\n".join(prose).strip(), block))
            prose, block = [], []
        if block:
            block.append(Line(body[i - 1].number, ""))
        block += [Line(b.number, b.text[indent:]) for b in body[i:end]]
        i = end
    if block:
        found.append(("\n".join(prose).strip(), block))
    return found


def _ends_in_traceback(block: list[Line]) -> bool:
    try:
        parsed = doctest.DocTestParser().get_examples(_text(block))
    except ValueError:
        return False
    return bool(parsed) and parsed[-1].exc_msg is not None


def _parse_block(
    kind: ExampleKind | None,
    description: str,
    block: list[Line],
    qualname: str,
    path: str,
    holds_for: tuple[Condition, ...],
    own_class: str | None,
) -> tuple[Example | None, list[FormatProblem]]:
    """One example from its doctest lines, or its problems; ``kind`` None: a napoleon one."""
    try:
        parsed = doctest.DocTestParser().get_examples(_text(block), qualname)
    except ValueError as error:
        match = _DOCTEST_LINE.search(str(error))
        line = block[int(match.group(1)) - 1].number if match else block[0].number
        return None, [FormatProblem(f"broken doctest syntax: {error}", Location(path, line))]

    problems: list[FormatProblem] = []
    statements: list[Statement] = []
    for item in parsed:
        location = Location(path, block[item.lineno].number)
        if (problem := statement_problem(item, location)) is not None:
            problems.append(problem)
            continue
        statements.append(_statement(item, location, block))
    if problems:
        return None, problems
    if kind is None:
        run = [s for s in statements if not s.skip]
        kind = ExampleKind.BAD if run and run[-1].exc_msg is not None else ExampleKind.GOOD
    example = Example(
        kind, tuple(statements), description, Location(path, block[0].number), holds_for
    )
    problems.extend(kind_problems(example, qualname, own_class))
    return (None if problems else example), problems


def _holds_for(
    body: list[Line], path: str
) -> tuple[tuple[Condition, ...], list[Line], FormatProblem | None]:
    # Anywhere but the first line it would silently be read as prose: a problem there.
    first = next((n for n, b in enumerate(body) if b.text.strip()), None)
    n = next((n for n, b in enumerate(body) if b.text.startswith(FIELD)), None)
    if n is None:
        return (), body, None
    location = Location(path, body[n].number)
    if n != first:
        return (), body, FormatProblem(f"'{FIELD}' must be the section's first line", location)
    try:
        conditions = parse_conditions(body[n].text[len(FIELD) :])
    except ConditionError as error:
        return (), body, FormatProblem(f"'{FIELD}' {error}", location)
    return conditions, body[n + 1 :], None


def _statement(item: doctest.Example, location: Location, block: list[Line]) -> Statement:
    after = item.lineno + item.source.count("\n")  # where its documented output starts
    return Statement(
        source=item.source,
        want=item.want,
        exc_msg=item.exc_msg,
        location=location,
        options=tuple(sorted(item.options.items())),
        want_line=block[after].number if after < len(block) else block[-1].number + 1,
    )
