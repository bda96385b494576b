"""flax.json's summaries: each entry's history in a line, read back from the data."""

from __future__ import annotations

import json

from flax_errors_ext.model.history.releases import History, Outcome, retired, timelines
from tests.model.history.release_runs import absent, example, history, present
from tools.history.summaries import describe, document, entry_summary, example_summary


def test_raised_with_one_text_everywhere() -> None:
    data = history(
        ("0.6.11", present(example("flax.errors.A: text"))),
        ("0.8.5", present(example("flax.errors.A: text"))),
    )
    assert (
        entry_summary(data, "A")
        == "raised with this text in every recorded release (0.6.11-0.8.5)"
    )


def test_raised_since_with_older_wordings_and_first_release() -> None:
    data = history(
        (
            "0.4.2",
            absent(example("statement 2 of 3 raised ImportError: no io", Outcome.COULD_NOT_RUN)),
        ),
        ("0.6.11", present(example("flax.errors.A: old text"))),
        ("0.7.5", present(example("flax.errors.A: old text"))),
        ("0.8.5", present(example("flax.errors.A: new text"))),
        ("0.12.8", present(example("flax.errors.A: new text"))),
    )
    assert entry_summary(data, "A") == (
        "in flax.errors since 0.6.11; raised with this text since 0.8.5; before that: "
        "«flax.errors.A: old text» (0.6.11-0.7.5), could not run (0.4.2, not in flax.errors: "
        "statement 2 of 3 raised ImportError: no io); first raised in 0.6.11"
    )


def test_no_longer_raised() -> None:
    data = history(
        ("0.6.11", present(example("flax.errors.A: text"))),
        ("0.9.0", present(example(outcome=Outcome.NO_RAISE))),
        ("0.12.8", present(example("ValueError: checked earlier", Outcome.RAISED_OTHER))),
    )
    (spans,) = timelines(data, "A")
    assert example_summary(spans) == (
        "no longer raised since 0.9.0: «ValueError: checked earlier» (0.12.8); before that: "
        "raised nothing (0.9.0), «flax.errors.A: text» (0.6.11); first raised in 0.6.11"
    )


def test_never_raised() -> None:
    data = history(("0.12.8", present(example(outcome=Outcome.NO_RAISE))))
    assert (
        entry_summary(data, "A")
        == "never raised in the recorded releases; raised nothing (0.12.8)"
    )


def test_records_of_other_code_are_left_out() -> None:
    data = history(
        ("0.6.11", present(example("flax.errors.A: old", code="old"))),
        ("0.8.5", present(example("flax.errors.A: new", code="new"))),
    )
    assert (
        entry_summary(data, "A", ("new",))
        == "raised with this text in every recorded release (0.8.5)"
    )
    assert entry_summary(data, "A", ("newer",)) == "no recorded release ran this code"


def test_several_bad_examples_are_numbered() -> None:
    data = history(
        ("0.8.5", present(example("flax.errors.A: one"), example(outcome=Outcome.NO_RAISE))),
    )
    assert entry_summary(data, "A") == (
        "bad example 1: raised with this text in every recorded release (0.8.5); "
        "bad example 2: never raised in the recorded releases; raised nothing (0.8.5)"
    )


def test_long_texts_are_shortened_in_summaries_only() -> None:
    text = "flax.errors.A: " + "word " * 100
    data = history(("0.8.5", present(example(text))))
    summary = entry_summary(data, "A", None)
    assert summary == "raised with this text in every recorded release (0.8.5)"
    clause = describe(timelines(data, "A")[0][0])
    assert clause.endswith("…» (0.8.5)")
    assert len(clause) < 200
    assert data.releases[0].entries["A"].examples[0].exc_text == text


def test_presence_that_comes_and_goes() -> None:
    data = history(
        ("0.6.11", present(example("flax.errors.A: x"))),
        ("0.8.5", absent(example("ValueError: y", Outcome.RAISED_OTHER))),
        ("0.12.8", present(example("flax.errors.A: x"))),
    )
    assert entry_summary(data, "A").startswith("in flax.errors in 0.6.11, 0.12.8; ")
    assert retired(data) == ()


def test_the_document_holds_the_data_and_what_it_says() -> None:
    data = history(("0.8.5", present(example("flax.errors.A: x"))))
    written = json.loads(json.dumps(document(data, {"A": ("c1",)})))
    assert History.from_json(written) == data
    assert written["summaries"] == {"A": entry_summary(data, "A", ("c1",))}
    assert written["summaries"]["A"].startswith("raised with this text")
    assert written["retired"] == []
