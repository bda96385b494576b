"""``explain``'s precision: real errors no entry documents are answered with none,
and every documented message, old wording and real paste still finds its entry.

The negatives are in ``negatives.toml`` (written by ``collect_negatives.py``, each
with the code that raised it).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from flax_errors_ext.execution.catalogue.modules import load_module
from flax_errors_ext.execution.history.files import read_histories
from flax_errors_ext.model.history.releases import SHIPPED
from flax_errors_ext.model.lookup.find import (
    documented_messages,
    exception_line,
    find,
    message_body,
    nearest,
)
from flax_errors_ext.model.lookup.wordings import by_entry, recorded_wordings

MODULES = ("flax_errors_ext.errors", "flax.errors", "jax.errors")
ENTRIES = [entry for name in MODULES for entry in load_module(name).entries]
_HISTORIES, _ = read_histories(Path.cwd(), [SHIPPED], set(MODULES))
WORDINGS = recorded_wordings(file.history for file in _HISTORIES.values())
OLDER = by_entry(WORDINGS)

NEGATIVES = tomllib.loads((Path(__file__).parent / "negatives.toml").read_text("utf-8"))[
    "negative"
]
TRACEBACK = 'Traceback (most recent call last):\n  File "train.py", line 7, in <module>\n'

POSITIVES = [
    pytest.param(entry.qualname, text, id=f"{entry.name}-{n}")
    for entry in ENTRIES
    for n, (_, text) in enumerate(documented_messages(entry))
] + [
    pytest.param(wording.qualname, message_body(wording.text), id=f"{wording.qualname}-old-{n}")
    for n, wording in enumerate(WORDINGS)
]


def test_the_corpora_are_large_enough() -> None:
    assert len(NEGATIVES) >= 25
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


@pytest.mark.parametrize(("qualname", "message"), POSITIVES)
def test_every_documented_and_old_message_finds_its_entry(qualname: str, message: str) -> None:
    matches = find(ENTRIES, message, OLDER)

    assert matches, message
    best = (matches[0].how, matches[0].score)
    # Two entries may share one text (Flax raises two errors alike); both are offered.
    assert qualname in [m.entry.qualname for m in matches if (m.how, m.score) == best]


def test_jaxs_generic_message_is_only_a_hint_for_a_string() -> None:
    """JAX's invalid-argument error names the value's type: a string is not a Module."""
    string = next(case for case in NEGATIVES if case["id"] == "jit-string-argument")["text"]
    module = string.replace("<class 'str'>", "<class '__main__.Encoder'>")

    assert [m.entry.name for m in find(ENTRIES, module, OLDER)][:1] == ["JitPytreeError"]
    assert [m.entry.name for m in nearest(ENTRIES, string, OLDER)] == ["JitPytreeError"]
