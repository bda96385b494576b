"""The release runner, in this interpreter: what it imports, reads, and survives."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from types import ModuleType

import pytest

from flax_errors_ext.ext.history.model.cells import bad_examples
from tests.tools.history.history_files import RELEASE_RUNNER, REPO, runner

ENTRY = """\
Summary.

Bad example:

  >>> import math
  >>> math.sqrt(-1)
  Traceback (most recent call last):
    ...
  flax.errors.E: never this
"""


@pytest.mark.examples
def test_the_runner_loads_all_it_uses_of_ours_first_and_nothing_of_jax_or_flax() -> None:
    """In a release's venv our modules must be checked before that release's jax loads."""
    script = str(RELEASE_RUNNER)
    code = textwrap.dedent(
        f"""
        import importlib.util, sys, types
        spec = importlib.util.spec_from_file_location("run_release", {script!r})
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        module.load_ours()
        print(sorted(m for m in ("jax", "jaxlib", "flax", "numpy") if m in sys.modules))
        ours = set(sys.modules)
        from flax_errors_ext.execution.runs.runner import Runner
        from flax_errors_ext.model.catalogue.parse import parse_docstring
        text = {ENTRY!r}
        entry = parse_docstring(text, "flax.errors.E", "E.txt", 1)
        runner = Runner(timeout=60)
        try:
            run = module.run_entry(entry, types.ModuleType("flax.errors"), runner, (), {{}})
        finally:
            runner.close()
        print(run.examples[0].outcome.value)
        print(sorted(m for m in set(sys.modules) - ours if m.startswith(("flax_errors", "tools"))))
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd="/"
    )
    assert result.stdout.split("\n")[:3] == ["[]", "raised-other", "[]"], result.stderr


def test_the_runner_reads_the_catalogue() -> None:
    folder = REPO / "flax_errors_ext" / "catalogue" / "flax.errors"
    entries = runner().read_catalogue(folder, None)
    assert len(entries) == len(list(folder.glob("*.txt")))
    assert all(e.qualname.startswith("flax.errors.") for e in entries)
    assert sum(len(bad_examples(e)) for e in entries) > len(entries)
    only = runner().read_catalogue(folder, ["NameInUseError"])
    assert [e.name for e in only] == ["NameInUseError"]


def test_exception_classes_of_a_module() -> None:
    module = ModuleType("fake.errors")
    exec(
        "class FlaxError(Exception): pass\nclass A(FlaxError): pass\nclass _B(FlaxError): pass\n"
        "Imported = KeyError\nclass NotAnError: pass\n",
        vars(module),
    )
    assert runner().exception_classes(module) == ["A", "FlaxError"]
