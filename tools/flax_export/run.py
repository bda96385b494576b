"""Flax's doctests of the exported ``flax/errors.py``, without us (``nox -s flax_export``).

::

    python -m tools.flax_export.run --constraints FILE --cache DIR --work DIR

Takes ``flax/`` and ``pyproject.toml`` of the stack's locked flax's sdist, patches
``flax/errors.py`` with ``flax-errors export`` (run here, where this project is
installed), prints the file's figures before and after, and then, in a virtual
environment that holds only flax, jax, jaxlib, pytest and pytest-xdist at the
stack's locked versions (made once per set of pins), runs what Flax's CI runs::

    pytest -c pyproject.toml --doctest-modules -n auto flax/errors.py

on the patched tree, which comes first on the path. Every doctest must pass.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from tools.flax_export.figures import pins, report
from tools.flax_sdist import flax_source
from tools.flax_suite.compare import read_junit, summary

if TYPE_CHECKING:
    from collections.abc import Sequence

BARE = ("flax", "jax", "jaxlib", "pytest")
"""What the doctest environment holds at the stack's pins (and pytest-xdist, unpinned
where the stack does not pin it): Flax's runtime, and Flax's test runner."""
PARTS = ("flax/", "pyproject.toml")


def patched_tree(version: str, cache: Path, work: Path) -> Path:
    """A copy of Flax ``version``'s sources patched by ``flax-errors export``."""
    tree = work / f"flax-{version}"
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(flax_source(version, PARTS, cache), tree)
    errors = tree / "flax" / "errors.py"
    before = errors.read_text(encoding="utf-8")
    patch = work / "export.patch"
    command = Path(sys.executable).parent / "flax-errors"
    subprocess.run(
        [str(command), "export", "--flax-source", str(errors), "-o", str(patch)], check=True
    )
    subprocess.run(["patch", "-p1", "--batch", "--quiet", "-i", str(patch)], cwd=tree, check=True)
    print(f"flax/errors.py of flax {version}, Flax's and exported:")
    print(report(before, errors.read_text(encoding="utf-8")))
    return tree


def bare_environment(requirements: Sequence[str], constraints: Path, work: Path) -> Path:
    """The python of a venv with only ``requirements`` (and their dependencies).

    Made again only when the pins change.
    """
    venv = work.parent / "bare-venv"
    stamp = venv / "pins.txt"
    wanted = "\n".join([*requirements, constraints.read_text(encoding="utf-8")])
    python = venv / "bin" / "python"
    if not (stamp.is_file() and stamp.read_text(encoding="utf-8") == wanted):
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run(
            [
                str(python),
                "-m",
                "pip",
                "install",
                "--quiet",
                "-c",
                str(constraints),
                *requirements,
            ],
            check=True,
        )
        stamp.write_text(wanted, encoding="utf-8")
    found = subprocess.run(
        # Isolated (-I): not this checkout on the path, only what the venv installed.
        [
            str(python),
            "-I",
            "-c",
            "import importlib.util as u; print(u.find_spec('flax_errors_ext'))",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    if found.stdout.strip() != "None":
        raise SystemExit(f"{venv} holds this project; the doctests must run without it")
    return python


def doctests(python: Path, tree: Path, work: Path) -> int:
    """Run Flax's doctests of ``flax/errors.py`` in ``tree``; 1 if any did not pass."""
    junit = work / "doctest.xml"
    env = {**os.environ, "PYTHONPATH": str(tree)}
    started = time.monotonic()
    subprocess.run(
        [
            str(python), "-m", "pytest", "-c", "pyproject.toml", "--rootdir", ".",
            "--doctest-modules", "-n", "auto", "-p", "no:cacheprovider", "-q",
            f"--junitxml={junit}", "flax/errors.py",
        ],
        cwd=tree, env=env, check=False,
    )  # fmt: skip
    results = read_junit(junit)
    print(
        f"Flax's pytest --doctest-modules flax/errors.py, exported: {summary(results)} "
        f"({time.monotonic() - started:.0f} s)"
    )
    failing = sorted(test for test, result in results.items() if result.outcome != "passed")
    for test in failing:
        print(f"    not passed: {test}: {results[test].outcome}")
    return 1 if failing else 0


def main(argv: Sequence[str] | None = None) -> int:
    """Patch, report the figures, and run the doctests without this project."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--constraints", type=Path, required=True, help="the stack's lock file")
    parser.add_argument("--cache", type=Path, required=True, help="where Flax's sdist is kept")
    parser.add_argument("--work", type=Path, required=True, help="a folder of this run's own")
    args = parser.parse_args(argv)
    lines = args.constraints.read_text(encoding="utf-8").splitlines()
    requirements = [*pins(lines, BARE), "pytest-xdist"]
    version = requirements[0].partition("==")[2]
    # Absolute: the steps run in the tree, not here.
    work, cache, constraints = (p.resolve() for p in (args.work, args.cache, args.constraints))
    work.mkdir(parents=True, exist_ok=True)
    tree = patched_tree(version, cache, work)
    python = bare_environment(requirements, constraints, work)
    return doctests(python, tree, work)


if __name__ == "__main__":
    sys.exit(main())
