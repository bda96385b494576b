"""An entry's examples as the page lays them out: open, in tabs, marked failed."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from docutils import nodes

from flax_errors_ext.execution.catalogue.modules import load_module
from flax_errors_ext.model.catalogue.records import (
    Example,
    ExampleKind,
    ExampleResult,
    Location,
    Verdict,
)
from flax_errors_ext.model.runs.judge import judge
from flax_errors_ext.sphinx.catalogue.examples import entry_examples, full_tracebacks, transcript
from tests.utils import run_in_process

if TYPE_CHECKING:
    from collections.abc import Sequence

# The examples' layout, from verdicts alone.


def _result(kind: ExampleKind, caption: str, verdict: Verdict = Verdict.PASSED) -> ExampleResult:
    example = Example(kind, (), caption, Location("m.py", 10))
    return ExampleResult(example, verdict, "", "", (), 0.0)


def _paragraphs(text: str, path: str, lines: Sequence[int]) -> list[nodes.Node]:
    return [nodes.paragraph(text, text)] if text.strip() else []


def _headings(found: list[nodes.Node]) -> list[tuple[str, bool]]:
    """(heading, marked failed) of each example shown open, then of each tab."""
    return [
        (rubric.astext(), "flax-errors-failed" in rubric["classes"])
        for node in found
        for rubric in node.findall(nodes.rubric)
    ]


def test_first_bad_and_good_examples_are_open_and_the_others_tabs() -> None:
    kinds = (ExampleKind.BAD, ExampleKind.GOOD, ExampleKind.BAD, ExampleKind.GOOD)
    results = [_result(kind, f"Caption {n}.") for n, kind in enumerate(kinds)]
    results[2] = _result(ExampleKind.BAD, "Caption 2.", Verdict.DRIFTED)
    results.append(_result(ExampleKind.UPSTREAM, "Theirs."))

    shown, other, tabs = _layout(results, fix_shown=True)

    assert _headings(shown) == [("What raises it", False), ("The fix", False)]
    assert "Caption 0." in shown[0].astext()
    # The fix's caption is the entry's fix line already.
    assert "Caption 1." not in shown[1].astext()
    assert other == []
    assert _headings(tabs) == [
        ("Bad example 2", True),
        ("Good example 2", False),
        ("The library's own examples", False),
    ]
    assert "Caption 3." in tabs[1].astext()  # a good example in a tab keeps its caption


def test_a_failed_example_shown_open_is_marked_failed() -> None:
    results = [
        _result(ExampleKind.BAD, "", Verdict.NO_RAISE),
        _result(ExampleKind.GOOD, "Caption."),
    ]
    shown, _, tabs = _layout(results, fix_shown=False)
    assert _headings(shown) == [("What raises it", True), ("The fix", False)]
    assert "Caption." in shown[1].astext()
    assert "no-raise" in shown[0].astext()  # the verdict line
    assert tabs == []


@pytest.mark.parametrize(
    ("kinds", "headings", "tabs"),
    [
        # The evidence is folded away; what to do is open.
        ((ExampleKind.UNREACHABLE,), [], []),
        ((ExampleKind.UNREACHABLE, ExampleKind.GOOD), ["Good example"], []),
        ((ExampleKind.UPSTREAM,), [], ["The library's own examples"]),
    ],
)
def test_entries_that_cannot_be_raised_fold_their_evidence(
    kinds: tuple[ExampleKind, ...], headings: list[str], tabs: list[str]
) -> None:
    results = [_result(kind, "Caption.") for kind in kinds]
    shown, other, in_tabs = _layout(results, fix_shown=False)
    assert [heading for heading, _ in _headings(shown)] == headings
    assert [heading for heading, _ in _headings(in_tabs)] == tabs
    folded = [
        node
        for node in other
        if isinstance(node, nodes.Element)
        and "flax-errors-evidence" in node.get("container_classes", [])
    ]
    assert len(folded) == (ExampleKind.UNREACHABLE in kinds)
    for dropdown in folded:
        assert dropdown.astext().startswith("How we know it cannot be raised")


def test_failing_evidence_says_so_on_its_dropdown() -> None:
    results = [_result(ExampleKind.UNREACHABLE, "Caption.", Verdict.DRIFTED)]
    _, (folded,), _ = _layout(results, fix_shown=False)
    assert folded.astext().startswith("How we know it cannot be raised: the evidence drifted")


def _classes(node: nodes.Node) -> list[str]:
    return list(node["classes"]) if isinstance(node, nodes.Element) else []


def _layout(
    results: list[ExampleResult], *, fix_shown: bool
) -> tuple[list[nodes.Node], list[nodes.Node], list[nodes.Node]]:
    """The examples shown open, anything else outside the tabs, and the tabs."""
    first, others = entry_examples(results, _paragraphs, captions_shown=fix_shown)
    # Side by side or not, the boxes shown open come first; the tabs after the prose.
    found = [
        child
        for node in first
        for child in (node.children if "flax-errors-pair" in _classes(node) else [node])
    ] + others
    assert all("flax-errors-examples" not in _classes(node) for node in first)
    shown = [node for node in found if "flax-errors-shown" in _classes(node)]
    tab_sets = [node for node in found if "flax-errors-examples" in _classes(node)]
    assert len(tab_sets) <= 1
    tabs = list(tab_sets[0].children) if tab_sets else []
    other = [node for node in found if node not in shown and node not in tab_sets]
    return shown, other, tabs


OWN_ENTRIES = load_module("flax_errors_ext.errors").entries


def test_jit_pytree_errors_short_view_hides_the_hook_and_the_full_one_names_it() -> None:
    entry = next(e for e in OWN_ENTRIES if e.name == "JitPytreeError")
    bad = next(e for e in entry.examples if e.kind is ExampleKind.BAD)
    result = judge(bad, tuple(run_in_process(entry, bad)))
    assert result.verdict is Verdict.PASSED, result.diff

    short = transcript(result)
    (full,) = full_tracebacks(result)

    assert "jit_hook.py" not in short
    assert f"<doctest {entry.qualname}[" in short
    assert 'File "flax_errors_ext/jit_hook.py", line ' in full
    assert "doctest.py" not in full
