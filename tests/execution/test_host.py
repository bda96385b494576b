"""The kernel host: one server between the entries' threads, a fingerprint taken meanwhile."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import pytest

from flax_errors_ext.execution import host
from flax_errors_ext.execution.host import PROBE_CACHE, KernelHost
from flax_errors_ext.model.config import CatalogueConfig
from flax_errors_ext.model.runs.fingerprint import Device

if TYPE_CHECKING:
    from pathlib import Path


def test_the_entries_threads_start_one_kernel_server_between_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[object] = []
    lock = threading.Lock()

    class SlowToStart:
        def __init__(self, *_: Any, **__: Any) -> None:
            time.sleep(0.05)  # a server's start, long enough for every thread to ask
            with lock:
                made.append(self)

    monkeypatch.setattr(host, "WarmKernelServer", SlowToStart)
    kernels_host = KernelHost(tmp_path, CatalogueConfig(), executes=True)

    with ThreadPoolExecutor(8) as pool:
        servers = list(pool.map(lambda _: kernels_host.start_server(), range(8)))

    assert len(made) == 1
    assert all(server is made[0] for server in servers)


class _HeldServer:
    """A server whose probe answers once the test lets it."""

    started = threading.Event()
    answer = threading.Event()
    stopped = 0

    def __init__(self, *_: Any, **__: Any) -> None:
        type(self).started.set()

    def probe_device(self) -> Device:
        assert type(self).answer.wait(10)
        return Device("cpu", "cpu", 1)

    def stop(self) -> None:
        type(self).stopped += 1


@pytest.fixture
def held_server(monkeypatch: pytest.MonkeyPatch) -> type[_HeldServer]:
    class HeldServer(_HeldServer):
        started = threading.Event()
        answer = threading.Event()

    monkeypatch.setattr(host, "WarmKernelServer", HeldServer)
    return HeldServer


def test_the_fingerprint_is_taken_while_the_caller_goes_on(
    tmp_path: Path, held_server: type[_HeldServer]
) -> None:
    kernels_host = KernelHost(tmp_path, CatalogueConfig(), executes=True)

    kernels_host.fingerprint_meanwhile()

    # No probe cache: the server starts at once, while its probe is still unanswered.
    assert held_server.started.wait(10)
    held_server.answer.set()
    fingerprint = kernels_host.fingerprint()
    assert fingerprint.device == Device("cpu", "cpu", 1)
    assert kernels_host.fingerprint() is fingerprint
    assert (tmp_path / PROBE_CACHE).is_file()
    kernels_host.close()
    assert held_server.stopped == 1


def test_a_run_that_does_not_execute_starts_no_server(
    tmp_path: Path, held_server: type[_HeldServer]
) -> None:
    kernels_host = KernelHost(tmp_path, CatalogueConfig(), executes=False)
    kernels_host.fingerprint_meanwhile()
    assert kernels_host.fingerprint().device is None
    assert not held_server.started.is_set()


def test_what_the_probe_raised_is_raised_to_whoever_asks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []

    def broken(*_: Any) -> None:
        calls.append(1)
        raise OSError("the device probe cache could not be read")

    monkeypatch.setattr(host, "probe_device_cached", broken)
    (tmp_path / PROBE_CACHE).write_text("{}")  # so the thread starts no server first
    kernels_host = KernelHost(tmp_path, CatalogueConfig(), executes=True)
    kernels_host.fingerprint_meanwhile()

    with pytest.raises(OSError, match="could not be read"):
        kernels_host.fingerprint()
    with pytest.raises(OSError, match="could not be read"):  # asked again, probed again
        kernels_host.fingerprint()
    assert len(calls) == 2


def test_only_the_probe_runs_in_the_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, held_server: type[_HeldServer]
) -> None:
    # Python 3.11's parser is not for two threads at once, and the build parses
    # docstrings meanwhile: our sources are hashed by whoever asks.
    hashed_in: list[str] = []

    def hashes() -> dict[str, str]:
        hashed_in.append(threading.current_thread().name)
        return {}

    monkeypatch.setattr(host, "runtime_hashes", hashes)
    kernels_host = KernelHost(tmp_path, CatalogueConfig(), executes=True)
    kernels_host.fingerprint_meanwhile()
    held_server.answer.set()
    kernels_host.fingerprint()
    assert hashed_in == [threading.current_thread().name]


def test_a_server_that_cannot_start_is_raised_to_whoever_asks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def cannot_start(*_: Any, **__: Any) -> None:
        raise OSError("no room for the server's socket")

    monkeypatch.setattr(host, "WarmKernelServer", cannot_start)
    kernels_host = KernelHost(tmp_path, CatalogueConfig(), executes=True)
    kernels_host.fingerprint_meanwhile()
    with pytest.raises(OSError, match="no room"):
        kernels_host.fingerprint()
