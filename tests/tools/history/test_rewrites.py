"""Bad examples rewritten for old APIs in the history run: the table, applying it, the record."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from types import ModuleType

import pytest

from flax_errors_ext.execution.runs.runner import Runner
from flax_errors_ext.ext.history.model.cells import (
    bad_examples,
    entry_codes,
    example_code_hash,
    example_run,
)
from flax_errors_ext.ext.history.model.view import module_history
from flax_errors_ext.model.catalogue.parse import parse_docstring
from flax_errors_ext.model.catalogue.records import ErrorEntry, StatementRun
from flax_errors_ext.model.history.releases import (
    EntryRun,
    ExampleRun,
    History,
    Outcome,
    Release,
    ReleaseRun,
    Substitution,
)
from flax_errors_ext.model.runs.judge import judge
from tests.tools.history.history_files import runner
from tools.history.plan import Pin, merged, pending
from tools.history.rewrites import (
    Rule,
    entry_rewrites,
    parse_rules,
    rewrite,
    rules_for,
)

REPO = Path(__file__).resolve().parents[3]
HISTORY = REPO / "flax_errors_ext" / "history"
KEY = Substitution("jax.random.key(", "jax.random.PRNGKey(")
KEY_WHY = "old flax rejects new-style keys"

TABLE = """\
[[rule]]
old = "jax.random.key("
new = "jax.random.PRNGKey("
flax_below = "0.7"
why = "old flax rejects new-style keys"

[[rule]]
old = "nn.share_scope("
new = "nn.share_scope_old("
flax_from = "0.5"
flax_below = "0.6.11"
why = "made up, for the bounds"
"""

ENTRY = """\
Summary.

Bad example:

  >>> import jax
  >>> key = jax.random.key(0)  # a comment: jax.random.key(
  >>> other = jax.random.key_data(key)
  >>> skipped = jax.random.key(1)  # doctest: +SKIP
  >>> use(key)
  Traceback (most recent call last):
    ...
  flax.errors.MyError: made by jax.random.key(0)

Bad example:

  >>> import flax
  >>> flax.use(0)
  Traceback (most recent call last):
    ...
  flax.errors.MyError: text
"""


def entry(text: str = ENTRY) -> ErrorEntry:
    return parse_docstring(text, "flax.errors.MyError", "MyError.txt", 1)


def rules() -> tuple[Rule, ...]:
    return parse_rules(TABLE)


# --- the table ---


def test_the_table_parses_in_order_with_its_bounds() -> None:
    first, second = rules()
    assert first == Rule("jax.random.key(", "jax.random.PRNGKey(", KEY_WHY, "", "0.7")
    assert (second.flax_from, second.flax_below) == ("0.5", "0.6.11")
    assert first.substitution == KEY
    assert str(first) == "jax.random.key( → jax.random.PRNGKey( (flax < 0.7)"
    assert str(second).endswith("(flax >= 0.5, < 0.6.11)")


@pytest.mark.parametrize(
    ("rule", "problem"),
    [
        ('old = ""\nnew = "x"\nwhy = "w"', "no `old` text"),
        ('old = "x"\nwhy = "w"', "`new` must be given"),
        ('old = "x"\nnew = "x"\nwhy = "w"', "differ from `old`"),
        ('old = "x"\nnew = "y"', "no `why`"),
        ('old = "x"\nnew = "y"\nwhy = "  "', "no `why`"),
        ('old = "x"\nnew = "y"\nwhy = "w"\nflax_below = "soon"', "is not a version"),
        ('old = "x"\nnew = "y"\nwhy = "w"\nflax_after = "0.7"', "unknown keys"),
        ('old = "x"\nnew = 1\nwhy = "w"', "must be a string"),
    ],
)
def test_a_rule_that_is_not_exact_and_explained_is_refused(rule: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        parse_rules(f"[[rule]]\n{rule}\n")


def test_a_table_that_is_not_toml_or_has_other_tables_is_refused() -> None:
    with pytest.raises(ValueError, match="rewrites"):
        parse_rules("[[rule]\n")
    with pytest.raises(ValueError, match="unknown tables"):
        parse_rules('[release]\nflax = "0.4.2"\n')
    assert parse_rules("") == ()


def test_rules_apply_only_to_releases_in_their_bounds() -> None:
    key, made_up = rules()
    assert [key.applies_to(v) for v in ("0.4.2", "0.6.11", "0.7", "0.7.0", "0.7.5", "0.12.8")] == [
        True,
        True,
        False,
        False,
        False,
        False,
    ]
    assert [made_up.applies_to(v) for v in ("0.4.2", "0.5", "0.5.3", "0.6.11")] == [
        False,
        True,
        True,
        False,
    ]
    assert rules_for(rules(), "0.5.3") == rules()
    assert rules_for(rules(), "0.4.2") == (key,)
    assert rules_for(rules(), "0.8.5") == ()


def test_the_shipped_table_parses_and_spares_releases_that_take_new_keys() -> None:
    shipped = parse_rules((HISTORY / "rewrites.toml").read_text("utf-8"))
    assert shipped
    releases = tomllib.loads((HISTORY / "releases.toml").read_text("utf-8"))["release"]
    made = {r["flax"]: rules_for(shipped, r["flax"]) for r in releases}
    assert {r.substitution for r in made["0.4.2"]} >= {KEY}
    assert made["0.12.8"] == ()  # the catalogue is written for the newest: never rewritten
    assert all(rule.why for rule in shipped)


# --- applying it ---


def test_a_rewrite_is_an_exact_substitution_in_the_code_that_runs() -> None:
    first, second = bad_examples(entry())
    rewritten, made = rewrite(first, rules_for(rules(), "0.4.2"))
    assert made == (KEY,)
    sources = [s.source for s in rewritten.statements]
    assert sources[1] == "key = jax.random.PRNGKey(0)  # a comment: jax.random.PRNGKey(\n"
    assert sources[2] == "other = jax.random.key_data(key)\n"  # not the same text
    assert sources[3] == "skipped = jax.random.key(1)  # doctest: +SKIP\n"  # does not run
    # Only the code: the documented text, options and locations are the catalogue's.
    assert rewritten.statements[-1].exc_msg == first.statements[-1].exc_msg
    assert [s.location for s in rewritten.statements] == [s.location for s in first.statements]
    assert [s.options for s in rewritten.statements] == [s.options for s in first.statements]
    # An example the rules do not touch, or a release out of their bounds: as written.
    assert rewrite(second, rules_for(rules(), "0.4.2")) == (second, ())
    assert rewrite(first, rules_for(rules(), "0.7.5")) == (first, ())


def test_rules_are_made_in_the_tables_order() -> None:
    chained = parse_rules(
        '[[rule]]\nold = "a("\nnew = "b("\nwhy = "w"\n'
        '[[rule]]\nold = "b("\nnew = "c("\nwhy = "w"\n'
    )
    text = "Summary.\n\nBad example:\n\n  >>> a(1)\n  Traceback (most recent call last):\n"
    text += "    ...\n  flax.errors.MyError: x\n"
    (example,) = bad_examples(entry(text))
    rewritten, made = rewrite(example, chained)
    assert rewritten.statements[0].source == "c(1)\n"
    assert made == (Substitution("a(", "b("), Substitution("b(", "c("))


def test_entry_rewrites_per_bad_example() -> None:
    assert entry_rewrites([entry()], rules_for(rules(), "0.4.2")) == {"MyError": ((KEY,), ())}
    assert entry_rewrites([entry()], rules_for(rules(), "0.8.5")) == {"MyError": ((), ())}


def test_the_record_keeps_the_catalogues_code_hash() -> None:
    example = bad_examples(entry())[0]
    runnable, _ = rewrite(example, rules_for(rules(), "0.4.2"))
    runs = (StatementRun(got=""),) * 3 + (  # one of the five statements is skipped
        StatementRun(got="", exc_type="flax.errors.MyError", exc_msg="flax.errors.MyError: x\n"),
    )
    run = example_run(judge(example, runs))
    assert run.outcome is Outcome.RAISED
    assert run.code == example_code_hash(example) != example_code_hash(runnable)
    assert run.rewritten == ()  # the runner lists what it changed


# --- the record ---


def test_the_record_round_trips_and_old_records_read_as_not_rewritten() -> None:
    run = ExampleRun(
        "c1", Outcome.COULD_NOT_RUN, reason="statement 2 of 3 raised X", rewritten=(KEY,)
    )
    data = run.to_json()
    assert data["rewritten"] == [{"old": "jax.random.key(", "new": "jax.random.PRNGKey("}]
    assert ExampleRun.from_json(json.loads(json.dumps(data))) == run
    plain = ExampleRun("c1", Outcome.NO_RAISE)
    assert "rewritten" not in plain.to_json()
    assert ExampleRun.from_json({"code": "c1", "outcome": "no-raise"}) == plain
    history = History(
        (ReleaseRun(Release("0.4.2", "1", "1", "3.11"), (), {"A": EntryRun(True, (run,))}),)
    )
    assert History.from_json(json.loads(json.dumps(history.to_json()))) == history


def test_pending_reruns_what_a_changed_rule_changes() -> None:
    codes = {"A": ("c1", "c2"), "B": ("c3",)}
    plan = [Pin("0.4.2", "1", "1"), Pin("0.8.5", "1", "1")]
    old_key = Substitution("jax.random.key(", "jax.random.PRNGKey(")
    rows = {
        "A": EntryRun(
            True,
            (
                ExampleRun("c1", Outcome.RAISED, rewritten=(old_key,)),
                ExampleRun("c2", Outcome.RAISED),
            ),
        ),
        "B": EntryRun(True, (ExampleRun("c3", Outcome.RAISED),)),
    }
    data = History((ReleaseRun(Release("0.4.2", "1", "1", "3.11"), (), rows),))
    data = merged(
        data,
        ReleaseRun(
            Release("0.8.5", "1", "1", "3.11"),
            (),
            {
                "A": EntryRun(
                    True, (ExampleRun("c1", Outcome.RAISED), ExampleRun("c2", Outcome.RAISED))
                ),
                "B": rows["B"],
            },
        ),
    )
    made = {"0.4.2": {"A": ((old_key,), ()), "B": ((),)}}
    assert pending(data, plan, codes, made) == {}
    # A rule whose text changed: the examples it rewrites, on the releases it is made on.
    other = Substitution("jax.random.key(", "jax.random.PRNGKey(int(")
    assert pending(data, plan, codes, {"0.4.2": {"A": ((other,), ()), "B": ((),)}}) == {
        "0.4.2": ("A",)
    }
    # A rule that now reaches another release, or no longer reaches one.
    assert pending(data, plan, codes, {**made, "0.8.5": {"A": ((old_key,), ())}}) == {
        "0.8.5": ("A",)
    }
    assert pending(data, plan, codes, {}) == {"0.4.2": ("A",)}
    # Without rewrites (as before there were any): records of unrewritten runs are done.
    assert pending(data, plan[1:], codes) == {}


def test_the_view_says_an_example_ran_rewritten_and_how() -> None:
    made = (KEY,)
    rewritten_raise = ExampleRun("c1", Outcome.RAISED, "m.E", "m.E: old text", rewritten=made)
    records = History(
        (
            ReleaseRun(
                Release("0.4.2", "1", "1", "3.11"),
                ("E", "Gone"),
                {"E": EntryRun(True, (rewritten_raise,))},
            ),
            ReleaseRun(
                Release("0.5.3", "1", "1", "3.11"),
                ("E", "Gone"),
                {
                    "E": EntryRun(
                        True,
                        (
                            ExampleRun(
                                "c1", Outcome.RAISED, "m.Gone", "m.Gone: gone text", rewritten=made
                            ),
                        ),
                    )
                },
            ),
            ReleaseRun(
                Release("0.8.5", "1", "1", "3.11"),
                ("E",),
                {"E": EntryRun(True, (ExampleRun("c1", Outcome.RAISED, "m.E", "m.E: new text"),))},
            ),
        ),
        "m",
    )
    view = module_history(records, {"E": ("c1",)})
    found = view.entry("E")
    assert found is not None
    first, _, last = found.cells
    assert first.rewritten == made
    assert last.rewritten == ()
    assert (
        "(run as rewritten for this release: jax.random.key( → jax.random.PRNGKey()"
        in first.title("m")
    )
    assert "rewritten" not in last.title("m")
    assert (
        found.rewritten
        == "Run as rewritten for flax 0.4.2-0.5.3: jax.random.key( → jax.random.PRNGKey("
    )
    (gone,) = view.retired
    assert gone.cells[1].rewritten == made
    assert "run as rewritten for this release" in gone.cells[1].title("m")
    assert "(by the example of E, run as rewritten for that release: jax.random.key(" in gone.line
    # A record of other code is stale: nothing of it is shown, rewritten or not.
    stale = module_history(records, {"E": ("c2",)}).entry("E")
    assert stale is not None
    assert stale.rewritten == ""


def test_a_view_of_records_never_rewritten_says_nothing_of_it() -> None:
    records = History(
        (
            ReleaseRun(
                Release("0.8.5", "1", "1", "3.11"),
                ("E",),
                {"E": EntryRun(True, (ExampleRun("c1", Outcome.RAISED, "m.E", "m.E: text"),))},
            ),
        ),
        "m",
    )
    found = module_history(records, {"E": ("c1",)}).entry("E")
    assert found is not None
    assert found.rewritten == ""
    assert "rewritten" not in found.cells[0].title("m")


def test_the_shipped_history_records_the_rewrites_the_table_makes() -> None:
    path = HISTORY / "flax.json"
    assert path.is_file(), f"{path} is missing: the site's history reads it"
    data = History.from_json(json.loads(path.read_text("utf-8")))
    shipped = parse_rules((HISTORY / "rewrites.toml").read_text("utf-8"))
    entries = [
        parse_docstring(p.read_text("utf-8"), f"flax.errors.{p.stem}", str(p), 1)
        for p in sorted((REPO / "flax_errors_ext" / "catalogue" / "flax.errors").glob("*.txt"))
    ]
    codes = entry_codes(entries)
    plan = [Pin.of(r.release) for r in data.releases]
    made = {
        r.release.flax: entry_rewrites(entries, rules_for(shipped, r.release.flax))
        for r in data.releases
    }
    assert pending(data, plan, codes, made) == {}, "run nox -s history"


# --- the runner, in this interpreter ---


@pytest.mark.examples
def test_the_runner_runs_an_example_rewritten_and_its_record_says_so() -> None:
    module = runner()
    text = (
        "Summary.\n\nBad example:\n\n  >>> x = new_api(-1)\n  >>> int('x')\n"
        "  Traceback (most recent call last):\n    ...\n"
        "  flax.errors.MyError: x\n"
    )
    table = parse_rules(
        '[[rule]]\nold = "new_api("\nnew = "abs("\nflax_below = "0.7"\nwhy = "w"\n'
    )
    errors = ModuleType("flax.errors")
    processes = Runner(timeout=30)
    try:
        as_written = module.run_entry(entry(text), errors, processes)
        rewritten = module.run_entry(entry(text), errors, processes, rules_for(table, "0.4.2"))
    finally:
        processes.close()
    (run,) = as_written.examples
    assert run.outcome is Outcome.COULD_NOT_RUN
    assert run.reason.startswith("statement 1 of 2 raised NameError: name 'new_api'")
    assert run.rewritten == ()
    (run,) = rewritten.examples
    assert run.outcome is Outcome.RAISED_OTHER
    assert run.exc_text == "ValueError: invalid literal for int() with base 10: 'x'"
    assert run.rewritten == (Substitution("new_api(", "abs("),)
    assert run.code == as_written.examples[0].code  # the catalogue's code, as the site hashes it
    assert module.read_rules(HISTORY / "rewrites.toml", "0.12.8") == ()
    assert KEY in {r.substitution for r in module.read_rules(HISTORY / "rewrites.toml", "0.4.2")}
