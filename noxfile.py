"""Developer and CI sessions. ``nox -s tests`` is what CI runs; see README.md."""

from __future__ import annotations

import json
import os
import re
import sys
import tarfile
import tempfile
import time
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any

import nox

if TYPE_CHECKING:
    from flax_errors_ext.model.history import History

nox.options.default_venv_backend = "uv|virtualenv"
nox.options.reuse_venv = "yes"
nox.options.sessions = ["lint", "tests", "doctest", "docs", "linkcheck"]

PYTHON = "3.11"
# uv does not compile bytecode on install (pip does), and where PYTHONDONTWRITEBYTECODE
# is set nothing writes it later either: every process, and every kernel, would then
# compile jax and flax from source on each import (README, Performance, has the cost).
os.environ.setdefault("UV_COMPILE_BYTECODE", "1")
# Doctrees beside the HTML, not in it: they hold the build machine's paths.
# .readthedocs.yaml runs the same build (tests/test_hosting.py keeps them in step).
SITE_BUILD = (
    "-b",
    "html",
    "-c",
    ".",
    "-W",
    "--keep-going",
    "-d",
    "docs/_build/doctrees",
    "docs",
    "docs/_build/html",
)


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """The test suite: runtime hook, core, and Sphinx test roots."""
    session.install("-e", ".[test]")
    session.run("pytest", *session.posargs)


@nox.session(python=PYTHON)
def doctest(session: nox.Session) -> None:
    """Contributor doctests: every catalogue docstring and example file, by plain doctest."""
    session.install("-e", ".[test]")
    session.run(
        "pytest",
        "--doctest-modules",
        "--doctest-glob=*.txt",
        "flax_errors_ext",
        *session.posargs,
    )


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """ruff, mypy (strict) and the layer contracts (import-linter)."""
    session.install("-e", ".[lint]")
    session.run("ruff", "check", "--no-cache", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("mypy")
    session.run("lint-imports")


@nox.session(python=PYTHON)
def docs(session: nox.Session) -> None:
    """Build the catalogue site with every example executed; fails on drift or any warning."""
    session.install("-e", ".[docs]")
    session.run("sphinx-build", *SITE_BUILD, *session.posargs)


@nox.session(python=PYTHON)
def linkcheck(session: nox.Session) -> None:
    """Offline: every local link and anchor of the built site resolves; external ones listed.

    Builds the site first (incrementally: after ``nox -s docs`` nothing is run again).
    """
    session.install("-e", ".[docs]")
    session.run("sphinx-build", *SITE_BUILD)
    session.run("python", "-m", "tests.site_links", "docs/_build/html")


@nox.session(python=PYTHON)
def bench(session: nox.Session) -> None:
    """Benchmarks: ratios measured side by side in one run."""
    session.install("-e", ".[test]")
    session.run("python", "benchmarks/bench_build.py", *session.posargs)


# --- nox -s flax_suite: Flax's own tests, plain and with install() active. ---

FLAX_SUITE_FAST = (
    "tests/linen/linen_module_test.py",
    "tests/linen/linen_transforms_test.py",
    "tests/linen/linen_combinators_test.py",
    "tests/linen/partitioning_test.py",
    "tests/nnx/bridge/wrappers_test.py",
)
"""The default: the tests closest to the hook (Modules in transformations), in minutes."""
FLAX_SUITE_ALL = (
    "tests/linen/*_test.py",
    "tests/nnx/transforms_test.py",
    "tests/nnx/bridge/*_test.py",
)
"""``-- --all``: globs in Flax's source distribution."""
FLAX_SUITE_DEPS = ("cloudpickle", "absl-py")
"""What Flax's chosen test files import beyond flax, jax, optax, numpy and pytest: its
``testing`` extra holds these among dozens (TensorFlow, torch, ...) that they never
import. cloudpickle is missing otherwise (linen_module_test.py pickles Modules with it);
absl-py (``absltest``, ``parameterized``, in every file) comes with optax today."""
FLAX_SUITE_ENV = {
    "XLA_FLAGS": "--xla_force_host_platform_device_count=4",
    "JAX_NUMPY_RANK_PROMOTION": "raise",
    "FLAX_PROFILE": "1",
}
"""What Flax's CI runs its tests under (tests/run_all_tests.sh), so that both runs see
the environment Flax's own outcomes come from."""
SENTINEL = "tests.flax_suite.sentinel"
"""The JUnit name of the tests the plugin adds to the hooked run (tests/flax_suite/sentinel.py)."""


@nox.session(python=PYTHON)
def flax_suite(session: nox.Session) -> None:
    """Flax's own tests, plain and with install(): any test whose outcome differs fails.

    ``-- --all`` runs every linen test file and NNX's transforms and bridge tests;
    other arguments go to both pytest runs.
    """
    session.install("-e", ".[test]", *FLAX_SUITE_DEPS)
    run_all = "--all" in session.posargs
    pytest_args = [arg for arg in session.posargs if arg != "--all"]
    version = session.run(
        "python", "-c", "import importlib.metadata as m; print(m.version('flax'))", silent=True
    )
    assert isinstance(version, str)
    source = _flax_source(session, version.strip())
    files = (
        sorted(
            str(path.relative_to(source)) for glob in FLAX_SUITE_ALL for path in source.glob(glob)
        )
        if run_all
        else list(FLAX_SUITE_FAST)
    )
    reports = Path(session.create_tmp()).resolve()
    repo = Path.cwd()
    # Flax's own pytest configuration (warnings are errors, and the ones it allows);
    # the repository on the path for the plugin, none of its conftest files.
    pytest = ["pytest", "-c", "pyproject.toml", "--rootdir", ".", "-p", "no:cacheprovider"]
    env = {**FLAX_SUITE_ENV, "PYTHONPATH": str(repo)}
    runs = {"plain": [], "hooked": ["-p", "tests.flax_suite.plugin"]}
    seconds: dict[str, float] = {}
    with session.chdir(source):
        for mode, plugin in runs.items():
            started = time.perf_counter()
            session.run(
                *pytest,
                *plugin,
                f"--junitxml={reports / mode}.xml",
                *pytest_args,
                *files,
                env=env,
                success_codes=[0, 1],  # Flax's own failures are compared, not fatal
            )
            seconds[mode] = time.perf_counter() - started
    session.log(
        f"{len(files)} files, plain {seconds['plain']:.0f} s + hooked {seconds['hooked']:.0f} s"
        f" = {sum(seconds.values()):.0f} s"
    )
    session.run(
        "python",
        "-m",
        "tests.flax_suite.compare",
        str(reports / "plain.xml"),
        str(reports / "hooked.xml"),
        "--hooked-only",
        SENTINEL,
    )


def _flax_source(session: nox.Session, version: str) -> Path:
    """Flax's tests and pytest configuration from its sdist on PyPI, fetched once.

    Only ``tests/`` and ``pyproject.toml`` are extracted: the installed flax is the one
    under test, and no ``flax/`` directory in the tree can shadow it.
    """
    if not re.fullmatch(r"[0-9A-Za-z.+!-]+", version):
        session.error(f"unexpected flax version {version!r}")
    cache = Path(session.cache_dir) / "flax-sdist"
    source = cache / f"flax-{version}"
    if (source / "pyproject.toml").is_file():
        return source
    cache.mkdir(parents=True, exist_ok=True)
    session.install("pip")  # uv's environments have no pip, and uv cannot just download
    with tempfile.TemporaryDirectory(dir=cache) as tmp:
        session.run(
            "python",
            "-m",
            "pip",
            "download",
            "--quiet",
            "--no-deps",
            # Flax's sdist (it ships tests/, its wheel does not); the build tools pip
            # needs to read the sdist's metadata may come as wheels.
            "--no-binary=flax",
            "--dest",
            tmp,
            f"flax=={version}",
        )
        (archive,) = Path(tmp).glob("flax-*.tar.gz")
        top = f"flax-{version}/"
        with tarfile.open(archive) as tar:
            wanted = [
                member
                for member in tar.getmembers()
                if member.name == top + "pyproject.toml" or member.name.startswith(top + "tests/")
            ]
            tar.extractall(tmp, members=wanted, filter="data")
        # Renamed into place whole, so that an interrupted fetch is never taken as cached.
        Path(tmp, top).rename(source)
    return source


# --- nox -s history: every catalogue entry's bad examples on past Flax releases. ---

HISTORY = Path("flax_errors_ext/history")
HISTORY_CATALOGUE = Path("flax_errors_ext/catalogue/flax.errors")
HISTORY_PINNED = ("flax", "jax", "jaxlib")
"""Pinned in releases.toml, so exempt from the release's `as_of` date."""


@nox.session(python=PYTHON, venv_backend="uv")
def history(session: nox.Session) -> None:
    """Every flax.errors entry's bad examples on each release in releases.toml, into flax.json.

    One venv per release under .nox/history/releases/; a release already recorded
    with the same example code, rewritten by the same rules of rewrites.toml, is not
    run again. The file is written after each release, and Ctrl-C keeps what was
    done. ``-- 0.8.5 0.12.8`` runs only those.
    """
    # The model is the standard library alone: read from this checkout, nothing installed
    # (nox imports this file without putting its folder on sys.path).
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from flax_errors_ext.model.history import History, Pin, ReleaseRun, entry_codes
    from flax_errors_ext.model.history_rewrites import entry_rewrites, parse_rules, rules_for
    from flax_errors_ext.model.parse import parse_docstring

    releases = tomllib.loads((HISTORY / "releases.toml").read_text("utf-8"))["release"]
    if session.posargs:
        releases = [r for r in releases if r["flax"] in session.posargs]
    entries = [
        parse_docstring(path.read_text("utf-8"), f"flax.errors.{path.stem}", str(path), 1)
        for path in sorted(HISTORY_CATALOGUE.glob("*.txt"))
    ]
    codes = entry_codes(entries)
    rules = parse_rules((HISTORY / "rewrites.toml").read_text("utf-8"))
    rewrites = {r["flax"]: entry_rewrites(entries, rules_for(rules, r["flax"])) for r in releases}
    out = HISTORY / "flax.json"
    data = History.from_json(json.loads(out.read_text("utf-8"))) if out.exists() else History()
    plan = [Pin(*(r[name] for name in HISTORY_PINNED)) for r in releases]
    todo = data.pending(plan, codes, rewrites)
    session.log(
        f"{len(releases)} releases x {len(codes)} entries: "
        f"{sum(map(len, todo.values()))} to run, on {len(todo)} releases"
    )
    started = time.monotonic()
    runs = Path(session.bin).parent / "runs"
    runs.mkdir(exist_ok=True)
    # Newest first: the releases readers care most about are recorded first, and the
    # slowest (where every example gets far) set the pace the time left is told by.
    chosen = [r for r in reversed(releases) if r["flax"] in todo]
    for number, release in enumerate(chosen, 1):
        names = todo[release["flax"]]
        python = _release_venv(session, release)
        partial = runs / f"flax-{release['flax']}.json"
        partial.unlink(missing_ok=True)
        later = {r["flax"]: todo[r["flax"]] for r in chosen[number:]}
        seconds = data.seconds_left(later)
        estimate = (
            f"--later-seconds={seconds:.0f}"
            if seconds is not None  # else at this release's own pace
            else f"--entries-after={sum(map(len, later.values()))}"
        )
        label = f"release {number} of {len(chosen)} (flax {release['flax']}, jax {release['jax']})"
        only = ["--only", *names] if len(names) < len(codes) else []
        try:
            session.run(
                str(python),
                "flax_errors_ext/history/run_release.py",
                f"--catalogue={HISTORY_CATALOGUE}",
                f"--out={partial}",
                f"--label={label}",
                estimate,
                *only,
                external=True,
                interrupt_timeout=10.0,
            )
        finally:  # Ctrl-C or a failed run: keep the entries it finished
            if partial.exists():
                data = data.merged(ReleaseRun.from_json(json.loads(partial.read_text("utf-8"))))
                _write_history(out, data, codes)
    session.log(f"{len(chosen)} releases run in {time.monotonic() - started:.0f} s; see {out}")


def _release_venv(session: nox.Session, release: dict[str, Any]) -> Path:
    """The release's venv (made or reused) with its flax, jax and jaxlib; its python."""
    venv = Path(session.bin).parent / "releases" / f"flax-{release['flax']}"
    python = venv / "bin" / "python"
    marker = venv / "flax-errors-release.json"
    if marker.exists() and json.loads(marker.read_text("utf-8")) == release:
        return python
    session.run("uv", "venv", "--quiet", "--clear", "--python", PYTHON, str(venv), external=True)
    session.run(
        "uv",
        "pip",
        "install",
        "--quiet",
        f"--python={python}",
        f"--exclude-newer={release['as_of']}T00:00:00Z",
        # The pinned versions are what the release is; the date is for the rest.
        *(f"--exclude-newer-package={name}=2100-01-01T00:00:00Z" for name in HISTORY_PINNED),
        *(f"{name}=={release[name]}" for name in HISTORY_PINNED),
        external=True,
    )
    marker.write_text(json.dumps(release), "utf-8")
    return python


def _write_history(path: Path, data: History, codes: dict[str, tuple[str, ...]]) -> None:
    """Write flax.json atomically: the data and its summaries."""
    from flax_errors_ext.model.timeline import document

    temporary = path.with_name(path.name + ".tmp")
    text = json.dumps(document(data, codes), indent=1, ensure_ascii=False) + "\n"
    temporary.write_text(text, "utf-8")
    temporary.replace(path)


DEVICE_RUN = Path("flax_errors_ext/history/cpu-8-devices.json")
"""The catalogue run on eight CPU devices, which the site sets beside its own."""


@nox.session(python=PYTHON)
def devices(session: nox.Session) -> None:
    """Run the catalogue on eight forced CPU devices into cpu-8-devices.json.

    ``flax-errors check --json`` with ``XLA_FLAGS=--xla_force_host_platform_device_count=8``
    and a cache of its own; the site lists the file in ``flax_errors_device_runs``. A
    run on a GPU machine is the same command there, without the flag.
    """
    session.install("-e", ".[test]")
    # Not session.create_tmp(): it sets TMPDIR, and the examples' temporary files
    # would be named inside .nox/ in the document.
    cache = Path(session.bin).parent / "devices-cache"
    flags = " ".join(
        [os.environ.get("XLA_FLAGS", ""), "--xla_force_host_platform_device_count=8"]
    ).strip()
    temporary = DEVICE_RUN.with_name(DEVICE_RUN.name + ".tmp")
    with temporary.open("w", encoding="utf-8") as out:
        # 1 where an example fails: the document records that too.
        session.run(
            "flax-errors",
            "check",
            "--json",
            "--no-cache",
            "--cache-dir",
            str(cache),
            env={"XLA_FLAGS": flags},
            stdout=out,
            stderr=None,
            success_codes=[0, 1],
        )
    text = temporary.read_text("utf-8")
    if str(Path.cwd()) in text:
        session.error(f"{temporary} names this checkout's folder; not written")
    temporary.replace(DEVICE_RUN)
    session.log(f"wrote {DEVICE_RUN}")
