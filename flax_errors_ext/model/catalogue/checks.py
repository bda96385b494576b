"""What keeps an example out of the catalogue: its statements' and its kind's problems.

Each problem is said at the line it sits on; :mod:`.parse` reports them and reads on.
"""

from __future__ import annotations

import doctest

from flax_errors_ext.model.catalogue.records import Example, ExampleKind, FormatProblem, Location


def statement_problem(item: doctest.Example, location: Location) -> FormatProblem | None:
    """What keeps a doctest statement out of the catalogue, at its line, if anything."""
    if item.options.get(doctest.IGNORE_EXCEPTION_DETAIL):
        return FormatProblem(
            "IGNORE_EXCEPTION_DETAIL would hide drift in the error text; "
            "use ... (ELLIPSIS) for the parts that truly vary",
            location,
        )
    return syntax_problem(item, location)


def syntax_problem(item: doctest.Example, location: Location) -> FormatProblem | None:
    """A statement that does not compile, said at the line of the error."""
    try:
        compile(item.source, str(location), "single")
    except SyntaxError as error:
        line = location.line + max((error.lineno or 1) - 1, 0)
        return FormatProblem(f"broken doctest syntax: {error.msg}", Location(location.path, line))
    return None


def kind_problems(example: Example, qualname: str, own_class: str | None) -> list[FormatProblem]:
    """What is wrong with an example for its kind, each at its place.

    A traceback where it must run; none, or another class's, where it must raise.
    ``own_class``: the class a bad example must document; None for a message entry,
    whose bad examples may document any class.
    """
    run = example.statements_run
    if example.kind is ExampleKind.SEEN_AS:
        if run and run[-1].exc_msg is not None and run[-1].documented_class != own_class:
            return []
        return [
            FormatProblem(
                "'Also seen as:' must end in the documented traceback of the error raised "
                f"where {qualname} is not (another class)",
                example.location,
            )
        ]
    if example.kind is not ExampleKind.BAD:
        return [
            FormatProblem(
                f"{'a good example' if example.kind is ExampleKind.GOOD else 'evidence'} must "
                "run cleanly, but this statement documents a traceback",
                s.location,
            )
            for s in run
            if s.exc_msg is not None
        ]
    if not run or run[-1].exc_msg is None:
        raised = own_class or "the error it documents"
        line = f"{own_class}: <message>" if own_class else "ValueError: <message>"
        return [
            FormatProblem(
                f"a bad example must end in the documented traceback of {raised} "
                f"('Traceback (most recent call last):' ... '{line}')",
                example.location,
            )
        ]
    documented = run[-1].documented_class
    if own_class is not None and documented != own_class:
        return [
            FormatProblem(
                f"this bad example documents {documented}, but it belongs to {qualname}",
                run[-1].location,
            )
        ]
    return []
