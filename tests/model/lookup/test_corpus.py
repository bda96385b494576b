"""``explain``'s precision: real errors no entry documents are answered with none,
and every documented message, old wording and real paste still finds its entry.

The negatives are in ``negatives.toml`` (written by ``collect_negatives.py``, each
with the code that raised it).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from flax_errors_ext.cli.selection import DEFAULT_MODULES
from flax_errors_ext.execution.catalogue.modules import load_module
from flax_errors_ext.execution.history.files import read_histories
from flax_errors_ext.model.history.releases import SHIPPED
from flax_errors_ext.model.lookup.find import by_entry, find, recorded_wordings
from flax_errors_ext.model.lookup.paste import exception_line, message_body
from flax_errors_ext.model.lookup.texts import documented_messages, generic

if TYPE_CHECKING:
    from flax_errors_ext.model.catalogue.records import ErrorEntry, Example

MODULES = DEFAULT_MODULES
ENTRIES = [entry for name in MODULES for entry in load_module(name).entries]
_HISTORIES, _ = read_histories(Path.cwd(), [SHIPPED], set(MODULES))
WORDINGS = recorded_wordings(_HISTORIES.values())
OLDER = by_entry(WORDINGS)

CASES = tomllib.loads((Path(__file__).parent / "negatives.toml").read_text("utf-8"))["negative"]
NEGATIVES = [case for case in CASES if "entry" not in case]
CATALOGUED = [case for case in CASES if "entry" in case]
"""Real errors documented since they were collected, each by a message entry."""
TRACEBACK = 'Traceback (most recent call last):\n  File "train.py", line 7, in <module>\n'


def _as_pasted(entry: ErrorEntry, example: Example, text: str) -> str:
    """A message entry's text as a traceback shows it: its builtin class before it, and
    the library's frame where the text is Python's own words for any object."""
    if not entry.message:
        return text
    text = f"{example.documented_class}: {text}"
    if not generic(text.partition(": ")[2]):
        return text
    library = entry.qualname.split(".", 1)[0]
    return f'{TRACEBACK}  File "/venv/site-packages/{library}/module.py", line 1, in f\n{text}'


POSITIVES = [
    pytest.param(entry.qualname, _as_pasted(entry, example, text), id=f"{entry.name}-{n}")
    for entry in ENTRIES
    for n, (example, text) in enumerate(documented_messages(entry))
] + [
    pytest.param(wording.qualname, message_body(wording.text), id=f"{wording.qualname}-old-{n}")
    for n, wording in enumerate(WORDINGS)
]


def test_the_corpora_are_large_enough() -> None:
    assert len(NEGATIVES) >= 20  # 13 of the 35 collected are documented since
    assert len(CATALOGUED) >= 10
    assert len({case["id"] for case in NEGATIVES}) == len(NEGATIVES)
    assert len(POSITIVES) >= 100
    assert any(not w.current for w in WORDINGS), "no old wording to test"


@pytest.mark.parametrize("case", NEGATIVES, ids=[case["id"] for case in NEGATIVES])
def test_a_real_error_no_entry_documents_finds_none(case: dict[str, str]) -> None:
    for pasted in (case["text"], TRACEBACK + case["text"]):
        assert find(ENTRIES, pasted, OLDER) == [], case["source"]
    # The line a refusal quotes is the exception line, not the traceback's header.
    assert exception_line(TRACEBACK + case["text"]) == exception_line(case["text"])
    line = exception_line(case["text"]).removesuffix("...")  # long lines are cut
    assert any(whole.startswith(line) for whole in case["text"].splitlines())


@pytest.mark.parametrize("case", CATALOGUED, ids=[case["id"] for case in CATALOGUED])
def test_a_real_error_documented_since_finds_its_message_entry(case: dict[str, str]) -> None:
    for pasted in (case["text"], TRACEBACK + case["text"]):
        matches = find(ENTRIES, pasted, OLDER)
        assert [m.entry.qualname for m in matches][:1] == [case["entry"]], case["source"]


@pytest.mark.parametrize(("qualname", "message"), POSITIVES)
def test_every_documented_and_old_message_finds_its_entry(qualname: str, message: str) -> None:
    matches = find(ENTRIES, message, OLDER)

    assert matches, message
    best = (matches[0].how, matches[0].score)
    # Two entries may share one text (Flax raises two errors alike); both are offered.
    assert qualname in [m.entry.qualname for m in matches if (m.how, m.score) == best]


def test_jaxs_message_for_a_string_is_a_non_array_for_a_module_our_error() -> None:
    """JAX's invalid-argument error names the value's type: a string is not a Module."""
    string = next(case for case in CASES if case["id"] == "jit-string-argument")["text"]
    module = string.replace("<class 'str'>", "<class '__main__.Encoder'>")

    assert [m.entry.name for m in find(ENTRIES, module, OLDER)][:1] == ["JitPytreeError"]
    assert [m.entry.name for m in find(ENTRIES, string, OLDER)] == ["NonArrayArgumentToJit"]
