"""``flax-errors check`` and ``update``: verdicts, the cache, real runs and a fake."""

from __future__ import annotations

import json
import re
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

import pytest
from sphinx.testing.util import SphinxTestApp

from flax_errors_ext.cli import ExitCode
from flax_errors_ext.cli import runs as cli_runs
from flax_errors_ext.execution.cache import probe
from flax_errors_ext.execution.runs import run as entry_runs
from flax_errors_ext.execution.runs.runner import Runner
from flax_errors_ext.execution.session import Session
from flax_errors_ext.model.catalogue.records import StatementRun
from flax_errors_ext.model.runs.fingerprint import Fingerprint
from flax_errors_ext.model.runs.jobs import EntryOutcome, Execution
from flax_errors_ext.model.runs.judge import judge
from tests.utils import project_from_root

if TYPE_CHECKING:
    from pathlib import Path

    from flax_errors_ext.model.catalogue.discover import ErrorModule

from tests.cli.console import FAKE, MODULE, run


@pytest.mark.examples
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


@pytest.mark.examples
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


@pytest.mark.parametrize("ask", ["--traceback", "FLAX_ERRORS_TRACEBACK=1"])
def test_an_unexpected_failure_shows_its_traceback_when_asked(
    ask: str, fake: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def unreadable(*_: Any) -> None:
        raise PermissionError(13, "Permission denied", "errors.json")

    monkeypatch.setattr(cli_runs, "run_entries", unreadable)
    flag = [ask] if ask.startswith("--") else []
    if not flag:
        monkeypatch.setenv(*ask.split("="))

    code, _, err = run(capsys, *flag, "check", *MODULE)

    assert code == ExitCode.ERROR
    assert err.startswith("Traceback (most recent call last):\n"), err
    assert "in unreadable\n" in err  # the frame that raised, not only main's
    assert err.endswith(
        "flax-errors: error: PermissionError: [Errno 13] Permission denied: 'errors.json'\n"
    )


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


@pytest.mark.examples
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


@pytest.mark.examples
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


# check and update, through real runs ------------------------------------------------


def changed_lines(before: str, after: str) -> list[tuple[int, str]]:
    """(line number, new text) of every line that differs; the line count must not."""
    old, new = before.splitlines(), after.splitlines()
    assert len(old) == len(new)
    return [(n, b) for n, (a, b) in enumerate(zip(old, new, strict=True), 1) if a != b]


@pytest.fixture
def cache_dir(fake: Path) -> Path:
    """The cache folder of a contributor's edit loop."""
    return fake.parent / "cache"


@pytest.mark.examples
def test_check_update_check_round_trip(
    fake: Path, cache_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = ["--cache-dir", str(cache_dir), "--jobs", "2"]

    code, out, err = run(capsys, "check", *MODULE, *cache)
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


@pytest.mark.examples
def test_check_probes_the_device_once_per_machine(
    fake: Path,
    cache_dir: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    probed: list[int] = []
    real_probe = Runner.probe

    def counted(self: Runner) -> Any:
        probed.append(1)
        return real_probe(self)

    monkeypatch.setattr(Runner, "probe", counted)
    monkeypatch.setattr(probe, "_probed", {})
    every_example = ["--cache-dir", str(cache_dir), "--no-cache"]

    run(capsys, "check", *MODULE, *every_example)
    assert probed == [1]
    monkeypatch.setattr(probe, "_probed", {})  # as in a new process: only device.json
    code, _, err = run(capsys, "check", *MODULE, *every_example)
    assert code == ExitCode.FAILED  # the module's drift, as before
    assert "passed       cli_drift_errors.SteadyError (ran in" in err
    assert probed == [1]


def test_check_an_unknown_name_exits_2(fake: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "check", "RenamdError", *MODULE)

    assert code == ExitCode.USAGE
    assert "did you mean cli_drift_errors.RenamedError?" in err


# update without running examples ---------------------------------------------------


def fake_runs(
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

    monkeypatch.setattr(entry_runs, "submit_module", submit_module)
    monkeypatch.setattr(Session, "fingerprint", lambda _: Fingerprint())


def test_update_refuses_a_file_edited_while_examples_ran(
    fake: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_runs(monkeypatch, meanwhile=fake)

    code, out, err = run(capsys, "update", "RenamedError", *MODULE, "--cache-dir", "cache")

    assert code == ExitCode.REFUSED
    assert "changed while the examples ran; nothing was written to it" in err
    assert fake.read_text() == FAKE + "# edited meanwhile\n"
    assert "updated 0 statement(s) in 0 file(s)" in out


def test_update_reports_what_it_cannot_fix(
    fake: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_runs(monkeypatch, raises=False)

    code, _, err = run(capsys, "update", *MODULE, "--cache-dir", "cache")

    assert code == ExitCode.FAILED
    assert "cli_drift_errors.py:12: no-raise: expected cli_drift_errors.RenamedError" in err
    assert "cli_drift_errors.py:36: no-raise" in err
    # The good example's drift is fixed all the same.
    assert changed_lines(FAKE, fake.read_text()) == [(21, "        a new line")]


@pytest.mark.examples
def test_update_rewrites_a_message_entrys_drifted_text_and_check_names_the_raise_site(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project = project_from_root("messages", tmp_path)
    entry_file = project / "catalogue/demo.messages/RateUnreadable.txt"
    documented = "ValueError: cannot read a learning rate from 'one tenth'"
    drifted = documented.replace("read", "parse")
    entry_file.write_text(entry_file.read_text().replace(documented, drifted))
    monkeypatch.chdir(project)

    code, out, err = run(capsys, "check", "RateUnreadable")
    assert code == ExitCode.FAILED, err
    # Located at the statement that raised, in the entry's own file.
    assert re.search(r"demo\.messages/RateUnreadable\.txt:10: .*drifted", out + err), out

    code, out, err = run(capsys, "update", "RateUnreadable")
    assert code == ExitCode.OK, out + err
    assert documented in entry_file.read_text(), out + err

    code, out, _ = run(capsys, "check", "--json", "RateUnreadable")
    (record,) = json.loads(out)["entries"]
    assert (code, record["status"], record["raised_as"]) == (ExitCode.OK, "passed", ["ValueError"])
    assert record["examples"][0]["raised_at"] == "demo_lib.py:9"
