"""Messages worded as past releases worded them find their entry, with those releases."""

from __future__ import annotations

import pytest

from flax_errors_ext.cli import ExitCode, main
from flax_errors_ext.model.history.releases import History, Outcome
from flax_errors_ext.model.lookup import find as lookup
from flax_errors_ext.model.lookup.find import recorded_wordings, wording_of
from tests.model.history.release_runs import absent, example, history, present
from tests.utils import FLAX


def _history_of_a() -> list[History]:
    return [
        history(
            ("0.4.2", absent(example("no io", Outcome.COULD_NOT_RUN))),
            ("0.6.11", present(example('flax.errors.A: Initializer gave (3, 8) for "kernel".'))),
            ("0.7.5", present(example('flax.errors.A: Initializer gave (3, 8) for "kernel".'))),
            ("0.8.5", present(example('flax.errors.A: For "kernel", expected (3, 8).'))),
        )
    ]


def test_every_raised_text_is_a_wording_with_its_releases_newest_first() -> None:
    wordings = recorded_wordings(_history_of_a())
    assert [(w.qualname, w.versions) for w in wordings] == [
        ("flax.errors.A", "0.8.5"),
        ("flax.errors.A", "0.6.11-0.7.5"),
    ]
    older = wording_of(wordings, "flax.errors.A", 'Initializer gave (5,) for "bias".')
    assert older is not None
    assert older.versions == "0.6.11-0.7.5"
    assert wording_of(wordings, "flax.errors.B", 'Initializer gave (5,) for "bias".') is None
    assert wording_of(wordings, "flax.errors.A", "something else entirely") is None


def test_find_matches_an_older_wording_of_a_real_entry() -> None:
    (entry,) = (e for e in FLAX.entries if e.name == "ScopeParamShapeError")
    pasted = 'Initializer expected to generate shape (5,) but got shape (7,) instead for "bias".'
    assert not lookup.find([entry], pasted)  # today's text alone does not match
    older = {entry.qualname: ["flax.errors.ScopeParamShapeError: " + pasted.replace("5", "3")]}
    (match,) = lookup.find([entry], pasted, older)
    assert (match.entry, match.how) == (entry, "message")


@pytest.mark.parametrize(
    ("pasted", "note"),
    [
        (
            "Initializer expected to generate shape (5,) but got shape (7,) instead for parameter "
            '"bias" in "/Encoder/Dense_3".',
            "Your message is worded as flax 0.6.11-0.10.7 worded it",
        ),
        (
            'For parameter "bias" in "/Encoder/Dense_3", the given initializer is expected to '
            "generate shape (5,), but the existing parameter it received has shape (7,).",
            None,  # today's wording: no note
        ),
    ],
)
def test_explain_says_which_releases_worded_a_message_so(
    capsys: pytest.CaptureFixture[str], pasted: str, note: str | None
) -> None:
    code = main(["explain", pasted])
    out = capsys.readouterr().out

    assert code == ExitCode.OK
    assert out.startswith("ScopeParamShapeError (flax.errors.ScopeParamShapeError)")
    if note is None:
        assert "worded as flax" not in out
    else:
        assert note in out
