"""``nox -s lock``: each stack resolved and run; written only where its verdicts hold.

uv and flax-errors are stand-in scripts: nothing is resolved or installed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tools.other_runs.lock import SETTLED, Stack, lock, main, settle, statuses

HISTORY = Path(__file__).resolve().parents[3] / "flax_errors_ext" / "history"
FAKE_UV = """\
#!/bin/sh
echo "$@" >> "$UV_LOG"
case "$1 $2" in
"pip compile")
  while [ $# -gt 0 ]; do
    if [ "$1" = -o ]; then echo "flax==$FAKE_FLAX" > "$2"; fi
    shift
  done;;
"venv "*)
  for last; do :; done
  mkdir -p "$last/bin"
  cp "$FAKE_CHECK" "$last/bin/flax-errors";;
esac
"""
FAKE_CHECK = """\
#!/bin/sh
printf '{"entries": [{"qualname": "m.A", "status": "%s"}]}' "$FAKE_STATUS"
exit 1
"""
STACKS = [
    Stack("3.11", Path("constraints/python3.11.txt"), "3.11"),
    Stack("3.13", Path("constraints/python3.12-and-later.txt"), "3.12+"),
]


def run(status: str) -> str:
    return json.dumps({"entries": [{"qualname": "m.A", "status": status}]})


@pytest.fixture
def uv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A checkout (the working directory) whose stacks passed; the stand-in uv."""
    checkout = tmp_path / "checkout"
    (checkout / "constraints").mkdir(parents=True)
    (checkout / "runs").mkdir()
    for stack in STACKS:
        stack_constraints = checkout / stack.constraints
        stack_constraints.write_text("flax==1\n", "utf-8")
        (checkout / "runs" / stack.run_file).write_text(run("passed"), "utf-8")
    monkeypatch.chdir(checkout)
    for name, text in (("uv", FAKE_UV), ("flax-errors", FAKE_CHECK)):
        (tmp_path / name).write_text(text, "utf-8")
        (tmp_path / name).chmod(0o755)
    monkeypatch.setenv("UV_LOG", str(tmp_path / "uv.log"))
    monkeypatch.setenv("FAKE_CHECK", str(tmp_path / "flax-errors"))
    monkeypatch.setenv("FAKE_FLAX", "2")
    return str(tmp_path / "uv")


def test_stacks_are_resolved_for_their_pythons() -> None:
    assert STACKS[0].compile_options() == ["--python-version", "3.11"]
    assert STACKS[1].compile_options() == ["--python-version", "3.12", "--universal"]


def test_stacks_that_keep_their_verdicts_are_written(
    uv: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_STATUS", "unreachable")
    work = tmp_path / "work"
    assert lock(STACKS, ["absl-py"], work, runs=Path("runs"), uv=uv) == [
        "Python 3.11: m.A was passed, is unreachable (-- --accept keeps it)",
        "Python 3.13: m.A was passed, is unreachable (-- --accept keeps it)",
    ]
    assert Path("constraints/python3.11.txt").read_text("utf-8") == "flax==1\n"
    assert Path("runs/python-3.13.json").read_text("utf-8") == run("passed")
    assert lock(STACKS, ["absl-py"], work, runs=Path("runs"), uv=uv, accept=True) == []
    assert Path("constraints/python3.12-and-later.txt").read_text("utf-8") == "flax==2\n"
    assert Path("runs/python-3.11.json").read_text("utf-8") == run("unreachable")
    assert (work / "locks" / "extra-requirements.in").read_text("utf-8") == "absl-py\n"
    log = (tmp_path / "uv.log").read_text("utf-8")
    assert "pip compile --quiet --all-extras --python-version 3.12 --universal" in log
    assert f"venv --quiet --clear --python 3.13 {work / 'stack-3.13'}" in log


def test_a_failing_entry_is_never_accepted(
    uv: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FAKE_STATUS", "failed")
    stacks = [
        arg for s in STACKS for arg in ("--stack", s.python, str(s.constraints), s.resolved_for)
    ]
    args = ["--work", str(tmp_path / "work"), "--runs", "runs", "--uv", uv, "--accept", *stacks]
    assert main(args) == 1
    assert "Python 3.11: m.A is failed" in capsys.readouterr().err
    assert Path("constraints/python3.11.txt").read_text("utf-8") == "flax==1\n"
    monkeypatch.setenv("FAKE_STATUS", "passed")
    assert main(args) == 0
    assert Path("constraints/python3.11.txt").read_text("utf-8") == "flax==2\n"


def _run(**entries: str) -> str:
    return json.dumps(
        {"entries": [{"qualname": f"m.{name}", "status": s} for name, s in entries.items()]}
    )


def test_a_stack_that_keeps_every_verdict_settles() -> None:
    before = _run(A="passed", B="unreachable")
    assert (
        settle("Python 3.13", _run(A="passed", B="unreachable", C="passed"), before, SETTLED) == []
    )


def test_a_failing_entry_is_named_even_when_accepted() -> None:
    problems = settle("Python 3.13", _run(A="failed"), _run(A="passed"), SETTLED, accept=True)
    assert problems == ["Python 3.13: m.A is failed"]


def test_a_changed_status_is_named_unless_accepted() -> None:
    now, before = _run(A="unreachable"), _run(A="passed")
    assert settle("Python 3.13", now, before, SETTLED) == [
        "Python 3.13: m.A was passed, is unreachable (-- --accept keeps it)"
    ]
    assert settle("Python 3.13", now, before, SETTLED, accept=True) == []


@pytest.mark.parametrize("python", ["3.11", "3.13"])
def test_the_committed_stack_runs_are_settled(python: str) -> None:
    """What CI's stacks must give: every entry passed or unreachable."""
    text = (HISTORY / f"python-{python}.json").read_text("utf-8")
    assert statuses(text)
    assert settle(f"Python {python}", text, None, SETTLED) == []
    for folder in ("/work/", "/home/", "/root/", "site-packages"):
        assert folder not in text
