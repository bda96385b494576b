"""The ``flax-errors`` command line: every command and every exit status.

Commands run in this process through :func:`flax_errors_ext.cli.main`. Only the
round trip through real kernels (check, update, check) starts Jupyter; the other
``update`` cases stand a fake in for the kernels, which is all they need.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from sphinx.testing.util import SphinxTestApp

from flax_errors_ext import __version__
from flax_errors_ext.cli import ExitCode, build_parser, main
from flax_errors_ext.cli import selection as cli_selection
from flax_errors_ext.cli.runs import commands as cli_runs
from flax_errors_ext.execution.fork_server.client import KEPT_SERVER, retire_kept_server
from flax_errors_ext.execution.history.files import read_histories
from flax_errors_ext.execution.runs.execute import Execution
from flax_errors_ext.execution.runs.run import EntryOutcome
from flax_errors_ext.execution.session import Session
from flax_errors_ext.model.catalogue.discover import SHIPPED_CATALOGUE
from flax_errors_ext.model.catalogue.records import StatementRun
from flax_errors_ext.model.history.releases import SHIPPED
from flax_errors_ext.model.history.timeline import retired
from flax_errors_ext.model.runs.fingerprint import Fingerprint
from flax_errors_ext.model.runs.judge import judge
from flax_errors_ext.urls import FLAX_BASE_URL
from tests.utils import project_from_root

if TYPE_CHECKING:
    import argparse
    from collections.abc import Iterator

    from flax_errors_ext.model.catalogue.discover import ErrorModule

FAKE = '''\
"""Errors whose documentation drifted, for the command line tests."""

from flax.errors import FlaxError


class RenamedError(FlaxError):
    """Raised with a message that was reworded after it was documented.

    Bad example:

        >>> import cli_drift_errors
        >>> raise cli_drift_errors.RenamedError("x")
        Traceback (most recent call last):
            ...
        cli_drift_errors.RenamedError: the old wording of "x", which
        was wrapped by hand (...)...

    Good example:

        >>> print("a new line")
        an old line
        >>> print(1 + 1)
        2
    """

    def __init__(self, name: str) -> None:
        super().__init__(f'the new wording of "{name}", which was wrapped by hand')


class SteadyError(FlaxError):
    """Documented as it is raised.

    Bad example:

        >>> import cli_drift_errors
        >>> raise cli_drift_errors.SteadyError()
        Traceback (most recent call last):
            ...
        cli_drift_errors.SteadyError: steady (...)
    """

    def __init__(self) -> None:
        super().__init__("steady")


class BareError(FlaxError):
    """Nobody has written its examples yet."""
'''
MODULE = ["--module", "cli_drift_errors"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Exit status, standard output and standard error of ``flax-errors argv``."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The drifted error module, importable, in the current directory."""
    path = tmp_path / "cli_drift_errors.py"
    path.write_text(FAKE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    return path


# The parser -------------------------------------------------------------------------


@pytest.mark.parametrize("command", [[], ["list"], ["explain"], ["check"], ["update"]])
def test_help_everywhere(command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main([*command, "--help"])

    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: {' '.join(['flax-errors', *command])}")
    assert "exit status:" in out


@pytest.mark.parametrize(
    "argv", [[], ["frobnicate"], ["check", "--jobs", "0"], ["explain"], ["list", "--bogus"]]
)
def test_bad_arguments_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(argv)

    assert exit_.value.code == ExitCode.USAGE
    assert "usage:" in capsys.readouterr().err


def test_python_dash_m_runs_the_command_line() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "flax_errors_ext", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )

    assert done.returncode == 0
    assert done.stdout.strip() == f"flax-errors {__version__}"


# list -------------------------------------------------------------------------------


def test_list_shows_status_and_url(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "list")

    assert code == ExitCode.OK
    rows = {line.split()[1]: line.split() for line in out.splitlines()[:-1]}
    assert rows["flax_errors_ext.errors.JitPytreeError"] == [
        "not-run",  # nothing ran: the status a build with execution off records
        "flax_errors_ext.errors.JitPytreeError",
        "https://flax-errors.readthedocs.io/en/latest/api_reference/"
        "flax_errors_ext.errors.html#flax_errors_ext.errors.JitPytreeError",
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
        "api_reference/flax_errors_ext.errors.html#flax_errors_ext.errors.JitPytreeError"
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


# the project's conf.py --------------------------------------------------------------


def test_conf_py_settings_reach_every_command_and_flags_override_them(
    fake: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = fake.parent / "docs"
    docs.mkdir()
    (docs / "conf.py").write_text(
        'flax_errors_modules = ["cli_drift_errors"]\n'
        "flax_errors_timeout = 7\n"
        'flax_errors_catalogue_dirs = "examples"\n'
    )

    project = cli_selection.project(build_parser().parse_args(["check"]))
    assert project.conf == (docs / "conf.py").resolve()
    assert [spec.name for spec in project.config.modules] == ["cli_drift_errors"]
    assert project.config.timeout == 7
    # Relative to conf.py, and the shipped catalogue is still searched after it.
    assert project.catalogue_folders == ((docs / "examples").resolve(), SHIPPED_CATALOGUE)
    flagged = cli_selection.project(build_parser().parse_args(["check", "--timeout", "9"]))
    assert flagged.config.timeout == 9

    code, out, _ = run(capsys, "list")
    assert code == ExitCode.OK
    assert [line.split()[1] for line in out.splitlines()[:-1]] == [
        "cli_drift_errors.RenamedError",
        "cli_drift_errors.SteadyError",
        "cli_drift_errors.BareError",
    ]


def test_conf_is_found_where_asked(fake: Path, capsys: pytest.CaptureFixture[str]) -> None:
    elsewhere = fake.parent / "site" / "setup.py"
    elsewhere.parent.mkdir()
    elsewhere.write_text('flax_errors_modules = ["cli_drift_errors"]\n')

    code, out, _ = run(capsys, "list", "--conf", str(elsewhere))
    assert code == ExitCode.OK
    assert out.splitlines()[-1].startswith("3 errors: ")

    code, _, err = run(capsys, "list", "--conf", str(fake.parent / "missing.py"))
    assert code == ExitCode.USAGE
    assert "missing.py: no such file" in err


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("raise RuntimeError('no docs here')\n", "failed to run: RuntimeError: no docs here"),
        ("import sys\nsys.exit(3)\n", "failed to run: SystemExit: 3"),
        ("flax_errors_timeout = -1\n", "flax_errors_timeout must be a positive whole number"),
    ],
)
def test_a_conf_py_that_cannot_be_used_exits_2(
    fake: Path, capsys: pytest.CaptureFixture[str], text: str, says: str
) -> None:
    (fake.parent / "conf.py").write_text(text)

    code, _, err = run(capsys, "list")

    assert code == ExitCode.USAGE
    assert "conf.py" in err
    assert says in err


@pytest.mark.kernels
def test_check_from_a_project_directory_gives_the_sites_verdicts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project = project_from_root("drift", tmp_path)
    app = SphinxTestApp("html", srcdir=project)
    try:
        app.build()
    finally:
        app.cleanup()
    site = json.loads((app.outdir / "errors.json").read_text())
    monkeypatch.chdir(project)

    code, out, _ = run(capsys, "check", "--json")

    checked = json.loads(out)
    assert (app.statuscode, code) == (1, ExitCode.FAILED)  # both fail on the drift

    def verdicts(document: dict[str, Any]) -> dict[str, Any]:
        return {
            r["qualname"]: (
                r["status"],
                [(e["kind"], e["status"], e["actual"]) for e in r["examples"]],
            )
            for r in document["entries"]
        }

    assert verdicts(checked) == verdicts(site)
    assert "drifted" in str(verdicts(site))


@pytest.mark.kernels
def test_check_runs_again_when_a_helper_it_loaded_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project = project_from_root("helper-drift", tmp_path)
    monkeypatch.chdir(project)
    assert run(capsys, "check")[0] == ExitCode.OK
    code, out, _ = run(capsys, "check")
    assert (code, "0 ran now") == (ExitCode.OK, out.split("; ")[1][:9])

    helper = project / "helper_wording_errors.py"
    helper.write_text(helper.read_text().replace("worded by", "now worded by"))
    code, out, _ = run(capsys, "check")

    assert code == ExitCode.FAILED
    assert "[flax-errors.drifted]" in out
    assert "+helper_drift_errors.HelperError: now worded by a helper" in out


@pytest.mark.kernels
def test_check_sets_a_broken_cache_aside_and_runs_again(
    fake: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "check", "SteadyError", *MODULE)[0] == ExitCode.OK
    database = fake.parent / ".flax_errors_cache" / "global.db"
    database.write_bytes(b"")

    code, out, err = run(capsys, "check", "SteadyError", *MODULE)

    assert code == ExitCode.OK
    assert f"warning: the execution cache at {database.parent} could not be read" in err
    assert "1 ran now" in out


def test_an_unexpected_failure_is_one_line_with_its_own_status(
    fake: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def unreadable(*_: Any) -> None:
        raise PermissionError(13, "Permission denied", "errors.json")

    monkeypatch.setattr(cli_runs, "run_entries", unreadable)

    code, out, err = run(capsys, "check", *MODULE)

    assert code == ExitCode.ERROR
    assert (
        err == "flax-errors: error: PermissionError: [Errno 13] Permission denied: 'errors.json'\n"
    )
    assert "Traceback" not in out + err


VARYING = '''\
from flax.errors import FlaxError


class AddressError(FlaxError):
    """Raised with an object's address, which differs on every run.

    Bad example:

        >>> import varying_errors
        >>> raise varying_errors.AddressError()
        Traceback (most recent call last):
            ...
        varying_errors.AddressError: cannot use <object object at 0x7f0000000000> (...)
    """

    def __init__(self) -> None:
        super().__init__(f"cannot use {object()!r}")
'''


@pytest.mark.kernels
def test_update_does_not_write_text_that_varies_and_proposes_ellipses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    module = tmp_path / "varying_errors.py"
    module.write_text(VARYING)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)

    code, out, err = run(capsys, "update", "--module", "varying_errors")

    assert code == ExitCode.PARTLY_UPDATED
    assert module.read_text() == VARYING
    assert "its text varies from run to run; document it by hand as" in err
    assert "varying_errors.AddressError: cannot use <object object at ...>" in err
    assert "updated 0 statement(s) in 0 file(s)" in out


@pytest.mark.kernels
def test_check_twice_fails_on_text_that_varies_unless_documented_with_ellipses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    module = tmp_path / "varying_errors.py"
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    # Documented with ... where it varies: --twice passes.
    module.write_text(VARYING.replace("0x7f0000000000>", "0x...>"))
    assert run(capsys, "check", "--twice", "--module", "varying_errors")[0] == ExitCode.OK

    # A message that differs from one run to the next, documented as the first run
    # printed it: the plain check passes, --twice finds it out.
    counter = tmp_path / "runs.txt"
    counter.write_text("0")
    module.write_text(
        VARYING.replace("<object object at 0x7f0000000000>", "run 1")
        .replace(
            'f"cannot use {object()!r}"',
            f'"cannot use run " + str(_count(r"{counter}"))',
        )
        .replace(
            "class AddressError",
            "def _count(path: str) -> int:\n"
            "    with open(path) as file:\n"
            "        count = int(file.read()) + 1\n"
            "    with open(path, 'w') as file:\n"
            "        file.write(str(count))\n"
            "    return count\n\n\nclass AddressError",
        )
    )
    assert run(capsys, "check", "--module", "varying_errors", "--no-cache")[0] == ExitCode.OK
    counter.write_text("0")

    code, out, _ = run(capsys, "check", "--twice", "--module", "varying_errors", "--no-cache")

    assert code == ExitCode.FAILED
    assert "[flax-errors.varies] its text varies from run to run; document it as" in out
    assert "varying_errors.AddressError: cannot use run ... (" in out
    assert "+varying_errors.AddressError: cannot use run 2" in out


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
    assert "/errors.html#jax.errors.TracerBoolConversionError" in out


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
    gone = retired(histories["flax.errors"].history)[-1]

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


@pytest.mark.parametrize(
    ("query", "suggestion"),
    [
        ("ScopeParamShape", "did you mean flax.errors.ScopeParamShapeError?"),
        # Text that resembles no error gets no unrelated suggestion.
        ("RuntimeError: the kettle boiled over twice today", None),
    ],
)
def test_explain_what_matches_nothing_exits_6_with_only_close_suggestions(
    capsys: pytest.CaptureFixture[str], query: str, suggestion: str | None
) -> None:
    code, out, err = run(capsys, "explain", query)

    # Its own status: a script tells "nothing matched" from a mistyped command (2).
    assert code == ExitCode.NO_MATCH
    assert out == ""
    assert f"no catalogued error matches {query!r}" in err
    if suggestion is None:
        assert "did you mean" not in err
    else:
        assert suggestion in err


# check and update, through real kernels ---------------------------------------------


def changed_lines(before: str, after: str) -> list[tuple[int, str]]:
    """(line number, new text) of every line that differs; the line count must not."""
    old, new = before.splitlines(), after.splitlines()
    assert len(old) == len(new)
    return [(n, b) for n, (a, b) in enumerate(zip(old, new, strict=True), 1) if a != b]


@pytest.fixture
def cache_dir(fake: Path) -> Iterator[Path]:
    """The cache folder of a contributor's edit loop; its kept kernel server is stopped."""
    yield fake.parent / "cache"
    retire_kept_server(fake.parent / "cache")


@pytest.mark.kernels
def test_check_update_check_round_trip(
    fake: Path, cache_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # One warm kernel server for the whole loop, kept from one command to the next.
    cache = ["--cache-dir", str(cache_dir), "--jobs", "2", "--keep-kernel-server", "60"]

    code, out, err = run(capsys, "check", *MODULE, *cache)
    kept_server = (cache_dir / KEPT_SERVER).read_text()
    assert code == ExitCode.FAILED
    assert "cli_drift_errors.py:12: [flax-errors.drifted] cli_drift_errors.RenamedError" in out
    assert '-cli_drift_errors.RenamedError: the old wording of "x", which' in out
    assert "+an old line" not in out
    assert "-an old line\n+a new line" in out
    assert "[3/3] " in err
    assert "passed       cli_drift_errors.SteadyError" in err

    code, out, _ = run(capsys, "update", "--dry-run", *MODULE, *cache)
    assert code == ExitCode.FAILED
    assert out.startswith("--- a/cli_drift_errors.py\n+++ b/cli_drift_errors.py\n")
    assert "would update 2 statement(s) in 1 file(s)" in out
    assert fake.read_text() == FAKE

    code, out, err = run(capsys, "update", *MODULE, *cache)
    assert code == ExitCode.OK, err
    assert "updated 2 statement(s) in 1 file(s)" in out
    assert changed_lines(FAKE, fake.read_text()) == [
        (15, '        cli_drift_errors.RenamedError: the new wording of "x", which'),
        (21, "        a new line"),
    ]

    code, out, _ = run(capsys, "check", "--json", *MODULE, *cache)
    document = json.loads(out)
    assert code == ExitCode.OK
    assert {r["name"]: r["status"] for r in document["entries"]} == {
        "BareError": "undocumented",
        "RenamedError": "passed",
        "SteadyError": "passed",
    }
    # Editing documented text does not change what runs: the outputs came from the cache.
    assert document["executed"] == []

    code, out, _ = run(capsys, "check", "--strict", "SteadyError", "BareError", *MODULE, *cache)
    assert code == ExitCode.FAILED
    assert "[flax-errors.undocumented] cli_drift_errors.BareError has no examples" in out
    assert (cache_dir / KEPT_SERVER).read_text() == kept_server


def test_check_an_unknown_name_exits_2(fake: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "check", "RenamdError", *MODULE)

    assert code == ExitCode.USAGE
    assert "did you mean cli_drift_errors.RenamedError?" in err


# update without kernels -------------------------------------------------------------


def fake_kernels(
    monkeypatch: pytest.MonkeyPatch, *, raises: bool = True, meanwhile: Path | None = None
) -> None:
    """Run entries as if the code now said "new" where the docs say "old" or "an old".

    Args:
        monkeypatch: Where to install the fake.
        raises: False to make the bad examples raise nothing.
        meanwhile: A file to edit while the "examples run".
    """

    def new(text: str) -> str:
        return text.replace("an old", "a new").replace("old wording", "new wording")

    def run_statement(exc_msg: str | None, want: str, qualname: str | None) -> StatementRun:
        if exc_msg is None:
            return StatementRun(new(want))
        if not raises:
            return StatementRun("")
        message = new(exc_msg).replace("(...)...", "(https://x.org/#e)")
        return StatementRun("", qualname, message)

    edited: list[Path] = []  # once, while the first run's examples run

    def submit_module(module: ErrorModule, *_: Any) -> list[Future[EntryOutcome]]:
        futures = []
        for entry in module.entries:
            runs = tuple(
                tuple(run_statement(s.exc_msg, s.want, s.documented_class) for s in x.statements)
                for x in entry.examples
            )
            results = tuple(judge(x, r) for x, r in zip(entry.examples, runs, strict=True))
            futures.append(Future[EntryOutcome]())
            futures[-1].set_result(EntryOutcome(entry, Execution(runs, executed=True), results))
        if meanwhile is not None and not edited:
            meanwhile.write_text(meanwhile.read_text() + "# edited meanwhile\n")
            edited.append(meanwhile)
        return futures

    monkeypatch.setattr(cli_runs, "submit_module", submit_module)
    monkeypatch.setattr(Session, "fingerprint", lambda _: Fingerprint())


def test_update_refuses_a_file_edited_while_examples_ran(
    fake: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_kernels(monkeypatch, meanwhile=fake)

    code, out, err = run(capsys, "update", "RenamedError", *MODULE, "--cache-dir", "cache")

    assert code == ExitCode.REFUSED
    assert "changed while the examples ran; nothing was written to it" in err
    assert fake.read_text() == FAKE + "# edited meanwhile\n"
    assert "updated 0 statement(s) in 0 file(s)" in out


def test_update_reports_what_it_cannot_fix(
    fake: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_kernels(monkeypatch, raises=False)

    code, _, err = run(capsys, "update", *MODULE, "--cache-dir", "cache")

    assert code == ExitCode.FAILED
    assert "cli_drift_errors.py:12: no-raise: expected cli_drift_errors.RenamedError" in err
    assert "cli_drift_errors.py:36: no-raise" in err
    # The good example's drift is fixed all the same.
    assert changed_lines(FAKE, fake.read_text()) == [(21, "        a new line")]


# The generated reference ------------------------------------------------------------


def test_cli_reference_is_generated_from_the_parser(tmp_path: Path) -> None:
    (tmp_path / "conf.py").write_text(
        'extensions = ["flax_errors_ext"]\nnb_execution_mode = "off"\n'
    )
    (tmp_path / "index.rst").write_text("Command line\n============\n\n.. flax-errors-cli::\n")
    app = SphinxTestApp("html", srcdir=tmp_path)
    try:
        app.build()
        page = (app.outdir / "index.html").read_text()
    finally:
        app.cleanup()

    assert app.statuscode == 0
    assert app.warning.getvalue() == ""
    parser = build_parser()
    commands: dict[str, argparse.ArgumentParser] = next(
        dict(a.choices) for a in parser._actions if isinstance(a.choices, dict)
    )
    assert set(commands) == {"list", "explain", "check", "update", "export"}
    for name, command in commands.items():
        assert f'id="cli-{name}"' in page
        for action in command._actions:
            for option in action.option_strings:
                assert f'<span class="pre">{option}' in page, (name, option)
