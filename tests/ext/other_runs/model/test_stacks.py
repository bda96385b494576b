"""``nox -s lock`` keeps a new stack only where the catalogue's verdicts hold."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flax_errors_ext.ext.other_runs.model.stacks import settle, statuses

SETTLED = ("passed", "unreachable")
HISTORY = Path(__file__).resolve().parents[4] / "flax_errors_ext" / "history"


def _run(**entries: str) -> str:
    return json.dumps(
        {"entries": [{"qualname": f"m.{name}", "status": s} for name, s in entries.items()]}
    )


def test_a_stack_that_keeps_every_verdict_settles() -> None:
    before = _run(A="passed", B="unreachable")
    assert (
        settle("Python 3.13", _run(A="passed", B="unreachable", C="passed"), before, SETTLED) == []
    )


def test_a_failing_entry_is_named_even_when_accepted() -> None:
    problems = settle("Python 3.13", _run(A="failed"), _run(A="passed"), SETTLED, accept=True)
    assert problems == ["Python 3.13: m.A is failed"]


def test_a_changed_status_is_named_unless_accepted() -> None:
    now, before = _run(A="unreachable"), _run(A="passed")
    assert settle("Python 3.13", now, before, SETTLED) == [
        "Python 3.13: m.A was passed, is unreachable (-- --accept keeps it)"
    ]
    assert settle("Python 3.13", now, before, SETTLED, accept=True) == []


@pytest.mark.parametrize("python", ["3.11", "3.13"])
def test_the_committed_stack_runs_are_settled(python: str) -> None:
    """What CI's stacks must give: every entry passed or unreachable."""
    text = (HISTORY / f"python-{python}.json").read_text("utf-8")
    assert statuses(text)
    assert settle(f"Python {python}", text, None, SETTLED) == []
    for folder in ("/work/", "/home/", "/root/", "site-packages"):
        assert folder not in text
