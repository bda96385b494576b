"""Each error across Flax's releases on the site: cells, lines, stale records, retired errors.

The model is tested on small hand-made histories; the site on the test root
``tests/roots/test-history`` (its own module and history.json: one entry kept up to
date, one whose example was edited since it was recorded, one retired class).
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from sphinx.testing.util import SphinxTestApp

from flax_errors_ext.ext.history.model.cells import entry_codes, example_code_hash
from flax_errors_ext.ext.history.model.view import (
    ModuleHistory,
    build_release,
    build_row,
    module_history,
)
from flax_errors_ext.model.catalogue.parse import parse_docstring
from flax_errors_ext.model.catalogue.records import ExampleKind, StatementRun, Verdict
from flax_errors_ext.model.config import CatalogueConfig
from flax_errors_ext.model.history.releases import (
    SHIPPED,
    SHIPPED_HISTORY,
    EntryRun,
    ExampleRun,
    History,
    Outcome,
    Release,
    ReleaseRun,
    comparable,
)
from flax_errors_ext.model.runs.judge import judge
from tests.utils import FLAX

MakeApp = Callable[..., SphinxTestApp]

# --- the model, on hand-made histories of module m ---


def raised(text: str, code: str = "c1", exc_type: str = "m.E") -> ExampleRun:
    return ExampleRun(code, Outcome.RAISED, exc_type, text)


def other(text: str, code: str = "c1") -> ExampleRun:
    return ExampleRun(code, Outcome.RAISED_OTHER, text.split(":", 1)[0], text)


def could_not(reason: str, code: str = "c1") -> ExampleRun:
    return ExampleRun(code, Outcome.COULD_NOT_RUN, reason=reason)


def release(
    version: str, rows: dict[str, EntryRun], classes: tuple[str, ...] | None = None
) -> ReleaseRun:
    present = tuple(name for name, row in rows.items() if row.present)
    return ReleaseRun(
        Release(version, "1", "1", "3.11"), present if classes is None else classes, rows
    )


def history(*releases: ReleaseRun) -> History:
    return History(tuple(releases), "m")


def states(view: ModuleHistory, name: str = "E") -> list[str]:
    found = view.entry(name)
    assert found is not None
    return [cell.state.value for cell in found.cells]


def line(view: ModuleHistory, name: str = "E") -> str:
    found = view.entry(name)
    assert found is not None
    return found.line


def titles(view: ModuleHistory) -> str:
    return "\n".join(cell.title("m") for row in view.rows for cell in row.cells)


def test_each_release_gets_a_cell_coloured_by_what_it_did() -> None:
    recorded = history(
        release("0.1", {"E": EntryRun(False, (could_not("ImportError: no m.io"),))}),
        release("0.2", {"E": EntryRun(True, (could_not("AttributeError: no make"),))}),
        release("0.3", {"E": EntryRun(True, (ExampleRun("c1", Outcome.NO_RAISE),))}),
        release("0.4", {"E": EntryRun(True, (raised("m.E: old words (https://x/a)"),))}),
        release("0.5", {"E": EntryRun(True, (raised("m.E: new at 0x12ab (https://x/b)"),))}),
    )
    built = build_release(
        {"flax": "0.6", "jax": "1"},
        ["E"],
        {"E": EntryRun(True, (raised("m.E: new at 0x99ff (https://x/c)"),))},
    )

    view = module_history(recorded, {"E": ("c1",)}, built)

    assert view.releases == ("0.1", "0.2", "0.3", "0.4", "0.5", "0.6")
    assert view.current == "0.6"
    assert states(view) == [
        "not-present",
        "could-not-run",
        "not-raised",
        "changed",  # other words: the link and the address do not count
        "same",
        "same",
    ]
    entry = view.entry("E")
    assert entry is not None
    assert [cell.current for cell in entry.cells] == [False] * 5 + [True]
    assert line(view) == ("Raised with this text since 0.5; before that: «old words» (0.4)")
    assert entry.cells[0].title("m") == "flax 0.1: not in m\ncould not run: ImportError: no m.io"
    assert entry.cells[-1].title("m").startswith("flax 0.6 (this build): raised with the latest")
    assert entry.stale == ()


def test_an_error_no_longer_raised_says_since_when() -> None:
    recorded = history(
        release("0.1", {"E": EntryRun(True, (raised("m.E: words"),))}),
        release("0.2", {"E": EntryRun(True, (raised("m.E: words"),))}),
        release("0.3", {"E": EntryRun(True, (other("ValueError: bad"),))}),
    )
    view = module_history(recorded, {"E": ("c1",)})
    assert states(view) == ["same", "same", "not-raised"]
    assert line(view) == "No longer raised since 0.3; before that: «words» (0.1-0.2)"
    assert view.current == ""


def test_the_same_text_throughout_and_never_raised() -> None:
    same = history(*(release(v, {"E": EntryRun(True, (raised("m.E: w"),))}) for v in ("1", "2")))
    assert line(module_history(same, {"E": ("c1",)})) == (
        "Raised with this text in every release shown (1-2)"
    )
    never = history(release("1", {"E": EntryRun(True, (ExampleRun("c1", Outcome.NO_RAISE),))}))
    assert line(module_history(never, {"E": ("c1",)})) == (
        "Not raised by its example in any release shown"
    )


def test_the_first_release_that_raised_it_is_named_where_no_range_starts_there() -> None:
    def row(run: ExampleRun) -> dict[str, EntryRun]:
        return {"E": EntryRun(True, (run,))}

    recorded = history(
        release("0.1", row(raised("m.E: words"))),
        release("0.2", row(other("KeyError: 'x'"))),
        release("0.3", row(raised("m.E: words"))),
    )
    view = module_history(recorded, {"E": ("c1",)})
    assert states(view) == ["same", "not-raised", "same"]
    assert line(view) == "Raised with this text since 0.3; first raised in 0.1"


def test_the_line_quotes_the_example_whose_text_changed() -> None:
    def row(second: str) -> EntryRun:
        return EntryRun(True, (raised("m.E: one", "c1"), raised(f"m.E: {second}", "c2")))

    recorded = history(release("0.1", {"E": row("two")}), release("0.2", {"E": row("2")}))
    view = module_history(recorded, {"E": ("c1", "c2")})
    assert states(view) == ["changed", "same"]
    assert line(view) == (
        "Raised with this text since 0.2; before that: «bad example 2: two» (0.1)"
    )


def test_a_record_of_other_code_is_stale_and_never_shown() -> None:
    secret = "m.E: WHAT THE OLD CODE RAISED"
    recorded = history(
        release("0.1", {"E": EntryRun(True, (raised(secret, "old"),))}),
        release("0.2", {"E": EntryRun(True, (raised(secret, "old"),))}),
        release("0.3", {"E": EntryRun(True, (raised("m.E: now", "new"),))}),
        release("0.4", {}, ("E",)),  # no record of E at all
    )
    now = {"E": EntryRun(True, (raised("m.E: now", "new"),))}
    view = module_history(recorded, {"E": ("new",)}, build_release({"flax": "0.5"}, ["E"], now))

    assert states(view) == ["stale", "stale", "same", "stale", "same"]
    entry = view.entry("E")
    assert entry is not None
    assert entry.stale == ("0.1", "0.2", "0.4")
    assert entry.stale_releases == "0.1, 0.2, 0.4"
    assert line(view) == "Raised with this text in every release shown (0.3-0.5)"
    assert "OLD CODE" not in titles(view)
    assert "no record of the example as it is now" in entry.cells[0].title("m")


def test_an_entry_keeping_one_of_the_examples_that_ran_shows_that_ones_record() -> None:
    """A docstring keeps one bad example where the catalogue file had two."""
    two = EntryRun(True, (raised("m.E: first", "c1"), raised("m.E: second", "c2")))
    recorded = history(release("0.1", {"E": two}), release("0.2", {"E": two}))

    view = module_history(recorded, {"E": ("c2",)})

    assert states(view) == ["same", "same"]
    assert line(view) == "Raised with this text in every release shown (0.1-0.2)"
    assert "first" not in titles(view)
    # Kept with no bad example at all: where the class was, without a run to show.
    assert states(module_history(recorded, {"E": ()})) == ["present", "present"]


def test_the_builds_own_run_replaces_the_record_of_its_release() -> None:
    recorded = history(
        release("0.1", {"E": EntryRun(True, (raised("m.E: first"),))}),
        release("0.2", {"E": EntryRun(True, (raised("m.E: RECORDED, NOT THIS BUILD"),))}),
    )
    built = build_release({"flax": "0.2"}, ["E"], {"E": EntryRun(True, (raised("m.E: built"),))})

    view = module_history(recorded, {"E": ("c1",)}, built)

    assert view.releases == ("0.1", "0.2")
    assert states(view) == ["changed", "same"]
    assert "RECORDED" not in titles(view)
    assert "«built»" in titles(view)
    assert line(view) == ("Raised with this text since 0.2; before that: «first» (0.1)")


def test_an_entry_the_build_did_not_run_shows_no_record_of_its_release() -> None:
    recorded = history(release("0.2", {"E": EntryRun(True, (raised("m.E: recorded"),))}))
    view = module_history(recorded, {"E": ("c1",)}, build_release({"flax": "0.2"}, ["E"], {}))
    assert states(view) == ["not-run"]
    assert line(view) == ""
    assert "recorded" not in titles(view)
    assert build_release({}, ["E"], {}) is None  # a build that knows no Flax version


def test_an_unreachable_entry_that_an_old_release_raised_says_so() -> None:
    recorded = history(
        release(
            "0.1",
            {"U": EntryRun(False), "E": EntryRun(True, (other("m.U: once upon a time"),))},
            ("E",),
        ),
        release("0.2", {"U": EntryRun(True), "E": EntryRun(True, (raised("m.E: w"),))}),
        release("0.3", {"U": EntryRun(True), "E": EntryRun(True, (raised("m.E: w"),))}),
    )
    codes = {"U": (), "E": ("c1",)}
    view = module_history(recorded, codes, unreachable={"U"})
    assert states(view, "U") == ["not-present", "present", "present"]
    assert line(view, "U") == (
        "In m since 0.2; unreachable today, but 0.1 raised it (the example of E): "
        "«once upon a time»"
    )
    assert line(module_history(recorded, codes), "U") == "In m since 0.2"


def test_a_class_the_module_no_longer_has_is_retired() -> None:
    recorded = history(
        release("0.1", {"E": EntryRun(True, (other("m.R: retired words"),))}, ("E", "R")),
        release("0.2", {"E": EntryRun(True, (other("m.R: retired words"),))}, ("E", "R")),
        release("0.3", {"E": EntryRun(True, (raised("m.E: now"),))}, ("E",)),
    )
    view = module_history(recorded, {"E": ("c1",)})

    (gone,) = view.retired
    assert (gone.name, gone.retired) == ("R", True)
    assert [c.state.value for c in gone.cells] == ["same", "same", "not-present"]
    assert gone.line == (
        "In m from 0.1 to 0.2; gone since 0.3. Last raised in 0.2 (by the example of E): "
        "«retired words». The same code raises E today."
    )
    assert [row.name for row in view.rows] == ["E", "R"]
    # What replaces it is said only where the same code ran on the newest release.
    edited = history(*recorded.releases[:2], release("0.3", {}, ("E",)))
    (gone,) = module_history(edited, {"E": ("c1",)}).retired
    assert gone.line == (
        "In m from 0.1 to 0.2; gone since 0.3. Last raised in 0.2 (by the example of E): "
        "«retired words»."
    )
    # A class no example ever raised.
    quiet = history(release("1", {}, ("Q",)), release("2", {}, ()))
    (gone,) = module_history(quiet, {}).retired
    assert gone.line == "In m in 1 only; gone since 2. No recorded example raised it."


def test_a_retired_class_is_judged_against_the_builds_own_classes() -> None:
    recorded = history(release("0.1", {}, ("E", "R")))
    built = build_release({"flax": "0.2"}, ["E"], {})
    assert [r.name for r in module_history(recorded, {"E": ()}, built).retired] == ["R"]
    again = build_release({"flax": "0.2"}, ["E", "R"], {})
    assert module_history(recorded, {"E": ()}, again).retired == ()


def test_release_labels_are_short_unless_two_share_a_line() -> None:
    assert ModuleHistory("m", ("0.4.2", "0.10.7", "0.10.8"), "", ()).labels == {
        "0.4.2": "0.4",
        "0.10.7": "0.10.7",
        "0.10.8": "0.10.8",
    }


def test_a_temporary_name_that_holds_an_address_compares_equal() -> None:
    assert comparable("/tmp/tmpiw0x858c/c") == comparable("/tmp/tmpsdaf48lm/c") == "/tmp/tmp…/c"


ENTRY = """\
Summary.

Bad example:

  >>> import m
  >>> m.go()
  Traceback (most recent call last):
    ...
  m.E: documented (...)

Good example:

  >>> print(1)
  1
"""


def test_the_builds_row_is_judged_as_the_history_judges_a_release() -> None:
    entry = parse_docstring(ENTRY, "m.E", "m.py", 1)
    bad, good = entry.examples
    assert bad.kind is ExampleKind.BAD
    runs = (StatementRun(""), StatementRun("", "m.E", "m.E: the text (https://x)\n"))
    results = [judge(bad, runs), judge(good, (StatementRun("1\n"),))]

    row = build_row(entry, results)

    assert row is not None
    assert row.present
    assert tuple(run.code for run in row.examples) == (example_code_hash(bad),)
    (run,) = row.examples
    assert (run.outcome, run.exc_text) == (Outcome.RAISED, "m.E: the text (https://x)")
    # Not run: no row; crashed: could not run, and why.
    assert build_row(entry, [judge(bad, None, Verdict.NOT_RUN), results[1]]) is None
    crashed = build_row(entry, [judge(bad, None, Verdict.CRASHED, "the kernel died"), results[1]])
    assert crashed is not None
    assert crashed.examples[0].outcome is Outcome.COULD_NOT_RUN
    assert crashed.examples[0].reason == "the kernel died"


def test_the_setting_defaults_to_the_shipped_history() -> None:
    assert CatalogueConfig().history == (SHIPPED,)
    values = {"flax_errors_history": "mine.json"}
    assert CatalogueConfig.from_values(values).history == ("mine.json",)
    with pytest.raises(ValueError, match="flax_errors_history must be a file, or a list"):
        CatalogueConfig.from_values({"flax_errors_history": 3})


def test_the_shipped_history_is_fresh_for_the_shipped_catalogue() -> None:
    """Every flax.errors entry's record is of its examples' code now (else the site warns)."""
    recorded = History.from_json(json.loads(SHIPPED_HISTORY.read_text("utf-8")))
    view = module_history(recorded, entry_codes(FLAX.entries))
    assert {e.name: e.stale for e in view.entries if e.stale} == {}
    assert [r.name for r in view.retired] == [
        "GDACheckpointingRequiredError",
        "GDARestoreTargetRequiredError",
        "MPARestoreTypeNotMatchError",
    ]
