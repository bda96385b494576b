"""The release runner, in this interpreter: what it imports, reads, and survives."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from types import ModuleType

from flax_errors_ext.ext.history.model.example_runs import bad_examples
from tests.tools.history.history_files import RELEASE_RUNNER, REPO, runner


def test_the_runner_imports_nothing_of_jax_or_flax_from_us() -> None:
    script = str(RELEASE_RUNNER)
    code = textwrap.dedent(
        f"""
        import importlib.util, sys
        spec = importlib.util.spec_from_file_location("run_release", {script!r})
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        module.load_ours()
        assert "flax_errors_ext.execution.runs.in_kernel" in sys.modules
        assert "tools.forked" in sys.modules
        print(sorted(m for m in ("jax", "jaxlib", "flax", "numpy") if m in sys.modules))
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd="/"
    )
    assert result.stdout.strip() == "[]"


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
