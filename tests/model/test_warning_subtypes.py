"""The warning subtypes: names users suppress, each with the meaning the options page shows."""

from __future__ import annotations

import re

from flax_errors_ext.model.catalogue.records import Verdict
from flax_errors_ext.model.warning_subtypes import WarningSubtype


def test_no_name_is_an_alias_of_another_subtype() -> None:
    # Iterating skips aliases; __members__ maps an alias's name to the member it aliases.
    aliases = {
        name: member.name
        for name, member in WarningSubtype.__members__.items()
        if member.name != name
    }
    assert aliases == {}


def test_each_subtype_is_a_kebab_case_name_with_a_one_line_meaning() -> None:
    for subtype in WarningSubtype:
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", subtype.value), subtype
        assert subtype.description.endswith("."), subtype
        assert "\n" not in subtype.description, subtype


def test_the_published_names_stay_as_they_are() -> None:
    # Projects name these in suppress_warnings: renaming one breaks their builds.
    assert {subtype.value for subtype in WarningSubtype} >= {
        "drifted",
        "no-raise",
        "wrong-class",
        "raised",
        "too-loose",
        "timed-out",
        "crashed",
        "upstream",
        "malformed",
        "undocumented",
        "catalogue",
        "import",
        "unforwarded",
        "cache",
        "device",
        "history",
        "history-stale",
        "device-runs",
        "varies",
    }


def test_every_failing_verdict_is_a_subtype_of_its_own_name() -> None:
    failing = [verdict for verdict in Verdict if verdict.failed]
    assert failing
    for verdict in failing:
        assert WarningSubtype(verdict.value) == verdict.value


def test_a_member_is_its_name_wherever_text_is_wanted() -> None:
    assert f"[flax-errors.{WarningSubtype.NO_RAISE}]" == "[flax-errors.no-raise]"
    assert WarningSubtype("history-stale") is WarningSubtype.HISTORY_STALE
