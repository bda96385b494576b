"""The run's kernels: kept from entry to entry, each entry in a fresh process of its own."""

from __future__ import annotations

import asyncio
import json
import os
import signal
from typing import TYPE_CHECKING

import nbformat
import pytest
from nbclient.exceptions import CellExecutionError, CellTimeoutError

from flax_errors_ext.execution.runs.in_kernel import RESULT_MIME
from flax_errors_ext.execution.runs.kernel import Preload
from flax_errors_ext.execution.runs.kernel_environment import package_versions
from flax_errors_ext.execution.runs.kernels import Kernels, run_in_kernel
from flax_errors_ext.execution.runs.kernelspec import KERNELSPEC
from tests.utils import process_ends

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = [pytest.mark.kernels, pytest.mark.usefixtures("kernelspec")]


def _notebook(source: str) -> nbformat.NotebookNode:
    """A notebook of one cell, ``source``, for the catalogue's kernel."""
    cell = nbformat.v4.new_code_cell(source)  # type: ignore[no-untyped-call]
    notebook: nbformat.NotebookNode = nbformat.v4.new_notebook(  # type: ignore[no-untyped-call]
        cells=[cell], metadata={"kernelspec": KERNELSPEC}
    )
    return notebook


def _entry_notebook(*statements: str) -> nbformat.NotebookNode:
    """An entry's notebook, as the build writes one, whose one example is ``statements``."""
    fingerprint = json.dumps({"versions": package_versions()})
    numbered = list(enumerate(statements))
    cell = (
        "from flax_errors_ext.execution.runs.in_kernel import begin, finish, run_example\n"
        f"begin({fingerprint!r}, [], None)\n"
        f"run_example('example', {len(numbered)}, {numbered!r})\n"
        "finish()\n"
    )
    return _notebook(cell)


def _printed(notebook: nbformat.NotebookNode) -> str:
    """What the notebook's one example printed, as its records say."""
    records = [o["data"][RESULT_MIME] for o in notebook.cells[0].outputs]
    statements = next(r for r in records if "statements" in r)["statements"]
    return "".join(s["got"] for s in statements)


def test_a_kept_kernel_runs_each_notebook_in_a_fresh_process(
    tmp_path: Path,
) -> None:
    # Marks a module, as an example can: the next entry must not find it marked.
    example = (
        "import json, os\n",
        "print(hasattr(json, 'marked'), os.getpid(), os.getcwd())\n",
        "json.marked = True\n",
    )
    kernels = Kernels()
    try:
        first, second = _entry_notebook(*example), _entry_notebook(*example)
        kernels.run(first, tmp_path, timeout=60, output=tmp_path / "first.log")
        (kept,) = kernels._idle
        (tmp_path / "elsewhere").mkdir()
        kernels.run(second, tmp_path / "elsewhere", timeout=60, output=tmp_path / "second.log")
        assert kernels._idle == [kept]
        kernel = kept.manager.provisioner.pid  # type: ignore[union-attr]
    finally:
        kernels.close()
    marked, pid, cwd = _printed(first).split()
    again, other_pid, other_cwd = _printed(second).split()
    assert marked == again == "False"
    assert len({pid, other_pid, str(kernel)}) == 3
    assert (cwd, other_cwd) == (str(tmp_path), str(tmp_path / "elsewhere"))
    assert process_ends(kernel, within=10)


def test_a_kernel_whose_notebook_failed_is_not_kept(
    tmp_path: Path,
) -> None:
    notebook = _notebook("1 / 0")
    kernels = Kernels()
    with pytest.raises(CellExecutionError):
        kernels.run(notebook, tmp_path, timeout=60, output=tmp_path / "kernel.log")
    assert kernels._idle == []


def test_an_example_that_ends_its_process_says_how(
    tmp_path: Path,
) -> None:
    notebook = _entry_notebook("import os\n", "os._exit(3)\n")
    with pytest.raises(CellExecutionError) as raised:
        asyncio.run(run_in_kernel(notebook, tmp_path, timeout=60, output=tmp_path / "log"))
    assert raised.value.ename == "EntryProcessDied"
    assert raised.value.evalue == "the process that ran its examples ended (exit code 3)"


def test_an_example_that_times_out_ends_with_its_kernel(
    tmp_path: Path,
) -> None:
    pid_file = tmp_path / "pid"
    notebook = _entry_notebook(
        "import os, time\n",
        f"_ = open({str(pid_file)!r}, 'w').write(str(os.getpid()))\n",
        "time.sleep(600)\n",
    )
    kernels = Kernels()
    with pytest.raises(CellTimeoutError):
        kernels.run(notebook, tmp_path, timeout=5, output=tmp_path / "kernel.log")
    assert kernels._idle == []
    assert process_ends(int(pid_file.read_text()), within=10)


def test_a_kept_kernel_that_ended_meanwhile_is_not_run_again(
    tmp_path: Path,
) -> None:
    kernels = Kernels()
    try:
        kernels.run(_entry_notebook("print(1)\n"), tmp_path, timeout=60, output=tmp_path / "a")
        (kept,) = kernels._idle
        pid = kept.manager.provisioner.pid  # type: ignore[union-attr]
        os.kill(pid, signal.SIGKILL)  # killed from outside while it waits
        assert process_ends(pid, within=10)
        second = _entry_notebook("print(2)\n")
        kernels.run(second, tmp_path, timeout=60, output=tmp_path / "b")
        assert _printed(second) == "2\n"
        assert kernels._idle != [kept]
    finally:
        kernels.close()


def _module(folder: Path, name: str, body: str) -> Preload:
    """A module ``name`` of ``body`` in ``folder``, to be imported from there."""
    folder.mkdir(exist_ok=True)
    (folder / f"{name}.py").write_text(body, encoding="utf-8")
    return Preload(name, str(folder))


_SEES_IT = (
    "import sys\n",
    "print(sorted(m for m in sys.modules if m.startswith('catalogued_')),"
    " any(p.endswith('library') for p in sys.path))\n",
)
"""An example that prints the catalogued modules imported before it, and whether the
library's folder is on ``sys.path`` (it is not: only ``begin`` would put it there)."""


def test_the_entrys_module_is_imported_before_its_examples_run(
    tmp_path: Path,
) -> None:
    library = tmp_path / "library"
    first = _module(library, "catalogued_a", "marked = False\n")
    second = _module(library, "catalogued_b", "")
    kernels = Kernels()
    try:
        ran = [_entry_notebook(*_SEES_IT) for _ in range(3)]
        kernels.run(ran[0], tmp_path, timeout=60, output=tmp_path / "1", preload=first)
        (kept,) = kernels._idle
        kernels.run(ran[1], tmp_path, timeout=60, output=tmp_path / "2", preload=first)
        assert kernels._idle == [kept]
        pid = kept.manager.provisioner.pid  # type: ignore[union-attr]
        # Another module's entries get a kernel of their own; the first one is stopped.
        kernels.run(ran[2], tmp_path, timeout=60, output=tmp_path / "3", preload=second)
        assert kernels._idle != [kept]
    finally:
        kernels.close()
    assert [_printed(n) for n in ran] == [
        "['catalogued_a'] False\n",
        "['catalogued_a'] False\n",
        "['catalogued_b'] False\n",
    ]
    assert process_ends(pid, within=10)


def test_a_module_whose_import_starts_a_backend_is_left_to_its_examples(
    tmp_path: Path,
) -> None:
    # A backend started before the fork would leave its threads behind in the child.
    module = _module(tmp_path / "library", "catalogued_c", "import jax\njax.numpy.zeros(1)\n")
    kernels = Kernels()
    try:
        ran = [_entry_notebook(*_SEES_IT) for _ in range(2)]
        for number, notebook in enumerate(ran):
            kernels.run(
                notebook, tmp_path, timeout=60, output=tmp_path / f"{number}", preload=module
            )
        (kept,) = kernels._idle
        assert kept.imported is None
    finally:
        kernels.close()
    assert [_printed(n) for n in ran] == ["[] False\n", "[] False\n"]
    assert "catalogued_c" in kernels._not_preloaded


def test_a_module_that_fails_to_import_is_left_to_its_examples(
    tmp_path: Path,
) -> None:
    module = _module(tmp_path / "library", "catalogued_d", "raise ImportError('not here')\n")
    notebook = _entry_notebook(*_SEES_IT)
    kernels = Kernels()
    try:
        kernels.run(notebook, tmp_path, timeout=60, output=tmp_path / "log", preload=module)
        assert len(kernels._idle) == 1  # the kernel is sound, and kept
    finally:
        kernels.close()
    assert _printed(notebook) == "[] False\n"


def test_a_kernel_that_had_the_module_already_serves_any_module(
    tmp_path: Path,
) -> None:
    # The kernel has json as it starts, as the warm server's kernels have flax.errors.
    had = Preload("json", "")
    module = _module(tmp_path / "library", "catalogued_e", "")
    kernels = Kernels()
    try:
        kernels.run(
            _entry_notebook("pass\n"), tmp_path, timeout=60, output=tmp_path / "1", preload=had
        )
        (kept,) = kernels._idle
        assert kept.imported is None
        notebook = _entry_notebook(*_SEES_IT)
        kernels.run(notebook, tmp_path, timeout=60, output=tmp_path / "2", preload=module)
        assert kernels._idle == [kept]
        assert kept.imported == "catalogued_e"
    finally:
        kernels.close()
    assert _printed(notebook) == "['catalogued_e'] False\n"


def test_a_kept_kernel_whose_import_starts_a_backend_is_replaced(
    tmp_path: Path,
) -> None:
    module = _module(tmp_path / "library", "catalogued_f", "import jax\njax.numpy.zeros(1)\n")
    kernels = Kernels()
    try:
        kernels.run(_entry_notebook("pass\n"), tmp_path, timeout=60, output=tmp_path / "1")
        (kept,) = kernels._idle
        pid = kept.manager.provisioner.pid  # type: ignore[union-attr]
        notebook = _entry_notebook(*_SEES_IT)
        kernels.run(notebook, tmp_path, timeout=60, output=tmp_path / "2", preload=module)
        (other,) = kernels._idle
        assert other is not kept
    finally:
        kernels.close()
    assert _printed(notebook) == "[] False\n"
    assert process_ends(pid, within=10)
