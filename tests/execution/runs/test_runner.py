"""The one runner: a fresh process per entry, its timeout, its crashes, one process reused."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from flax_errors_ext.execution.runs.runner import SHARED_LOG, Runner
from flax_errors_ext.model.runs.fingerprint import Device
from flax_errors_ext.model.runs.jobs import EntryJob, ExampleJob

if TYPE_CHECKING:
    from collections.abc import Iterator

pytestmark = pytest.mark.examples

PID = "import os; print(os.getpid())\n"


def _job(*examples: str, name: str = "pkg.E") -> EntryJob:
    """An entry whose examples are one statement each."""
    return EntryJob(
        name, len(examples), tuple(ExampleJob(((n, s),)) for n, s in enumerate(examples))
    )


@pytest.fixture
def runner(tmp_path: Path) -> Iterator[Runner]:
    found = Runner(timeout=20, log_dir=tmp_path / "logs")
    yield found
    found.close()


def _got(run: object, index: int) -> str:
    records = run.examples[index]  # type: ignore[attr-defined]
    return str(records[0].get("got") or records[0].get("exc_msg"))


def test_each_example_is_recorded_and_the_wrap_up_says_where_it_ran(runner: Runner) -> None:
    done = runner.run(_job("print(6 * 7)\n", "1 / 0\n"))

    assert done.failure == ""
    assert _got(done, 0) == "42\n"
    assert done.examples[1][0]["exc_type"] == "ZeroDivisionError"
    assert done.finish is not None
    assert Device.from_json(done.finish["device"]) is not None
    assert done.finish["versions"].keys() == {"jax", "jaxlib", "flax"}


def test_an_entry_never_sees_what_another_left(runner: Runner) -> None:
    first = runner.run(_job("import os, sys; sys.flax_errors_mark = 1; print(os.getpid())\n"))
    second = runner.run(
        _job("import os, sys; print(os.getpid(), hasattr(sys, 'flax_errors_mark'))\n")
    )

    pid, seen = _got(second, 0).split()
    assert pid != _got(first, 0).strip()
    assert seen == "False"


def test_an_example_past_its_timeout_is_killed_and_the_earlier_ones_kept(tmp_path: Path) -> None:
    runner = Runner(timeout=2, log_dir=tmp_path)
    try:
        done = runner.run(_job("print(1)\n", "import time; time.sleep(60)\n"))
    finally:
        runner.close()

    assert done.failure == "timed out"
    assert "past the 2 s timeout" in done.detail
    assert _got(done, 0) == "1\n"
    assert 1 not in done.examples
    assert done.seconds < 30


def test_a_process_that_dies_is_a_crash_said_with_its_last_words(runner: Runner) -> None:
    statement = "import os, sys; print('last words', file=sys.stderr, flush=True); os._exit(3)\n"
    done = runner.run(_job("print(1)\n", statement))

    assert done.failure == "crashed"
    assert "ended (exit code 3)" in done.detail
    assert "last words" in done.log
    assert _got(done, 0) == "1\n"


def test_a_killed_process_says_its_signal(runner: Runner) -> None:
    done = runner.run(_job("import os, signal; os.kill(os.getpid(), signal.SIGKILL)\n"))

    assert done.failure == "crashed"
    assert "signal SIGKILL" in done.detail


def test_a_reused_process_gives_each_entry_a_namespace_flags_environment_and_folder_as_they_were(
    tmp_path: Path,
) -> None:
    runner = Runner(timeout=20, log_dir=tmp_path, reuse=True)
    try:
        first = runner.run(
            _job(
                "import jax, os; jax.config.update('jax_enable_x64', True); x = 1\n",
                "import os; os.environ['FLAX_ERRORS_MARK'] = '1'; os.chdir('/')\n",
                PID,
            )
        )
        second = runner.run(
            _job(
                "import jax; print('x' in globals(), jax.config.jax_enable_x64)\n",
                "import os; print('FLAX_ERRORS_MARK' in os.environ, os.getcwd() == '/')\n",
                PID,
            )
        )
    finally:
        runner.close()

    assert _got(first, 2) == _got(second, 2)
    assert first.examples[1][0]["got"] == ""
    assert "exc_msg" not in first.examples[1][0]
    assert _got(second, 0).split() == ["False", "False"]
    assert _got(second, 1).split() == ["False", "False"]


def test_a_reused_process_that_crashed_is_replaced(tmp_path: Path) -> None:
    runner = Runner(timeout=20, log_dir=tmp_path, reuse=True)
    try:
        crashed = runner.run(_job("import os; os._exit(1)\n"))
        after = runner.run(_job("print('alive')\n"))
    finally:
        runner.close()

    assert crashed.failure == "crashed"
    assert after.failure == ""
    assert _got(after, 0) == "alive\n"


def _side_by_side(runner: Runner, *jobs: EntryJob) -> list[object]:
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(len(jobs)) as pool:
        return list(pool.map(runner.run, jobs))


def test_entries_sharing_a_process_run_side_by_side_each_with_its_own_output(
    tmp_path: Path,
) -> None:
    # Each waits for the other's file: they finish only if both run at once.
    def waiting_for(me: str, other: str) -> EntryJob:
        mine, theirs = tmp_path / me, tmp_path / other
        return _job(
            f"for _ in range(200):\n"
            f"    import pathlib, time; pathlib.Path({str(mine)!r}).touch(); print({me!r})\n"
            f"    if pathlib.Path({str(theirs)!r}).exists(): break\n"
            f"    time.sleep(0.05)\n",
            "1 / 0\n",
            name=f"pkg.{me}",
        )

    runner = Runner(timeout=20, log_dir=tmp_path, reuse=True)
    try:
        first, second = _side_by_side(
            runner, waiting_for("first", "second"), waiting_for("second", "first")
        )
    finally:
        runner.close()

    assert {*_got(first, 0).split()} == {"first"}
    assert {*_got(second, 0).split()} == {"second"}
    assert first.examples[1][0]["got"] == ""  # type: ignore[attr-defined]
    assert "ZeroDivisionError" in _got(first, 1)
    # The traceback shows each statement's own source, as doctest prints it.
    assert "1 / 0" in first.examples[1][0]["transcript"]  # type: ignore[attr-defined]
    assert "1 / 0" in second.examples[1][0]["transcript"]  # type: ignore[attr-defined]


def test_the_probe_answers_with_the_device_an_entry_sees(runner: Runner) -> None:
    device = runner.probe()

    assert isinstance(device, Device)
    assert device.platform == "cpu"


def test_kill_all_ends_every_process_at_once(tmp_path: Path) -> None:
    import threading

    runner = Runner(timeout=60, log_dir=tmp_path)
    results = []
    thread = threading.Thread(
        target=lambda: results.append(runner.run(_job("import time; time.sleep(60)\n")))
    )
    thread.start()
    try:
        for _ in range(200):  # until its process has started
            if runner._live:
                break
            threading.Event().wait(0.05)
        runner.kill_all()
        thread.join(30)
    finally:
        runner.close()

    assert not thread.is_alive()
    assert results[0].failure == "crashed"


def test_a_probe_that_finds_an_accelerator_keeps_its_process_for_the_entries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The CPU read as a TPU: the path an accelerator takes, on any machine.
    tpu = Device("tpu", "TPU v5 lite", 1)
    monkeypatch.setattr(Device, "from_json", classmethod(lambda cls, data: tpu))
    runner = Runner(timeout=20, log_dir=tmp_path)
    try:
        device = runner.probe()
        probed = runner._shared
        first = runner.run(_job("import os; print(os.getpid())\n"))
        second = runner.run(_job("import os; print(os.getpid())\n"))
    finally:
        runner.close()

    assert device == tpu
    assert runner.reuse
    assert probed is not None
    assert _got(first, 0) == _got(second, 0) == f"{probed.process.pid}\n"
    # The entries' output goes on in a log of its own, not in the probe's.
    assert (tmp_path / f"{SHARED_LOG}.log").exists()


def test_a_process_forked_after_the_forkserver_started_runs_entries_too(runner: Runner) -> None:
    # As a -j reader of Sphinx's does, for a module no setting lists.
    runner.run(_job("pass\n"))  # the forkserver started here
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through the pipe
        done = Runner(timeout=60).run(_job("print('from the reader')\n"))
        os.write(write, _got(done, 0).encode())
        os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    with os.fdopen(read) as said:
        assert said.read() == "from the reader\n"


def _children() -> set[int]:
    return {
        int(pid)
        for task in os.listdir("/proc/self/task")
        for pid in Path(f"/proc/self/task/{task}/children").read_text().split()
    }


@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="reads Linux's /proc")
def test_closed_the_runner_leaves_no_process_behind(tmp_path: Path) -> None:
    before = _children()
    runner = Runner(timeout=20, log_dir=tmp_path)
    runner.run(_job("pass\n"))
    started = _children() - before  # the forkserver, its resource tracker
    runner.close()

    assert started
    assert not started & _children()
