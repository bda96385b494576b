"""Runs that differ alike said once, and what of their differences is shown in full.

A difference only in a link's page or a line number is incidental: a clause of a sentence.
"""

from __future__ import annotations

import json
from typing import Any

from flax_errors_ext.ext.other_runs.model.comparison import DeviceRun, compare, parse_run
from flax_errors_ext.ext.other_runs.model.groups import PrintedLinks, differing, incidental
from flax_errors_ext.layout import SiteLayout
from flax_errors_ext.model.runs.entry_record import EntryRecord

JAX = "https://docs.jax.dev/en/latest"
LINKS = PrintedLinks(SiteLayout((("jax.errors", "errors"),)), "jax.errors", JAX)
CPU = {"platform": "cpu", "device_kind": "cpu", "count": 1}
CPUS = {**CPU, "count": 8}
GPU = {"platform": "gpu", "device_kind": "NVIDIA H200", "count": 1}
NEW = {"flax": "0.12.12", "jax": "0.12.0.1", "jaxlib": "0.12.0.1"}
OLD = {"flax": "0.12.8", "jax": "0.10.2", "jaxlib": "0.10.2"}
PAGE = "the page of its link (errors.html; 101/errors.html in this build)"
LINE = "a line number in flax/linen/module.py"
DOCUMENTED = "jax.errors.TracerBoolConversionError: Attempted boolean conversion ...\n"


MESSAGE = (
    "jax.errors.TracerBoolConversionError: Attempted boolean conversion of traced array.\n"
    "The error occurred while tracing the function apply at flax/linen/module.py:{line} "
    "for jit.\n"
    "See {base}/{page}.html#jax.errors.{name}\n"
)


def _message(
    line: int = 2089, page: str = "101/errors", name: str = "TracerBoolConversionError"
) -> str:
    return MESSAGE.format(line=line, page=page, name=name, base=JAX)


def _raised(page: str = "101/errors", line: int = 2089, words: str = "Attempted") -> str:
    return (
        f"jax.errors.TracerBoolConversionError: {words} boolean conversion of traced array"
        f" in apply at flax/linen/module.py:{line}.\n"
        f"See {JAX}/{page}.html#jax.errors.TracerBoolConversionError\n"
    )


def _entry(*actual: str, device: dict[str, Any] = CPU, versions: dict[str, str] = NEW) -> Any:
    examples = [
        {
            "kind": "bad",
            "source": f"TracerBoolConversionError.txt:{10 * number}",
            "status": "passed",
            "expected": DOCUMENTED,
            "actual": text,
            "seconds": 0.1,
            "detail": "",
            "diff": "",
        }
        for number, text in enumerate(actual, 1)
    ]
    return {
        "name": "TracerBoolConversionError",
        "qualname": "jax.errors.TracerBoolConversionError",
        "url": "errors.html#jax.errors.TracerBoolConversionError",
        "source": "jax/_src/errors.py:414",
        "summary": "A traced array was asked for True or False.",
        "status": "passed",
        "executed": True,
        "device": device,
        "versions": versions,
        "problems": [],
        "examples": examples,
    }


def _run(name: str, *actual: str, device: dict[str, Any], versions: dict[str, str]) -> DeviceRun:
    entry = _entry(*actual, device=device, versions=versions)
    document = {"schema": 1, "device": device, "versions": versions, "entries": [entry]}
    return parse_run(json.dumps(document), name)


HERE = EntryRecord.from_json(_entry(_raised(), _raised()))
# Python 3.11's stack, on one CPU device and on eight: the same old JAX and Flax.
OLDER = (_raised(page="errors"), _raised(page="errors", line=2091))
STACK = _run("python-3.11.json", *OLDER, device=CPU, versions=OLD)
EIGHT = _run("cpu-8-devices.json", *OLDER, device=CPUS, versions=OLD)


def test_runs_of_the_same_versions_that_differ_alike_are_said_once() -> None:
    outcomes = compare(HERE, [EIGHT, STACK], NEW)
    assert len(outcomes) == 2
    (group,) = differing(outcomes, LINKS)
    assert group.outcomes == tuple(outcomes)
    assert group.shown == ()
    assert [found for _, found in group.incidental] == [(PAGE,), (PAGE, LINE)]
    assert group.sentence() == (
        "Bad examples 1 and 2: the same message with flax 0.12.8, jax 0.10.2, jaxlib 0.10.2"
        " on CPU \u00d78 and on CPU, except the page of its link (errors.html; 101/errors.html"
        " in this build) and a line number in flax/linen/module.py (bad example 2)."
    )


def test_one_run_keeps_its_own_phrase() -> None:
    (group,) = differing(compare(HERE, [STACK], NEW), LINKS)
    assert group.phrase == "with flax 0.12.8, jax 0.10.2, jaxlib 0.10.2"
    assert group.there == "with flax 0.12.8, jax 0.10.2, jaxlib 0.10.2"
    assert group.sentence().startswith(
        "Bad examples 1 and 2: the same message with flax 0.12.8, jax 0.10.2, jaxlib 0.10.2,"
        " except"
    )


def test_other_wording_is_shown_in_full_beside_the_incidental_differences() -> None:
    reworded = _run(
        "python-3.11.json",
        _raised(page="errors", words="Tried a"),
        _raised(page="errors", line=2091),
        device=CPU,
        versions=OLD,
    )
    (group,) = differing(compare(HERE, [reworded], NEW), LINKS)
    (shown,) = group.shown
    assert shown.example == "bad example 1"
    assert "Tried a boolean" in shown.text_there
    assert group.title() == (
        "Differs with flax 0.12.8, jax 0.10.2, jaxlib 0.10.2:"
        " bad example 1: passed in both, with other text"
    )
    assert group.sentence().startswith("Bad example 2: the same message with flax 0.12.8,")
    assert "(bad example 2)" not in group.sentence()


def test_a_link_to_another_errors_anchor_is_shown_in_full() -> None:
    other = _raised(page="errors").replace("#jax.errors.TracerBool", "#jax.errors.Concretization")
    run = _run("python-3.11.json", other, OLDER[1], device=CPU, versions=OLD)
    (group,) = differing(compare(HERE, [run], NEW), LINKS)
    assert [d.example for d in group.shown] == ["bad example 1"]
    assert [d.example for d, _ in group.incidental] == ["bad example 2"]


def test_runs_that_differ_otherwise_or_of_other_versions_stay_apart() -> None:
    gpu = _run("gpu.json", *OLDER, device=GPU, versions={**OLD, "flax": "0.12.10"})
    reworded = _run(
        "cpu-8-devices.json",
        _raised(page="errors", words="Tried a"),
        OLDER[1],
        device=CPUS,
        versions=OLD,
    )
    groups = differing(compare(HERE, [gpu, STACK, reworded], NEW), LINKS)
    assert [[o.source for o in g.outcomes] for g in groups] == [
        ["gpu.json"],
        ["python-3.11.json"],
        ["cpu-8-devices.json"],
    ]
    assert groups[0].phrase == "on GPU (NVIDIA H200) with flax 0.12.10, jax 0.10.2, jaxlib 0.10.2"
    assert groups[2].there == "on CPU \u00d78"


def test_a_run_that_agrees_is_no_group() -> None:
    same = _run("gpu.json", _raised(), _raised(), device=GPU, versions=NEW)
    assert differing(compare(HERE, [same], NEW), LINKS) == []


def test_a_link_to_the_same_anchor_on_a_forwarded_page_is_incidental() -> None:
    found = incidental(_message(), _message(page="errors"), LINKS)
    assert found == (PAGE,)


def test_a_line_number_is_incidental() -> None:
    found = incidental(_message(line=2089), _message(line=2091), LINKS)
    assert found == (LINE,)


def test_both_at_once_name_both() -> None:
    found = incidental(_message(), _message(line=2091, page="errors"), LINKS)
    assert found == (PAGE, LINE)


def test_a_line_number_in_a_traceback_frame_is_incidental() -> None:
    frame = '  File "flax/core/scope.py", line {}, in param\nm.ShapeError: bad\n'
    found = incidental(frame.format(12), frame.format(14))
    assert found == ("a line number in flax/core/scope.py",)


def test_other_wording_is_a_real_difference() -> None:
    reworded = _message(page="errors").replace("Attempted boolean", "Tried a boolean")
    assert incidental(_message(), reworded, LINKS) is None


def test_a_link_to_another_errors_anchor_is_a_real_difference() -> None:
    other = _message(page="errors", name="ConcretizationTypeError")
    assert incidental(_message(), other, LINKS) is None
    # On the same page too: the anchor is what the reader follows.
    assert incidental(_message(), _message(name="ConcretizationTypeError"), LINKS) is None


def test_a_link_to_another_site_or_out_of_it_is_a_real_difference() -> None:
    elsewhere = _message().replace(JAX, "https://jax.readthedocs.io/en/latest")
    assert incidental(_message(), elsewhere, LINKS) is None
    climbing = _message(page="../old/errors")
    assert incidental(_message(page="errors"), climbing, LINKS) is None


def test_without_the_printed_links_a_links_page_is_a_real_difference() -> None:
    assert incidental(_message(), _message(page="errors")) is None
    assert incidental(_message(line=1), _message(line=2)) == (LINE,)


def test_another_file_or_the_same_text_is_not_incidental() -> None:
    moved = _message().replace("flax/linen/module.py", "flax/linen/transforms.py")
    assert incidental(_message(), moved, LINKS) is None
    assert incidental(_message(), _message(), LINKS) is None
