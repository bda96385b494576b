"""Turn a catalogue entry into the notebook that runs its examples.

One notebook per entry, so every error runs in a fresh process of its own (see
:mod:`~flax_errors_ext.execution.runs.entry_process`) and is cached on its own.
Each cell runs one example through :mod:`flax_errors_ext.execution.runs.in_kernel`.
The first begins with the entry's fingerprint and the output limit, which puts the
package versions, device, runtime sources and the limit into jupyter-cache's key;
the last ends by reporting where the examples ran.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import nbformat
from nbformat import NotebookNode

from flax_errors_ext.execution.runs.kernelspec import KERNELSPEC
from flax_errors_ext.model.runs.judge import statement_flags
from flax_errors_ext.model.runs.output_limit import DEFAULT_LIMIT

if TYPE_CHECKING:
    from collections.abc import Collection

    from flax_errors_ext.model.catalogue.records import ErrorEntry, Example
    from flax_errors_ext.model.runs.fingerprint import Fingerprint

KERNEL_MODULE = "flax_errors_ext.execution.runs.in_kernel"


def build_notebook(
    entry: ErrorEntry,
    fingerprint: Fingerprint,
    import_paths: list[str],
    timeout: int | None,
    output_limit: int = DEFAULT_LIMIT,
    documented: Collection[int] = (),
) -> NotebookNode:
    """The notebook for ``entry``: one cell per example, the first also sets up the kernel.

    Args:
        entry: The error whose examples to run.
        fingerprint: What the cache must key on besides the code; its canonical
            JSON is written at the top of the first cell.
        import_paths: Directories the kernel needs on ``sys.path`` to import the
            catalogued module.
        timeout: Seconds each example may run (None: no limit).
        output_limit: Characters of each statement's output, message and
            traceback that the kernel keeps.
        documented: Numbers of the statements whose documented text goes to the
            kernel, so that their cut output keeps its verdict (see
            :func:`~flax_errors_ext.model.runs.output_limit.fit`). Their text is then
            part of the cache key.
    """
    begin = (
        f"# flax-errors: {entry.qualname}. These lines key the execution cache.\n"
        f"from {KERNEL_MODULE} import begin, finish, run_example\n"
        f"begin({fingerprint.to_json()!r}, {import_paths!r}, {output_limit!r})\n"
    )
    numbered = _number_statements(entry)
    total = sum(len(example.statements) for example in entry.examples)
    codes = [
        _example_code(entry, example, numbered[index], total, documented)
        for index, example in enumerate(entry.examples)
    ] or [""]
    # Set-up and wrap-up share the first and last example's cells: each cell is a
    # round of messages between build and kernel, as much as a light example costs.
    codes[0] = begin + codes[0]
    codes[-1] += "finish()\n"
    cells = [_code_cell(code, role="example", index=index) for index, code in enumerate(codes)]
    # Made whole, as its cells are (see _code_cell): jupyter-cache checks it against
    # the schema when it hashes it, and new_notebook's check came first, in every
    # entry's thread at once (each compiling nbformat's validator anew).
    notebook: NotebookNode = nbformat.from_dict(  # type: ignore[no-untyped-call]
        {
            "nbformat": nbformat.v4.nbformat,
            "nbformat_minor": nbformat.v4.nbformat_minor,
            "cells": cells,
            "metadata": {
                "kernelspec": KERNELSPEC,
                # jupyter-cache reads these over myst-nb's own settings. Errors are
                # not allowed: examples never raise out of run_example, so anything
                # that does is a broken run and must not be cached.
                "execution": {"timeout": timeout, "allow_errors": False},
                "flax_errors": {"qualname": entry.qualname},
            },
        }
    )
    return notebook


def _code_cell(source: str, **role: str | int) -> NotebookNode:
    """A code cell whose metadata says what it is for (``role``, and an example's index).

    Made whole rather than by ``nbformat.v4.new_code_cell``, which checks each cell
    against the notebook schema (work the build would repeat for every cell of
    every entry) and gives it a random id: the cell is this module's, and its id is
    its role, so that an entry's notebook is the same text in every build.
    """
    cell: NotebookNode = nbformat.from_dict(  # type: ignore[no-untyped-call]
        {
            "id": "-".join(str(part) for part in role.values()),
            "cell_type": "code",
            "metadata": {"flax_errors": role},
            "execution_count": None,
            "source": source,
            "outputs": [],
        }
    )
    return cell


def _example_code(
    entry: ErrorEntry,
    example: Example,
    numbered: list[tuple[int, Any]],
    total: int,
    documented: Collection[int],
) -> str:
    """The cell that runs one example: its statements, numbered as doctest numbers them.

    The documented text of the statements in ``documented`` goes along, and another
    project's example runs in its module's namespace, as doctest would run it there.
    """
    statements = [(n, s.source) for n, s in numbered if not s.skip]
    lines = "".join(f"    ({n}, {source!r}),\n" for n, source in statements)
    texts = {
        n: (s.exc_msg if s.exc_msg is not None else s.want, statement_flags(s))
        for n, s in numbered
        if n in documented and not s.skip
    }
    extra = f", documented={texts!r}" if texts else ""
    if not example.kind.ours:
        extra += f", module_namespace={entry.module!r}"
    return f"run_example({entry.qualname!r}, {total}, [\n{lines}]{extra})\n"


def statement_numbers(entry: ErrorEntry) -> list[list[int]]:
    """Per example, the doctest numbers of its statements that run (not skipped).

    They line up with an example's records: one record per statement that runs.
    """
    return [[n for n, s in example if not s.skip] for example in _number_statements(entry)]


def _number_statements(entry: ErrorEntry) -> list[list[tuple[int, Any]]]:
    """Number statements across the whole docstring, as doctest does."""
    numbered: list[list[tuple[int, Any]]] = []
    n = 0
    for example in entry.examples:
        numbered.append([(n + i, s) for i, s in enumerate(example.statements)])
        n += len(example.statements)
    return numbered
