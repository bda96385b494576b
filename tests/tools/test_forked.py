"""Calls in forked children: in order, isolated, several at once, none lost to one that fails."""

from __future__ import annotations

import multiprocessing
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tools.forked import Call, Forked, run_forked

if TYPE_CHECKING:
    from multiprocessing.synchronize import Barrier

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="forked runs need os.fork")


def _after(seconds: float, value: int) -> int:
    time.sleep(seconds)
    return value


def _where() -> tuple[str, list[str]]:
    return os.getcwd(), os.listdir()


def _set_and_read(name: str) -> str | None:
    before = os.environ.get(name)
    os.environ[name] = "set by a child"
    return before


def _meet(barrier: Barrier, seconds: float) -> int:
    return barrier.wait(timeout=seconds)


def _wait_for(path: Path) -> None:
    deadline = time.monotonic() + 20
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    raise KeyboardInterrupt


def _note_pid_and_sleep(path: Path) -> None:
    path.write_text(str(os.getpid()))
    time.sleep(60)


def test_outcomes_come_in_the_order_of_the_calls() -> None:
    calls = [(_after, (0.6, 0)), (_after, (0.0, 1)), (_after, (0.3, 2))]
    assert list(run_forked(calls, jobs=3)) == [Forked(0), Forked(1), Forked(2)]


def test_each_child_starts_in_an_empty_folder_of_its_own_which_goes_after() -> None:
    (first, seen_first), (second, seen_second) = (
        o.value for o in run_forked([(_where, ()), (_where, ())], jobs=2)
    )
    assert first != second
    assert os.getcwd() not in (first, second)
    assert seen_first == seen_second == []
    assert not Path(first).exists()
    assert not Path(second).exists()


def test_a_child_leaves_nothing_to_the_next() -> None:
    name = "FLAX_ERRORS_TEST_FORKED"
    outcomes = list(run_forked([(_set_and_read, (name,)), (_set_and_read, (name,))]))
    assert [o.value for o in outcomes] == [None, None]
    assert name not in os.environ


def test_jobs_children_run_at_once() -> None:
    barrier = multiprocessing.get_context("fork").Barrier(3)
    outcomes = list(run_forked([(_meet, (barrier, 20))] * 3, jobs=3, timeout=60))
    assert sorted(o.value for o in outcomes) == [0, 1, 2]
    one_at_a_time = multiprocessing.get_context("fork").Barrier(2)
    first, _ = run_forked([(_meet, (one_at_a_time, 1))] * 2, jobs=1, timeout=60)
    assert first.failure.startswith("the call raised BrokenBarrierError")


def test_a_child_that_hangs_is_killed_at_its_timeout_and_the_next_one_runs() -> None:
    started = time.monotonic()
    hung, fine = run_forked([(time.sleep, (60,)), (sum, ([1, 2],))], timeout=2)
    assert hung == Forked(None, "timed out after 2 s")
    assert fine == Forked(3)
    assert time.monotonic() - started < 30


def test_a_child_that_dies_or_raises_does_not_stop_the_others() -> None:
    calls: list[Call] = [(os._exit, (3,)), (int, ("x",)), (sum, ([1, 2],))]
    died, raised, fine = run_forked(calls, jobs=2, timeout=60)
    assert died == Forked(None, "the process died (exit code 3)")
    assert raised.value is None
    assert raised.failure.startswith("the call raised ValueError(")
    assert fine == Forked(3)


def test_an_interrupted_child_interrupts_the_caller_and_ends_the_others(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    calls = [(_wait_for, (pid_file,)), (_note_pid_and_sleep, (pid_file,))]
    with pytest.raises(KeyboardInterrupt):
        list(run_forked(calls, jobs=2, timeout=60))
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid_file.read_text()), 0)
