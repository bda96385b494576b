"""The search page's data: the entries a paste may match, as the script reads them."""

from __future__ import annotations

from typing import Any

from flax_errors_ext.ext.search.model.data import search_entries
from flax_errors_ext.model.lookup.find import Wording
from flax_errors_ext.model.runs.entry_record import EntryRecord


def _record(name: str, examples: list[dict[str, Any]], summary: str = "") -> EntryRecord:
    return EntryRecord.from_json(
        {
            "name": name,
            "qualname": f"m.{name}",
            "url": f"api_reference/m.html#m.{name}",
            "source": "m.py:1",
            "summary": summary or f"{name} summary.",
            "status": "passed",
            "executed": True,
            "versions": {"jax": "1", "jaxlib": "1", "flax": "2"},
            "examples": examples,
        }
    )


def _example(kind: str, expected: str, actual: str) -> dict[str, Any]:
    return {
        "kind": kind,
        "source": "m.py:2",
        "status": "passed",
        "expected": expected,
        "actual": actual,
        "seconds": 0.0,
        "detail": "",
        "diff": "",
    }


def test_search_entries_hold_the_messages_of_bad_examples() -> None:
    note = "\n--------------------\nFor simplicity, JAX has removed its internal frames. Set X."
    record = _record(
        "A",
        [
            _example("bad", "m.A: documented (...)\n", "m.A: real" + note),
            _example("good", "(1, 2)\n", "(1, 2)\n"),
        ],
        summary="Uses ``apply``.",
    )
    (item,) = search_entries([record], roots=())
    assert item["messages"] == ["m.A: documented (...)", "m.A: real"]
    assert item["seen_as"] == []
    assert item["older"] == []
    assert item["headline"] == "Uses apply."
    assert item["url"] == "api_reference/m.html#m.A"


def test_search_entries_tell_other_errors_and_old_wordings_apart() -> None:
    seen_as = dict(
        _example("seen-as", "TypeError: not a valid JAX type\n", "TypeError: not valid\n"),
        caption="Without ``install()``, JAX's own error.",
    )
    record = _record("A", [_example("bad", "m.A: today\n", "m.A: today\n"), seen_as])
    wordings = [
        Wording("m.A", "m.A: the old words", "0.4.2-0.6.11"),
        Wording("m.A", "m.A: today", "0.7.5-0.12.8", current=True),
        Wording("m.B", "m.B: another entry's", "0.4.2"),
    ]

    (item,) = search_entries([record], roots=(), wordings=wordings)

    assert item["messages"] == ["m.A: today"]
    assert item["seen_as"] == [
        {"text": "TypeError: not a valid JAX type", "note": "Without install(), JAX's own error."},
        {"text": "TypeError: not valid", "note": "Without install(), JAX's own error."},
    ]
    # Today's wording is a message already; only the releases' older ones are added.
    assert item["older"] == [{"text": "m.A: the old words", "versions": "0.4.2-0.6.11"}]
