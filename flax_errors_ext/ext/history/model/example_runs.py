"""The bad examples the history runs, the hash of their code, and what one run did.

The record (an :class:`~flax_errors_ext.model.history.releases.ExampleRun`) is made
from the judged run the same way for ``nox -s history`` and for the build's own
release. The code hash ties a record to the code that ran.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
from typing import TYPE_CHECKING

from flax_errors_ext.model.catalogue.records import ExampleKind, Verdict
from flax_errors_ext.model.history.releases import ExampleRun, Outcome
from flax_errors_ext.model.runs.judge import judge
from flax_errors_ext.model.runs.tracebacks import strip_jax_note, strip_roots

if TYPE_CHECKING:
    from collections.abc import Iterable

    from flax_errors_ext.model.catalogue.records import ErrorEntry, Example, ExampleResult


def bad_examples(entry: ErrorEntry) -> tuple[Example, ...]:
    """The examples the history runs: the entry's own bad examples."""
    return tuple(e for e in entry.examples if e.kind is ExampleKind.BAD)


def example_code_hash(example: Example) -> str:
    """A hash of the code an example runs: its statements' syntax trees, not their texts.

    A reworded documented message leaves it alone (the record keeps what was raised),
    and so does code formatted anew (``flax-errors export`` formats it as Flax does:
    other indents, quotes, line breaks or comments); any change to what runs changes it.
    """
    digest = hashlib.sha256()
    for statement in example.statements_run:
        try:
            syntax = _tree_text(ast.parse(statement.source))
        except SyntaxError:  # a statement that does not parse alone: its source
            syntax = statement.source
        digest.update(syntax.encode("utf-8") + b"\0")
    return digest.hexdigest()[:16]


def _tree_text(node: object) -> str:
    """A syntax tree as text, the same on every Python that parses it alike.

    Not :func:`ast.dump`: Python 3.13's leaves out the fields that are empty or
    None, and newer Pythons add such fields (3.12's ``type_params``), so each would
    hash the same code differently. Here an empty field is always left out.
    """
    if isinstance(node, ast.AST):
        fields = ", ".join(
            f"{name}={_tree_text(value)}"
            for name, value in ast.iter_fields(node)
            if value is not None and value != []
        )
        return f"{type(node).__name__}({fields})"
    if isinstance(node, list):
        return "[" + ", ".join(_tree_text(item) for item in node) + "]"
    return repr(node)


def entry_codes(entries: Iterable[ErrorEntry]) -> dict[str, tuple[str, ...]]:
    """Each entry's bad examples' code hashes, by class name."""
    return {
        entry.name: tuple(example_code_hash(e) for e in bad_examples(entry)) for entry in entries
    }


def example_run(result: ExampleResult, roots: Iterable[str] = ()) -> ExampleRun:
    """What a bad example did on a release, from the judge's verdicts on its run.

    The history records what the example raised, not whether its documented text
    still matches: so each statement is judged alone. One before the last that raised
    where none is documented means the example could not run on that release; else
    the last one's verdict says whether it raised the documented class, another, or
    nothing.

    Args:
        result: The judged run of the catalogue's bad example; no runs if its
            process died, timed out or it was set aside.
        roots: Folders the process imported from; paths under them are written
            relative to them (``flax/__init__.py``), so no machine's folders are kept.
    """
    example, runs, folders = result.example, result.runs, tuple(roots)
    code = example_code_hash(example)
    chosen = example.statements_run
    if not runs:
        return ExampleRun(code, Outcome.COULD_NOT_RUN, reason=result.detail or "it did not run")
    if len(runs) != len(chosen):
        why = f"{len(runs)} of its {len(chosen)} statements reported back"
        return ExampleRun(code, Outcome.COULD_NOT_RUN, reason=why)
    # Each statement judged as if it were the only one.
    verdicts = [
        judge(dataclasses.replace(example, statements=(statement,)), (run,)).verdict
        for statement, run in zip(chosen, runs, strict=True)
    ]
    for number, (verdict, run) in enumerate(zip(verdicts[:-1], runs[:-1], strict=True), 1):
        if verdict is Verdict.RAISED and run.exc_msg is not None:
            why = f"statement {number} of {len(chosen)} raised {_exception(run.exc_msg, folders)}"
            return ExampleRun(code, Outcome.COULD_NOT_RUN, reason=why)
    last = runs[-1]
    if last.exc_msg is None:
        return ExampleRun(code, Outcome.NO_RAISE)
    text = _exception(last.exc_msg, folders)
    exc_type = last.exc_type or text.split(":", 1)[0]
    raised = verdicts[-1] in (Verdict.PASSED, Verdict.DRIFTED, Verdict.TOO_LOOSE)
    return ExampleRun(code, Outcome.RAISED if raised else Outcome.RAISED_OTHER, exc_type, text)


def _exception(text: str, roots: tuple[str, ...]) -> str:
    return strip_roots(strip_jax_note(text), roots).strip("\n")
