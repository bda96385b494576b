"""``flax-errors list`` and ``explain``: the catalogue read, nothing run."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from flax_errors_ext.cli import ExitCode
from flax_errors_ext.execution.history.files import read_histories
from flax_errors_ext.layout import FLAX_BASE_URL
from flax_errors_ext.model.history.releases import SHIPPED, retired
from tests.cli.console import run

# list -------------------------------------------------------------------------------


def test_list_shows_status_and_url(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "list")

    assert code == ExitCode.OK
    rows = {line.split()[1]: line.split() for line in out.splitlines()[:-1]}
    assert rows["flax_errors_ext.errors.JitPytreeError"] == [
        "not-run",  # nothing ran: the status a build with execution off records
        "flax_errors_ext.errors.JitPytreeError",
        # The entry's own page.
        "https://flax-errors.readthedocs.io/en/latest/api_reference/"
        "flax_errors_ext.errors/JitPytreeError.html#flax_errors_ext.errors.JitPytreeError",
    ]
    assert rows["flax.errors.MPARestoreDataCorruptedError"][0] == "not-run"
    assert out.splitlines()[-1].startswith(f"{len(rows)} errors: ")


def test_list_json_is_an_errors_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "list", "--json")

    document = json.loads(out)
    assert code == ExitCode.OK
    assert document["schema"] == 1
    assert document["executed"] == []
    record = next(r for r in document["entries"] if r["name"] == "JitPytreeError")
    assert record["status"] == "not-run"  # what a build with execution off records
    assert record["url"] == (
        "api_reference/flax_errors_ext.errors/JitPytreeError.html"
        "#flax_errors_ext.errors.JitPytreeError"
    )
    assert {e["kind"] for e in record["examples"]} == {"bad", "good", "seen-as"}


def test_list_takes_statuses_from_a_previous_errors_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = run(capsys, "list", "--json", "--module", "flax_errors_ext.errors")
    document = json.loads(out)
    document["entries"][0]["status"] = "failed"
    previous = tmp_path / "errors.json"
    previous.write_text(json.dumps(document))

    code, out, _ = run(
        capsys, "list", "--from", str(previous), "--module", "flax_errors_ext.errors"
    )

    assert code == ExitCode.OK
    assert out.splitlines()[0].startswith("failed  flax_errors_ext.errors.JitPytreeError")


def test_list_from_an_unreadable_file_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "errors.json").write_text("{not json")

    code, out, err = run(capsys, "list", "--from", str(tmp_path / "errors.json"))

    assert code == ExitCode.USAGE
    assert out == ""
    assert err.startswith(f"flax-errors: error: cannot read {tmp_path / 'errors.json'}")


def test_a_module_that_cannot_be_imported_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "list", "--module", "no_such_errors")

    assert code == ExitCode.USAGE
    assert "cannot import 'no_such_errors'" in err


# explain ----------------------------------------------------------------------------


def test_explain_by_name(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "explain", "scopeparamshapeerror")

    assert code == ExitCode.OK
    assert out.startswith("ScopeParamShapeError (flax.errors.ScopeParamShapeError)\n")
    for part in ("Bad example\n---", "Good example\n---", ">>> MLP().apply(variables, batch)"):
        assert part in out
    assert "Read online: https://flax-errors.readthedocs.io/en/latest/api_reference/" in out


def test_explain_a_pasted_traceback_from_stdin(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pasted = (
        "Traceback (most recent call last):\n"
        '  File "train.py", line 12, in <module>\n'
        "    state = model.apply(params, batch)\n"
        'flax.errors.ScopeParamShapeError: For parameter "bias" in "/Encoder/Dense_3", the '
        "given initializer is expected to generate shape (5,), but the existing parameter it "
        "received has shape (7,).\n"
    )
    monkeypatch.setattr(sys, "stdin", io.StringIO(pasted))

    code, out, _ = run(capsys, "explain", "-")

    assert code == ExitCode.OK
    assert out.startswith("ScopeParamShapeError (flax.errors.ScopeParamShapeError)\n")


@pytest.mark.parametrize("with_url", [True, False], ids=["whole", "message-only"])
def test_explain_a_pasted_jax_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], with_url: bool
) -> None:
    pasted = (
        "Traceback (most recent call last):\n"
        '  File "/home/me/train.py", line 9, in <module>\n'
        "    clip(grads, 1.0)\n"
        "jax.errors.TracerBoolConversionError: Attempted boolean conversion of traced array "
        "with shape bool[].\n"
        "The error occurred while tracing the function clip at /home/me/train.py:4 for jit. "
        "This concrete value was not available in Python because it depends on the value of "
        "the argument max_norm.\n"
    )
    if with_url:
        pasted += (
            "See https://docs.jax.dev/en/latest/errors.html#jax.errors.TracerBoolConversionError\n"
        )
    else:
        pasted = pasted.split("\n", 3)[3].replace("jax.errors.TracerBoolConversionError: ", "")
    monkeypatch.setattr(sys, "stdin", io.StringIO(pasted))

    code, out, _ = run(capsys, "explain", "-")

    assert code == ExitCode.OK
    assert out.startswith("TracerBoolConversionError (jax.errors.TracerBoolConversionError)\n")
    assert "Read online: https://flax-errors.readthedocs.io/en/latest/errors/" in out
    assert "/errors/TracerBoolConversionError.html#jax.errors.TracerBoolConversionError" in out


@pytest.mark.parametrize(
    "pasted",
    [
        # Flax issue 853, as JAX words it under jax.grad (and older jax.jit).
        "TypeError: Argument 'Model(...)' of type <class '__main__.Model'> is not a valid "
        "JAX type",
        # Today's jax.jit, in part.
        "Error interpreting argument to <function train_step at 0x7f3a2c1b5e40> as an "
        "abstract array. The problematic value is of type <class '__main__.Model'>",
    ],
    ids=["grad-or-old-jit", "jit-in-part"],
)
def test_explain_finds_jit_pytree_error_from_jaxs_own_message(
    capsys: pytest.CaptureFixture[str], pasted: str
) -> None:
    code, out, _ = run(capsys, "explain", pasted)

    assert code == ExitCode.OK
    assert out.startswith("JitPytreeError (flax_errors_ext.errors.JitPytreeError)\n")
    assert "Also seen as" in out
    # It says why a message of another class found this entry, and how to get this one.
    note = out.rpartition("Your message is the error this mistake raises where ")[2]
    assert note.startswith("JitPytreeError is not in place")
    assert "Without `flax_errors_ext.install`" in note


def test_explain_a_bad_examples_message_adds_no_other_error_note(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(
        capsys, "explain", "Linen Module MLP was passed to a JAX transformation as argument"
    )

    assert code == ExitCode.OK
    assert "Your message is the error" not in out


def test_explain_a_url_of_an_old_page_layout_finds_its_entry(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Flax 0.4 and 0.5 printed their links without ``api_reference/``."""
    old = f"{FLAX_BASE_URL}/flax.errors.html#flax.errors.ScopeParamShapeError"

    code, out, _ = run(capsys, "explain", f"See {old}")

    assert code == ExitCode.OK
    assert out.startswith("ScopeParamShapeError (flax.errors.ScopeParamShapeError)\n")


def test_explain_a_retired_error_says_when_flax_had_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    histories, _ = read_histories(Path.cwd(), [SHIPPED], {"flax.errors"})
    gone = retired(histories["flax.errors"])[-1]

    code, out, _ = run(
        capsys, "explain", f"{FLAX_BASE_URL}/flax.errors.html#flax.errors.{gone.name}"
    )

    assert code == ExitCode.OK
    assert out.startswith(
        f"flax.errors.{gone.name} is retired: flax.errors had it in {gone.first}"
    )
    assert f"no longer has it since {gone.gone_since}." in out
    assert f"api_reference/flax.errors.html#flax.errors.{gone.name}" in out


def test_explain_a_message_says_it_matched(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys, "explain", 'Could not find parameter named "w" in scope "/Head/Dense_1".'
    )

    assert code == ExitCode.OK
    assert out.startswith("ScopeParamNotFoundError")
    assert "matches the documented text of flax.errors.ScopeParamNotFoundError" in err


def test_explain_a_name_that_matches_nothing_exits_6_with_close_names(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "explain", "ScopeParamShape")

    # Its own status: a script tells "nothing matched" from a mistyped command (2).
    assert code == ExitCode.NO_MATCH
    assert out == ""
    assert "no catalogued error matches 'ScopeParamShape'" in err
    assert "did you mean flax.errors.ScopeParamShapeError?" in err


def test_explain_an_error_that_resembles_nothing_says_so_without_hints(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "explain", "RuntimeError: the kettle boiled over twice today")

    assert code == ExitCode.NO_MATCH
    assert out == ""
    assert err == (
        "flax-errors: not in the catalogue: RuntimeError: the kettle boiled over twice today\n"
    )


def test_explain_pythons_words_for_any_object_without_the_librarys_frame_are_a_hint(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """optax#808: the entry's own words, raised in optax, but Python says them of any object."""
    code, out, err = run(
        capsys, "explain", "TypeError: unsupported operand type(s) for *: 'float' and 'dict'"
    )

    assert code == ExitCode.NO_MATCH
    assert out == ""
    assert (
        "  Worded as flax.messages.GradientsOfTheWrongArgument, but a match needs a frame of "
        "its library.\n"
    ) in err


def test_explain_pythons_words_naming_the_librarys_own_are_its_where_no_frame_is_expected(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Flax 0.7.1's dicts: raised in the reader's code, of a method only FrozenDict has."""
    code, out, _ = run(
        capsys, "explain", "AttributeError: 'dict' object has no attribute 'unfreeze'"
    )

    assert code == ExitCode.OK
    assert out.startswith("FrozenDictMethodOnDict (flax.messages.FrozenDictMethodOnDict)")


def test_explain_a_traceback_of_an_uncatalogued_error_quotes_its_exception_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """JAX's error for arrays concatenated along the wrong axis: no entry documents it."""
    line = (
        "TypeError: Cannot concatenate arrays with shapes that differ in dimensions other "
        "than the one being concatenated: concatenating along dimension 0 for shapes "
        "(2, 3), (2, 4)."
    )
    pasted = (
        "Traceback (most recent call last):\n"
        '  File "train.py", line 12, in <module>\n'
        "    jnp.concatenate([a, b])\n"
        f"{line}\n"
    )
    monkeypatch.setattr(sys, "stdin", io.StringIO(pasted))

    code, out, err = run(capsys, "explain", "-")

    assert code == ExitCode.NO_MATCH
    assert out == ""
    assert err.splitlines()[0] == f"flax-errors: not in the catalogue: {line[:157]}..."


def test_explain_a_string_passed_to_jit_finds_jaxs_message_entry_not_our_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """JAX's error for a string passed to a jitted function: like JitPytreeError's
    "also seen as" message, but a string is not a Module."""
    pasted = (
        "Traceback (most recent call last):\n"
        '  File "train.py", line 12, in <module>\n'
        '    step("hello")\n'
        "TypeError: Error interpreting argument to <function step at 0x7f35ba5f3a60> as an "
        "abstract array. The problematic value is of type <class 'str'> and was passed to "
        "the function at path batch.\n"
    )
    monkeypatch.setattr(sys, "stdin", io.StringIO(pasted))

    code, out, _ = run(capsys, "explain", "-")

    assert code == ExitCode.OK
    assert out.startswith("NonArrayArgumentToJit (jax.messages.NonArrayArgumentToJit)\n")
