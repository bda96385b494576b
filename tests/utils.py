"""Helpers shared by several test modules (test modules never import each other)."""

from __future__ import annotations

import dataclasses
import importlib.metadata
import json
import shutil
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flax_errors_ext.cli.selection import DEFAULT_MODULES
from flax_errors_ext.execution.catalogue.modules import load_module
from flax_errors_ext.execution.runs.runner import Runner
from flax_errors_ext.execution.runs.versions import installed_versions
from flax_errors_ext.model.catalogue.records import StatementRun
from flax_errors_ext.model.runs.jobs import entry_job

if TYPE_CHECKING:
    from flax_errors_ext.model.catalogue.records import ErrorEntry, Example

ROOTS = Path(__file__).parent / "roots"
MODULES = {name: load_module(name) for name in DEFAULT_MODULES}
"""The shipped catalogue's modules, each read once, by name."""
FLAX = MODULES["flax.errors"]
"""Flax's errors, with the shipped catalogue files."""
OURS = MODULES["flax_errors_ext.errors"]
"""This package's own errors."""
JAX = MODULES["jax.errors"]
"""JAX's errors, with the shipped catalogue files."""
INSTALLED = installed_versions(
    [example for module in MODULES.values() for e in module.entries for example in e.examples],
    {name: importlib.metadata.version(name) for name in ("flax", "jax", "jaxlib")},
)
"""The versions the examples' ``:holds for:`` lines are read against here: of every
package a catalogue example names (``orbax-checkpoint``), as installed."""


def site_runs() -> list[str]:
    """The site's ``flax_errors_device_runs`` (conf.py), as absolute paths.

    A test that builds the site from a copy of ``docs/`` and ``conf.py`` passes them
    on: the runs of other stacks and devices name the pages that the errors of
    other releases link to (JAX 0.12's ``101/errors.html``), which the site forwards.
    """
    root = Path(__file__).parents[1]
    namespace: dict[str, Any] = {}
    exec((root / "conf.py").read_text("utf-8"), namespace)
    return [str(root / name) for name in namespace["flax_errors_device_runs"]]


def project_from_root(root: str, tmp_path: Path) -> Path:
    """A private copy of the test root ``tests/roots/test-<root>``, as a project folder."""
    project = tmp_path / root
    shutil.copytree(ROOTS / f"test-{root}", project)
    return project


def module_html(outdir: Path, page: str) -> str:
    """A module's page and its entries' pages (``<page>/<Name>.html``), as one text.

    For tests of what an entry shows, whichever page of the module shows it: the
    entries' pages come first, in name order, so that the first element of an
    entry's id is the entry's section, not its summary on the module's page.
    """
    module = outdir / f"{page}.html"
    entries = sorted((outdir / page).glob("*.html")) if (outdir / page).is_dir() else []
    return "\n".join(path.read_text() for path in (*entries, module))


def read_catalogue(outdir: Path) -> dict[str, Any]:
    """The errors.json a build wrote."""
    catalogue: dict[str, Any] = json.loads((outdir / "errors.json").read_text())
    return catalogue


def entry(catalogue: dict[str, Any], name: str) -> dict[str, Any]:
    """The record of the entry called ``name`` (short name)."""
    found: list[dict[str, Any]] = [e for e in catalogue["entries"] if e["name"] == name]
    assert len(found) == 1, f"{len(found)} entries named {name}"
    return found[0]


def run_in_process(entry: ErrorEntry, example: Example) -> list[StatementRun]:
    """Run one example in a process of its own, as a build runs an entry's examples."""
    job = entry_job(dataclasses.replace(entry, examples=(example,)), None)
    done = Runner(timeout=120).run(job)
    return [StatementRun.from_json(record) for record in done.examples.get(0, [])]


def process_ends(pid: int, within: float) -> bool:
    """Whether process ``pid`` (not a child of ours) is gone, or a zombie, within ``within`` s.

    Read from ``/proc``: a process of another parent cannot be waited for.
    """
    until = time.monotonic() + within
    while time.monotonic() < until:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1].split()[0]
        except FileNotFoundError:
            return True
        if state == "Z":
            return True
        time.sleep(0.01)
    return False
