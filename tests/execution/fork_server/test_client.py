"""The warm kernel server: the device probe, and a server kept for the next build."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from typing import TYPE_CHECKING

import pytest

from flax_errors_ext.execution.fork_server.client import WarmKernelServer, retire_kept_server
from flax_errors_ext.execution.fork_server.protocol import alive
from flax_errors_ext.execution.runs.probe import probe_device
from flax_errors_ext.model.runs.fingerprint import Device

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

pytestmark = [
    pytest.mark.kernels,
    pytest.mark.skipif(not hasattr(os, "fork"), reason="warm kernels need os.fork"),
]


@pytest.fixture
def state_dir(tmp_path: Path) -> Iterator[Path]:
    """A build's state folder; a server a test kept there is stopped afterwards."""
    yield tmp_path
    retire_kept_server(tmp_path)


def _gone(pid: int, within: float) -> bool:
    deadline = time.monotonic() + within
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def test_the_server_probes_the_devices_a_fresh_interpreter_sees(
    state_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fresh = probe_device()

    def no_fallback() -> None:
        raise AssertionError("the server did not answer the probe")

    monkeypatch.setattr("flax_errors_ext.execution.fork_server.client.probe_device", no_fallback)
    server = WarmKernelServer(state_dir)
    try:
        assert server.probe_device() == fresh
    finally:
        server.stop()
    assert _gone(server.pid, within=10)


def test_a_probe_without_a_server_falls_back_to_a_fresh_interpreter(
    state_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = WarmKernelServer(state_dir)
    server.stop()
    fresh = Device("cpu", "asked a fresh interpreter", 1)
    monkeypatch.setattr("flax_errors_ext.execution.fork_server.client.probe_device", lambda: fresh)

    assert server.probe_device() == fresh


def test_a_kept_server_serves_the_next_build(state_dir: Path) -> None:
    first = WarmKernelServer(state_dir, linger=60)
    device = first.probe_device()
    first.stop()

    second = WarmKernelServer(state_dir, linger=60)

    assert second.pid == first.pid
    assert second.probe_device() == device
    second.stop()


def test_a_kept_server_is_replaced_when_the_environment_changed(
    state_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = WarmKernelServer(state_dir, linger=60)
    first.probe_device()  # waits until it serves
    first.stop()
    # JAX reads JAX_* variables on import: the kept server imported it without.
    monkeypatch.setenv("JAX_ENABLE_X64", "1")

    second = WarmKernelServer(state_dir, linger=60)

    assert second.pid != first.pid
    assert _gone(first.pid, within=10)
    second.stop()


def test_a_kept_server_exits_once_idle_for_as_long_as_asked(state_dir: Path) -> None:
    server = WarmKernelServer(state_dir, linger=1)
    server.probe_device()
    server.stop()

    assert not _gone(server.pid, within=0.5)
    assert _gone(server.pid, within=10)


@pytest.mark.parametrize("when", ["serving", "still importing"])
def test_a_server_exits_when_its_build_dies_without_stopping_it(tmp_path: Path, when: str) -> None:
    build = (
        "import os, sys\n"
        "from pathlib import Path\n"
        "from flax_errors_ext.execution.fork_server.client import WarmKernelServer\n"
        "server = WarmKernelServer(Path(sys.argv[1]))\n"
        "if sys.argv[2] == 'serving':\n"
        "    server.probe_device()\n"
        "print(server.pid, flush=True)\n"
        "os._exit(9)\n"  # killed: no stop(), no cleanup
    )
    done = subprocess.run(
        [sys.executable, "-c", build, str(tmp_path), when],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 9, done.stderr

    assert _gone(int(done.stdout.split()[-1]), within=30)


_WARM_OR_NOT = """
import json, os, sys, tempfile
from pathlib import Path
if sys.argv[1] == "imported":
    import jax  # sets a few variables of its own, as Sphinx's process does on reading
import nbformat
from nbclient import NotebookClient
from myst_nb.core.config import NbParserConfig
from flax_errors_ext.execution.session import Session
from flax_errors_ext.model.config import CatalogueConfig
with Session(Path(tempfile.mkdtemp()), CatalogueConfig(), NbParserConfig()) as session:
    if sys.argv[2] == "launcher":  # as where this package's entry points are not installed
        spec = Path(session.work_dir, "jupyter/kernels/flax-errors/kernel.json")
        spec.write_text(json.dumps({**json.loads(spec.read_text()), "metadata": {}}))
    server = session.start_server()
    server.probe_device()  # the server serves from now on
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import os, sys; print(os.getpid(), os.getppid(), 'jax' in sys.modules)"
    )])
    client = NotebookClient(notebook, kernel_name="flax-errors")
    with client.setup_kernel():
        started = client.km.provisioner.pid
        client.execute_cell(notebook.cells[0], 0)
    print(server.pid, started, notebook.cells[0].outputs[0]["text"])
"""


@pytest.mark.parametrize("start", ["provisioner", "launcher"])
@pytest.mark.parametrize("build", ["imported", "never-imported"])
def test_kernels_are_forked_warm_whether_or_not_the_build_imported_jax(
    build: str, start: str
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _WARM_OR_NOT, build, start],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    # The kernel writes its own start-up notes where its launcher's stdout goes: here.
    server, started, kernel, parent, has_jax = done.stdout.strip().splitlines()[-1].split()

    assert (parent, has_jax) == (server, "True")
    # The provisioner asks the server itself; the launcher is a process between them.
    assert (started == kernel) is (start == "provisioner")
