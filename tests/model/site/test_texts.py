"""An entry's first screen: the fix in one line, the verification line, the first pair."""

from __future__ import annotations

from typing import Any

import pytest

from flax_errors_ext.model.catalogue.records import Example, ExampleKind, Location
from flax_errors_ext.model.runs.entry_record import EntryRecord, EntryStatus
from flax_errors_ext.model.site.texts import (
    BADGES,
    evidence,
    figures,
    first_screen,
    fix_text,
    inline_parts,
    lead_lines,
    plain_text,
    verification_text,
)

BAD, GOOD = ExampleKind.BAD, ExampleKind.GOOD
UNREACHABLE, UPSTREAM = ExampleKind.UNREACHABLE, ExampleKind.UPSTREAM


def _examples(*kinds: ExampleKind, description: str = "") -> list[Example]:
    return [
        Example(kind, (), description or f"The {kind.value} one.", Location("m.py", 10 * n))
        for n, kind in enumerate(kinds, start=1)
    ]


def _record(status: str, name: str = "E", **extra: Any) -> EntryRecord:
    return EntryRecord.from_json(
        {
            "name": name,
            "qualname": f"m.{name}",
            "url": f"api_reference/m.html#m.{name}",
            "source": "m.py:1",
            "summary": f"{name} summary.",
            "status": status,
            "executed": False,
            # As a kernel reports them: not in the cache key's order.
            "versions": {"jax": "0.10.2", "jaxlib": "0.10.2", "flax": "0.12.8"},
            **extra,
        }
    )


CPU = {"platform": "cpu", "device_kind": "cpu", "count": 1}


@pytest.mark.parametrize(
    ("status", "device", "text"),
    [
        ("passed", CPU, "Verified on CPU · flax 0.12.8 · jax 0.10.2 · jaxlib 0.10.2"),
        (
            "passed",
            {"platform": "gpu", "device_kind": "NVIDIA H200", "count": 1},
            "Verified on GPU (NVIDIA H200) · flax 0.12.8 · jax 0.10.2 · jaxlib 0.10.2",
        ),
        ("unreachable", CPU, "Evidence checked on CPU · flax 0.12.8 · jax 0.10.2 · jaxlib 0.10.2"),
        (
            "failed",
            CPU,
            "An example no longer does what is documented (run on CPU) · flax 0.12.8 · "
            "jax 0.10.2 · jaxlib 0.10.2",
        ),
        ("undocumented", {}, "No examples yet · flax 0.12.8 · jax 0.10.2 · jaxlib 0.10.2"),
        (
            "not-run",
            {},
            "Not run in this build: the outputs shown are the documented ones · flax 0.12.8 · "
            "jax 0.10.2 · jaxlib 0.10.2",
        ),
    ],
)
def test_verification_line_says_where_and_against_what_without_a_date(
    status: str, device: dict[str, Any], text: str
) -> None:
    assert verification_text(_record(status, device=device)) == text


def test_verification_line_without_versions_is_its_words_alone() -> None:
    assert verification_text(_record("passed", device=CPU, versions={})) == "Verified on CPU"


@pytest.mark.parametrize(
    ("kinds", "shown"),
    [
        ((BAD, GOOD), (0, 1)),
        ((BAD, GOOD, BAD, GOOD), (0, 1)),
        ((BAD, BAD, GOOD, GOOD, UPSTREAM), (0, 2)),
        ((GOOD, BAD), (1, 0)),  # the wrong code first, wherever it is documented
        ((UNREACHABLE,), ()),  # the evidence is folded away (see evidence())
        ((UNREACHABLE, GOOD), (1,)),  # what to do, open
        ((BAD,), (0,)),
        ((UPSTREAM,), ()),  # the library's own examples go in the tabs
        ((), ()),
    ],
)
def test_first_screen_is_the_first_bad_then_the_first_good_example(
    kinds: tuple[ExampleKind, ...], shown: tuple[int, ...]
) -> None:
    assert first_screen(_examples(*kinds)) == shown


def test_the_fix_is_the_first_good_examples_caption() -> None:
    examples = _examples(BAD, GOOD, GOOD)
    assert fix_text(examples) == "The good one."
    caption = "Pass ``overwrite=True``\nwhen replacing is intended.\n\nA second paragraph."
    assert fix_text(_examples(BAD, GOOD, description=caption)) == (
        "Pass ``overwrite=True`` when replacing is intended."
    )


@pytest.mark.parametrize(
    "kinds",
    [(BAD,), (UNREACHABLE,), (UNREACHABLE, GOOD), (GOOD,), (UPSTREAM,)],
)
def test_no_fix_without_a_bad_and_a_good_example(kinds: tuple[ExampleKind, ...]) -> None:
    # An error that cannot be raised has nothing to fix; its good example is no fix.
    assert fix_text(_examples(*kinds)) == ""


def test_no_fix_when_the_good_example_has_no_caption() -> None:
    examples = _examples(BAD, GOOD)
    examples[1] = Example(GOOD, (), "", Location("m.py", 20))
    assert fix_text(examples) == ""


@pytest.mark.parametrize(
    ("kinds", "folded"),
    [((UNREACHABLE, GOOD), 0), ((GOOD, UNREACHABLE, UNREACHABLE), 1), ((BAD, UNREACHABLE), None)],
)
def test_only_an_unreachable_entry_folds_its_evidence(
    kinds: tuple[ExampleKind, ...], folded: int | None
) -> None:
    assert evidence(_examples(*kinds)) == folded


def test_lead_lines_say_the_fix_or_when_it_is_raised_and_what_to_do() -> None:
    assert lead_lines(_examples(BAD, GOOD)) == (("Fix:", "The good one."),)
    assert lead_lines(_examples(UNREACHABLE, GOOD)) == (
        ("When it is raised:", "The unreachable one."),
        ("What to do:", "The good one."),
    )
    assert lead_lines(_examples(UNREACHABLE)) == (("When it is raised:", "The unreachable one."),)
    assert lead_lines(_examples(BAD)) == ()


def test_badges_say_what_readers_need() -> None:
    assert set(BADGES) == set(EntryStatus)
    labels = {status: BADGES[status].label for status in ("passed", "failed", "unreachable")}
    assert labels == {"passed": "verified", "failed": "drifted", "unreachable": "unreachable"}
    assert BADGES["undocumented"].label == "undocumented"


def _gpu_record(name: str, status: str, **extra: Any) -> EntryRecord:
    return _record(
        status,
        name,
        **{
            "device": {"platform": "gpu", "device_kind": "NVIDIA H200", "count": 1},
            "versions": {"jax": "1", "jaxlib": "1", "flax": "2"},
            "examples": [],
            **extra,
        },
    )


def test_figures_count_statuses_and_name_the_device() -> None:
    shown = figures(
        [_gpu_record("A", "passed"), _gpu_record("B", "passed"), _gpu_record("C", "failed")]
    )
    assert shown.entries == 3
    assert shown.statuses == (("passed", 2), ("failed", 1))
    assert shown.device == "GPU (NVIDIA H200)"
    assert shown.versions == "flax 2, jax 1, jaxlib 1"  # by name, whatever the record's order
    assert not figures([_gpu_record("A", "not-run", device={})]).executed


def test_inline_markup_becomes_code_and_nothing_else() -> None:
    assert inline_parts(
        "Use ``jax.jit`` or :meth:`Module.apply() <flax.linen.Module.apply>`."
    ) == [
        ("Use ", False),
        ("jax.jit", True),
        (" or ", False),
        ("Module.apply()", True),
        (".", False),
    ]
    assert plain_text("*not* <b>bold</b>") == "*not* <b>bold</b>"
