"""Contributor doctests honour each example's ``:holds for:`` line, and show the help.

An example written for other versions than the installed ones is left unrun, as the
site and ``flax-errors check`` leave it; a doctest left with none is skipped, saying why.
"""

from __future__ import annotations

import doctest
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from flax_errors_ext import help as _help
from flax_errors_ext.execution.runs.versions import installed_versions
from flax_errors_ext.model.catalogue.conditions import FIELD, describe, versions_named
from flax_errors_ext.model.catalogue.parse import parse_docstring

if TYPE_CHECKING:
    from collections.abc import Sequence


def pytest_collection_modifyitems(items: Sequence[pytest.Item]) -> None:
    """Take the statements of examples for other versions out of each doctest."""
    for item in items:
        test = getattr(item, "dtest", None)
        if not isinstance(test, doctest.DocTest) or FIELD not in (test.docstring or ""):
            continue
        path = Path(test.filename or test.name)
        qualname = f"{path.parent.name}.{path.stem}" if path.suffix == ".txt" else test.name
        # Line 0 is the docstring's first, as doctest numbers them; read as a message entry,
        # which takes a bad example of any class (only statements and versions matter here).
        entry = parse_docstring(test.docstring or "", qualname, str(path), 0, message=True)
        examples = [e for e in entry.examples if e.holds_for]
        versions = installed_versions(examples)
        aside = [e for e in examples if not e.holds(versions)]
        lines = {s.location.line for e in aside for s in e.statements}
        test.examples = [e for e in test.examples if e.lineno not in lines]
        if aside and not test.examples:
            reasons = "; ".join(
                f"holds for {describe(e.holds_for)}, and this has "
                f"{versions_named(e.holds_for, versions)}"
                for e in aside
            )
            item.add_marker(pytest.mark.skip(reason=f"every example {reasons}"))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """A section below a documented failure's traceback: its ``help:`` and ``see:``."""
    outcome = yield
    if call.excinfo is None or not _help.installed():
        return
    lines = _help.help_lines(call.excinfo.value)
    if lines:
        outcome.get_result().sections.append(("flax-errors help", "\n".join(lines)))
