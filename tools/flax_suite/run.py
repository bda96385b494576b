"""Run Flax's own tests plain and with the hook, and compare them (``nox -s flax_suite``).

::

    python -m tools.flax_suite.run --cache DIR --reports DIR [-- [--all] PYTEST_ARGS...]

Takes ``tests/`` and ``pyproject.toml`` of the installed flax's sdist, runs the
chosen files twice under Flax's own pytest configuration and CI environment
(plain, then with ``-p tools.flax_suite.plugin``), and fails, through
:mod:`tools.flax_suite.compare`, on any test whose outcome differs. ``--all`` runs
every linen test file and NNX's transforms and bridge tests; the other arguments
after ``--`` go to both pytest runs.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from tools.flax_sdist import flax_source
from tools.flax_suite import compare

if TYPE_CHECKING:
    from collections.abc import Sequence

FAST = (
    "tests/linen/linen_module_test.py",
    "tests/linen/linen_transforms_test.py",
    "tests/linen/linen_combinators_test.py",
    "tests/linen/partitioning_test.py",
    "tests/nnx/bridge/wrappers_test.py",
)
"""The default: the tests closest to the hook (Modules in transformations), in minutes."""
ALL = (
    "tests/linen/*_test.py",
    "tests/nnx/transforms_test.py",
    "tests/nnx/bridge/*_test.py",
)
"""``--all``: globs in Flax's source distribution."""
PARTS = ("pyproject.toml", "tests/")
"""What is taken of Flax's sdist: its tests and pytest configuration, no ``flax/``."""
ENV = {
    "XLA_FLAGS": "--xla_force_host_platform_device_count=4",
    "JAX_NUMPY_RANK_PROMOTION": "raise",
    "FLAX_PROFILE": "1",
}
"""What Flax's CI runs its tests under (tests/run_all_tests.sh), so that both runs see
the environment Flax's own outcomes come from."""
SENTINEL = "tools.flax_suite.sentinel"
"""The JUnit name of the tests the plugin adds to the hooked run (sentinel.py)."""
REPO = Path(__file__).resolve().parents[2]
MODES = {"plain": (), "hooked": ("-p", "tools.flax_suite.plugin")}


def test_files(source: Path, *, run_all: bool) -> list[str]:
    """The test files to run, relative to the sdist's folder."""
    if not run_all:
        return list(FAST)
    return sorted(str(path.relative_to(source)) for glob in ALL for path in source.glob(glob))


def run_suite(
    source: Path, files: Sequence[str], reports: Path, pytest_args: Sequence[str]
) -> None:
    """Both runs of ``files`` in ``source``, each into ``reports/<mode>.xml``; their times."""
    # Flax's own pytest configuration (warnings are errors, and the ones it allows);
    # the repository on the path for the plugin, none of its conftest files.
    # The venv's pytest script, as Flax's CI runs it: not ``python -m``, which would put
    # the sdist's folder first on the path.
    pytest = [
        str(Path(sys.executable).parent / "pytest"),
        "-c",
        "pyproject.toml",
        "--rootdir",
        ".",
    ]
    env = {**os.environ, **ENV, "PYTHONPATH": str(REPO)}
    seconds: dict[str, float] = {}
    for mode, plugin in MODES.items():
        started = time.perf_counter()
        command = [
            *pytest, "-p", "no:cacheprovider", *plugin, f"--junitxml={reports / mode}.xml",
            *pytest_args, *files,
        ]  # fmt: skip
        print(" ".join(command), file=sys.stderr, flush=True)
        # Exit status 1 is Flax's own failures: compared, not fatal.
        if subprocess.run(command, cwd=source, env=env, check=False).returncode not in (0, 1):
            raise SystemExit(f"the {mode} run of Flax's tests did not finish")
        seconds[mode] = time.perf_counter() - started
    print(
        f"{len(files)} files, plain {seconds['plain']:.0f} s + hooked {seconds['hooked']:.0f} s"
        f" = {sum(seconds.values()):.0f} s",
        file=sys.stderr,
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Fetch, run both ways, compare; 1 if an outcome differs."""
    argv = list(sys.argv[1:] if argv is None else argv)
    split = argv.index("--") if "--" in argv else len(argv)
    ours, passed = argv[:split], argv[split + 1 :]
    parser = argparse.ArgumentParser(
        prog="python -m tools.flax_suite.run", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--cache", type=Path, required=True, help="where the sdist is kept")
    parser.add_argument("--reports", type=Path, required=True, help="where the JUnit files go")
    args = parser.parse_args(ours)
    source = flax_source(importlib.metadata.version("flax"), PARTS, args.cache.resolve())
    files = test_files(source, run_all="--all" in passed)
    reports = args.reports.resolve()
    reports.mkdir(parents=True, exist_ok=True)
    run_suite(source, files, reports, [arg for arg in passed if arg != "--all"])
    return compare.main(
        [str(reports / "plain.xml"), str(reports / "hooked.xml"), "--hooked-only", SENTINEL]
    )


if __name__ == "__main__":
    raise SystemExit(main())
