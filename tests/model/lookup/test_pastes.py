"""Real pastes from public threads (``pastes.toml``): what explain and the help answer.

Each paste of an entry's error finds that entry first, or, where it is marked
``miss``, finds nothing at all (today's recall, with the reason); each negative
finds nothing. The help under a traceback, reading the shipped index, answers as
``explain`` does on every one.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from flax_errors_ext.cli.selection import DEFAULT_MODULES
from flax_errors_ext.execution.catalogue.modules import load_module
from flax_errors_ext.execution.history.files import read_histories
from flax_errors_ext.help import SHIPPED_INDEX
from flax_errors_ext.model.history.releases import SHIPPED
from flax_errors_ext.model.lookup.find import by_entry, find, recorded_wordings
from flax_errors_ext.model.lookup.help_index import HelpIndex, answer
from flax_errors_ext.model.lookup.texts import raise_sites
from flax_errors_ext.model.runs.entry_record import EntryRecord

ENTRIES = [entry for name in DEFAULT_MODULES for entry in load_module(name).entries]
_HISTORIES, _ = read_histories(Path.cwd(), [SHIPPED], set(DEFAULT_MODULES))
OLDER = by_entry(recorded_wordings(_HISTORIES.values()))
PASTES = tomllib.loads((Path(__file__).parent / "pastes.toml").read_text("utf-8"))["paste"]
INDEX = HelpIndex.from_json(json.loads(SHIPPED_INDEX.read_text("utf-8")))
# Where the stacks' committed runs raised each example, as explain reads them.
SITES = raise_sites(
    ENTRIES,
    [
        EntryRecord.from_json(record)
        for run in sorted(Path("flax_errors_ext/history").glob("python-*.json"))
        for record in json.loads(run.read_text("utf-8"))["entries"]
    ],
)


def _id(paste: dict[str, str]) -> str:
    return f"{paste['source'].removeprefix('https://github.com/')}-{paste.get('entry', 'none')}"


def test_the_set_is_large_and_every_paste_names_a_known_entry_and_its_thread() -> None:
    found = [p for p in PASTES if p.get("entry") and "miss" not in p]
    assert len(found) >= 20
    assert len([p for p in PASTES if not p.get("entry")]) >= 8
    names = {entry.qualname for entry in ENTRIES}
    for paste in PASTES:
        assert paste["source"].startswith("https://github.com/"), paste
        assert paste.get("entry", "") in names | {""}, paste["entry"]


@pytest.mark.parametrize("paste", PASTES, ids=[_id(p) for p in PASTES])
def test_a_paste_finds_its_entry_first_or_nothing_at_all(paste: dict[str, str]) -> None:
    matches = [m.entry.qualname for m in find(ENTRIES, paste["text"], OLDER, SITES)]

    if paste.get("entry") and "miss" not in paste:
        assert matches[:1] == [paste["entry"]], paste["source"]
    else:
        assert matches == [], paste.get("miss", "a negative")


@pytest.mark.parametrize("paste", PASTES, ids=[_id(p) for p in PASTES])
def test_the_help_answers_each_paste_as_explain_does(paste: dict[str, str]) -> None:
    matches = find(ENTRIES, paste["text"], OLDER, SITES)
    helped = answer(INDEX, paste["text"])

    assert (helped.found.qualname if helped else None) == (
        matches[0].entry.qualname if matches else None
    )
