"""Real version-skew errors from public threads: what the API index answers.

``skew_pastes.toml`` was the development half; ``skew_holdout.toml`` was held out,
unread, until the answers were done.

Each report's truth was read from the releases' own sources, independently of the
index: which releases have the name or parameter, the release that added or removed
it, and the library that made the call. A negative (no ``name``) gets no answer. A
report marked ``miss`` is not answered right today, for the reason it gives.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from flax_errors_ext.model.lookup.api_index import ApiIndex, shipped
from flax_errors_ext.model.lookup.skew import answer_paste

if TYPE_CHECKING:
    from flax_errors_ext.model.lookup.skew_answer import SkewAnswer

INDEXES = [ApiIndex.read(path) for path in shipped()]
HERE = Path(__file__).parent


def reports(name: str) -> list[dict[str, str]]:
    """The reports of one of the two halves."""
    found: list[dict[str, str]] = tomllib.loads((HERE / name).read_text("utf-8"))["paste"]
    return found


def judged(report: dict[str, str]) -> str:
    """ "" where the answer is right, else what is wrong with it."""
    found = answer_paste(report["text"], INDEXES, {})
    if not report["name"]:
        return "" if found is None else f"answered a negative: {found.subject}"
    if found is None:
        return "no answer"
    return _wrong(report, found)


def _wrong(report: dict[str, str], found: SkewAnswer) -> str:
    name = report["name"].split("(")[0]
    param = report["name"].partition("(")[2].rstrip(")")
    if not found.subject.endswith(name.rpartition(".")[2]) or (
        param and param not in found.subject
    ):
        return f"another subject: {found.subject}"
    having, releases = found.having, found.releases
    if report["added"] == "none":
        return "" if not having else f"some release has it: {having[0]}"
    if report["added"] and (not having or having[0] != report["added"]):
        return f"added in {having[0] if having else 'none'}, not {report['added']}"
    if report["removed"]:
        after = (
            releases[releases.index(having[-1]) + 1]
            if having and having[-1] != releases[-1]
            else ""
        )
        if after != report["removed"]:
            return f"removed in {after or 'none'}, not {report['removed']}"
    if report["caller"] and found.caller != report["caller"]:
        return f"caller {found.caller!r}, not {report['caller']!r}"
    return ""


REPORTS = reports("skew_pastes.toml") + reports("skew_holdout.toml")


@pytest.mark.parametrize(
    "report", REPORTS, ids=[r["source"].split("github.com/")[-1] for r in REPORTS]
)
def test_a_real_skew_report_is_answered_with_its_releases(report: dict[str, str]) -> None:
    if "miss" in report:  # today's recall, with the reason
        assert judged(report) != "", f"answered now: drop its miss ({report['miss']})"
    else:
        assert judged(report) == ""
