"""Cutting a statement's text to the output limit, and keeping its verdict."""

from __future__ import annotations

import doctest
import re

import pytest

from flax_errors_ext.execution.cache.store import key
from flax_errors_ext.execution.catalogue.modules import load_module
from flax_errors_ext.execution.runs.in_process import run_statements
from flax_errors_ext.model.config import CatalogueConfig
from flax_errors_ext.model.runs.fingerprint import Device, Fingerprint
from flax_errors_ext.model.runs.jobs import entry_job, statement_numbers
from flax_errors_ext.model.runs.judge import OPTION_FLAGS
from flax_errors_ext.model.runs.output_limit import DEFAULT_LIMIT, cut, fit, is_cut

ROWS = "".join(f"row {i}\n" for i in range(20_000))
"""About 200 KB, one row a line."""


def accepts(documented: str, text: str) -> bool:
    return doctest.OutputChecker().check_output(documented, text, OPTION_FLAGS)


def cut_count(text: str) -> int:
    found = re.search(r"\[flax-errors: ([\d,]+) characters cut; the example was judged", text)
    assert found is not None, text
    return int(found.group(1).replace(",", ""))


@pytest.mark.parametrize("size", [0, 1, 999, 1000])
def test_a_text_within_the_limit_is_kept_whole(size: int) -> None:
    text = "x" * size
    assert cut(text, 1000) == text
    assert not is_cut(cut(text, 1000))


def test_a_text_over_the_limit_keeps_head_and_tail_around_one_marker() -> None:
    text = "".join(chr(ord("a") + i % 26) for i in range(10_001))  # no line breaks
    short = cut(text, 1000)
    head, marker, tail = short.split("\n")
    assert is_cut(short)
    assert marker.startswith("... [flax-errors: ")
    assert marker.endswith("] ...")
    assert (len(head), len(tail)) == (666, 334)
    assert text.startswith(head)
    assert text.endswith(tail)
    assert cut_count(short) == len(text) - len(head) - len(tail) == 9001
    assert "9,001 characters cut" in marker


def test_a_cut_keeps_whole_lines_and_states_how_much_went() -> None:
    short = cut(ROWS, 1000)
    head, tail = short.split(short.splitlines(keepends=True)[_marker_line(short)])
    assert head.endswith("\n")
    assert ROWS.startswith(head)
    assert tail.startswith("row ")
    assert ROWS.endswith(tail)
    assert head.count("\n") + tail.count("\n") < 1000 // 5
    assert cut_count(short) == len(ROWS) - len(head) - len(tail)
    assert len(short) <= 1000 + 100


def _marker_line(text: str) -> int:
    (index,) = [i for i, line in enumerate(text.splitlines()) if is_cut(line)]
    return index


def test_the_cut_keeps_what_the_documented_text_anchors() -> None:
    short = cut(ROWS, 1000)
    assert accepts("row 0\nrow 1\n...\nrow 19999\n", ROWS)
    assert accepts("row 0\nrow 1\n...\nrow 19999\n", short)
    # A drift stays a drift.
    assert not accepts("row 0\n...\nrow 20000\n", short)


def test_fit_keeps_a_verdict_the_plain_cut_would_change() -> None:
    documented = "row 0\n...\nrow 12345\n...\nrow 19999\n"
    assert accepts(documented, ROWS)
    assert not accepts(documented, cut(ROWS, 1000))  # row 12345 was in the cut part

    kept = fit(ROWS, documented, OPTION_FLAGS, 1000)
    assert accepts(documented, kept)
    assert "row 12345\n" in kept
    assert is_cut(kept)
    assert len(kept) < 1500

    drifted = "row 0\n...\nrow 12345 changed\n...\nrow 19999\n"
    assert not accepts(drifted, fit(ROWS, drifted, OPTION_FLAGS, 1000))
    assert fit(ROWS, drifted, OPTION_FLAGS, 1000) == cut(ROWS, 1000)
    assert fit("short", drifted, OPTION_FLAGS, 1000) == "short"


def test_fit_keeps_the_whole_text_when_no_cut_keeps_the_verdict() -> None:
    documented = ROWS.replace("row 9\n", "row 9 \n")  # the whole output, spelled out
    assert fit(ROWS, documented, OPTION_FLAGS, 1000) == ROWS


def test_the_kernel_records_the_cut_text_of_output_message_and_traceback() -> None:
    statements = [
        (0, "print('x' * 50_000)\n"),
        (1, "raise ValueError('y' * 50_000)\n"),
        (2, "print('small')\n"),
    ]
    records = run_statements("limit_test", 3, statements, {}, output_limit=600)

    printed, raised, small = records
    assert printed["got"] == printed["transcript"] == cut("x" * 50_000 + "\n", 600)
    assert cut_count(printed["got"]) == 50_001 - 600
    assert raised["exc_type"] == "ValueError"
    assert raised["exc_msg"].startswith("ValueError: yyy")
    assert is_cut(raised["exc_msg"])
    assert raised["transcript"].startswith("Traceback (most recent call last):")
    assert is_cut(raised["transcript"])
    assert len(raised["transcript"]) < 800
    assert small["got"] == "small\n"


def test_the_kernel_keeps_what_a_documented_text_matches() -> None:
    statements = [(0, "print(''.join(f'row {i}\\n' for i in range(20_000)), end='')\n")]
    documented = {0: ("row 0\n...\nrow 12345\n...\nrow 19999\n", OPTION_FLAGS)}

    (plain,) = run_statements("limit_test", 1, statements, {}, output_limit=1000)
    (kept,) = run_statements(
        "limit_test", 1, statements, {}, output_limit=1000, documented=documented
    )
    assert plain["got"] == cut(ROWS, 1000)
    assert kept["got"] == kept["transcript"] == fit(ROWS, *documented[0], 1000)
    assert "row 12345\n" in kept["got"]


def test_without_a_limit_nothing_is_cut() -> None:
    (record,) = run_statements("limit_test", 1, [(0, "print('x' * 200_000)\n")], {})
    assert record["got"] == "x" * 200_000 + "\n"


@pytest.mark.parametrize("value", [0, -1, 1.5, True, "1e5"])
def test_the_limit_must_be_a_positive_whole_number(value: object) -> None:
    with pytest.raises(ValueError, match="flax_errors_output_limit must be a positive whole"):
        CatalogueConfig.from_values({"flax_errors_output_limit": value})
    assert CatalogueConfig().output_limit == DEFAULT_LIMIT
    assert CatalogueConfig.changes_pages("flax_errors_output_limit")


def test_the_limit_and_any_documented_text_key_the_cache() -> None:
    entry = load_module("flax_errors_ext.errors").entries[0]
    fingerprint = Fingerprint.of({"jax": "1"}, Device("cpu", "cpu", 1), {})
    plain = entry_job(entry, None, (), 1000)
    other = entry_job(entry, None, (), 2000)
    assert key(other, fingerprint) != key(plain, fingerprint)
    assert all(not example.documented for example in plain.examples)

    last = statement_numbers(entry)[0][-1]
    documented = entry_job(entry, None, (), 1000, {last})
    assert documented.examples[1:] == plain.examples[1:]
    assert [n for n, _ in documented.examples[0].documented] == [last]
    assert key(documented, fingerprint) != key(plain, fingerprint)
