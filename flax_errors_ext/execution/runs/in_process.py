"""Statements run here, in this process, as an entry's process runs them.

Where there is no Jupyter (a device where only JAX and Flax are installed, a venv
of an old Flax release, a test that needs an error raised in-process, the
isolation floor's bench), examples run through this, in a process forked for the
purpose or in the caller's own. The statements that run are an example's
(:attr:`~flax_errors_ext.model.catalogue.records.Example.statements_run`), each
numbered by its place among the statements given, as the kernel numbers them; the
records are the kernel's (:func:`~.in_kernel.run_statements`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from flax_errors_ext.execution.runs.in_kernel import run_statements

if TYPE_CHECKING:
    from collections.abc import Sequence

    from flax_errors_ext.model.catalogue.records import Statement


def run_here(
    name: str,
    statements: Sequence[Statement],
    namespace: dict[str, Any] | None = None,
    *,
    output_limit: int | None = None,
) -> list[dict[str, Any]]:
    """Run every statement of ``statements`` not marked ``+SKIP``; one record each.

    Args:
        name: The entry's dotted name, which doctest's runner names the run by.
        statements: An example's statements, or all of an entry's in order: they
            then share one namespace, as the cells of one kernel do.
        namespace: The globals they start from (none if None); doctest runs them in
            a copy, as it runs a docstring's examples.
        output_limit: Where a longer output is cut, as the kernel cuts it.
    """
    chosen = [(number, s.source) for number, s in enumerate(statements) if not s.skip]
    return run_statements(
        name,
        len(statements),
        chosen,
        {} if namespace is None else namespace,
        output_limit=output_limit,
    )
