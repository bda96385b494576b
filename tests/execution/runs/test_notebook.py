"""An entry's notebook: one cell per example, set up in the first and reported in the last."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import nbformat
import pytest
from myst_nb.core.config import NbParserConfig

from flax_errors_ext.execution.catalogue.modules import load_module
from flax_errors_ext.execution.runs.execute import execute_notebook
from flax_errors_ext.execution.runs.kernel_environment import package_versions
from flax_errors_ext.execution.runs.kernels import Kernels
from flax_errors_ext.execution.runs.notebook import build_notebook
from flax_errors_ext.model.runs.fingerprint import Device, Fingerprint

if TYPE_CHECKING:
    from pathlib import Path

FINGERPRINT = Fingerprint.of(package_versions(), Device("cpu", "cpu", 1), {})


def test_each_example_is_one_cell_the_first_sets_up_and_the_last_reports() -> None:
    (entry,) = load_module("flax_errors_ext.errors").entries
    cells = [cell.source for cell in build_notebook(entry, FINGERPRINT, [], 10).cells]
    assert len(cells) == len(entry.examples) > 1
    assert all(source.count("run_example(") == 1 for source in cells)
    assert [source.count("\nbegin(") for source in cells] == [1] + [0] * (len(cells) - 1)
    assert [source.count("finish()") for source in cells] == [0] * (len(cells) - 1) + [1]


def test_the_notebook_made_whole_is_a_valid_notebook() -> None:
    # Made without nbformat's constructors (which check it against the schema on
    # every call): jupyter-cache checks it once, as it hashes it.
    (entry,) = load_module("flax_errors_ext.errors").entries
    nbformat.validate(build_notebook(entry, FINGERPRINT, [], 10))


def test_an_entry_without_examples_still_sets_up_and_reports_in_one_cell() -> None:
    (entry,) = load_module("flax_errors_ext.errors").entries
    bare = dataclasses.replace(entry, examples=())
    (cell,) = build_notebook(bare, FINGERPRINT, [], 10).cells
    assert "\nbegin(" in cell.source
    assert cell.source.endswith("finish()\n")
    assert "run_example(" not in cell.source


@pytest.mark.kernels
@pytest.mark.usefixtures("kernelspec")
def test_a_kernel_reports_every_example_and_where_they_ran(tmp_path: Path) -> None:
    (entry,) = load_module("flax_errors_ext.errors").entries
    notebook = build_notebook(entry, FINGERPRINT, [], 120)
    config = NbParserConfig(execution_mode="force")
    kernels = Kernels()
    try:
        execution = execute_notebook(
            notebook, tmp_path / "entry.ipynb", config, len(entry.examples), kernels
        )
    finally:
        kernels.close()
    assert execution.failure is None, execution.failure_detail
    ran = [len(runs) for runs in execution.runs if runs is not None]
    assert ran == [len(e.statements_run) for e in entry.examples]
    # The last cell's report, read from the cell that also ran the last example.
    assert execution.device is not None
    assert execution.device.platform == "cpu"
    assert execution.versions == package_versions()
    assert any(f.path.endswith("in_kernel.py") for f in execution.loaded)
