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
    from flax_errors_ext.model.history.releases import History

nox.options.default_venv_backend = "uv|virtualenv"
nox.options.reuse_venv = "yes"
nox.options.sessions = ["lint", "tests", "doctest", "docs", "linkcheck"]

PYTHON = "3.11"
"""The oldest Python the project supports: lint, benchmarks and Flax's suite run here."""
STACKS = ("3.11", "3.12", "3.13")
"""The Pythons tests, doctest and docs run on, each with its locked stack. Today's
flax and jax need 3.12 or later; on 3.11 the stack stops at flax 0.12.8 and jax
0.10.2. A Python that is not on this machine is skipped with a notice; CI runs
3.11 and 3.13 (.ci/run)."""
NEWEST = "3.13"
"""The stack the published site is built on (.readthedocs.yaml); the other stacks'
runs are merged into it (conf.py, ``flax_errors_device_runs``)."""
LOCK_FILES = {
    "3.11": "constraints/python3.11.txt",
    "3.12": "constraints/python3.12-and-later.txt",
    "3.13": "constraints/python3.12-and-later.txt",
}
"""The committed constraints of each stack (``nox -s lock`` writes them): 3.11 alone,
and one resolution for every Python from 3.12 on."""
nox.options.error_on_missing_interpreters = False
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


def lock_file(python: str) -> Path:
    """The constraints file of the stack on ``python``."""
    return Path(LOCK_FILES[python])


def install_locked(session: nox.Session, *args: str) -> None:
    """Install into the session's venv within its stack's locked versions."""
    session.install("-c", str(lock_file(str(session.python))), *args)


@nox.session(python=STACKS)
def tests(session: nox.Session) -> None:
    """The test suite: runtime hook, core, and Sphinx test roots."""
    install_locked(session, "-e", ".[test]")
    session.run("pytest", *session.posargs)


@nox.session(python=PYTHON, venv_backend="uv")
def tests_lowest(session: nox.Session) -> None:
    """The Sphinx test roots and the tests that start no kernel, on the lowest versions.

    Every direct dependency at pyproject.toml's lower bound (uv's ``lowest-direct``):
    Sphinx 6.2.1, the release Flax's documentation pins, and what goes with it
    (flax_errors_ext/sphinx/compat.py holds what differs). ``nox -s tests`` runs the
    newest; other arguments go to pytest.
    """
    session.install("--resolution=lowest-direct", "-e", ".[test]")
    # tests/old_sphinx_testing.py (a conftest plugin) gives the old Sphinx the test
    # fixtures of Sphinx 8.2 and later, which the tests are written for.
    session.run("pytest", "-m", "sphinx or not kernels", *session.posargs)


@nox.session(python=STACKS)
def doctest(session: nox.Session) -> None:
    """Contributor doctests: every catalogue docstring and example file, by plain doctest."""
    install_locked(session, "-e", ".[test]")
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
    install_locked(session, "-e", ".[lint]")
    session.run("ruff", "check", "--no-cache", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("mypy")
    session.run("lint-imports")


@nox.session(python=STACKS)
def docs(session: nox.Session) -> None:
    """Build the catalogue site with every example executed; fails on drift or any warning.

    Each stack builds into a folder of its own (the newest into ``docs/_build``),
    so that its execution cache and pages never stand for another stack's.
    """
    install_locked(session, "-e", ".[docs]")
    session.run("sphinx-build", *site_build(str(session.python)), *session.posargs)


def site_build(python: str) -> tuple[str, ...]:
    """SITE_BUILD with the stack's own build folder: docs/_build, or docs/_build-<python>."""
    if python == NEWEST:
        return SITE_BUILD
    folder = f"docs/_build-{python}"
    return tuple(arg.replace("docs/_build", folder, 1) for arg in SITE_BUILD)


@nox.session(python=NEWEST)
def linkcheck(session: nox.Session) -> None:
    """Offline: every local link and anchor of the built site resolves; external ones listed.

    Builds the site first (incrementally: after ``nox -s docs`` nothing is run again).
    """
    install_locked(session, "-e", ".[docs]")
    session.run("sphinx-build", *SITE_BUILD)
    session.run("python", "-m", "tests.site_links", "docs/_build/html")


@nox.session(python=PYTHON)
def bench(session: nox.Session) -> None:
    """Benchmarks: ratios measured side by side in one run."""
    install_locked(session, "-e", ".[test]")
    session.run("python", "benchmarks/bench_build.py", *session.posargs)


# --- nox -s lock: the stacks' constraints, and the verdicts they give. ---

STACK_RUNS = Path("flax_errors_ext/history")
"""Where each stack's run of the catalogue is kept (``python-<version>.json``); the
site lists them in ``flax_errors_device_runs``, beside its own."""
SETTLED = ("passed", "unreachable")
"""The statuses every entry must have on every stack."""


@nox.session(python=PYTHON, venv_backend="uv")
def lock(session: nox.Session) -> None:
    """Resolve each stack afresh, run the catalogue on it, and keep it if nothing changed.

    Writes constraints/*.txt (``uv pip compile``: 3.11 alone, and one resolution
    for every Python from 3.12 on) into a scratch folder, installs each stack that
    CI runs (3.11 and the newest) from it, and runs ``flax-errors check --json``
    there. It fails, naming them, where an entry is neither passed nor unreachable,
    or where its status is not the one the stack's last run recorded; the committed
    files are then left as they were. ``-- --accept`` keeps a changed status (an
    error that became unreachable), never a failure. Needs both Pythons on PATH.
    """
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from flax_errors_ext.model.runs.stacks import settle

    accept = "--accept" in session.posargs
    scratch = Path(session.create_tmp()).resolve() / "locks"
    scratch.mkdir(parents=True, exist_ok=True)
    extra = scratch / "flax-suite.in"
    extra.write_text("\n".join(FLAX_SUITE_DEPS) + "\n", "utf-8")
    for python, universal in (("3.11", False), (NEWEST, True)):
        target = scratch / lock_file(python).name
        session.run(
            "uv",
            "pip",
            "compile",
            "--quiet",
            "--all-extras",
            "--python-version",
            "3.12" if universal else python,
            *(["--universal"] if universal else []),
            "--no-header",
            "--no-annotate",
            "-o",
            str(target),
            "pyproject.toml",
            str(extra),
            external=True,
        )
    problems: list[str] = []
    runs: dict[str, str] = {}
    for python in ("3.11", NEWEST):
        text = _stack_run(session, python, scratch / lock_file(python).name)
        recorded = STACK_RUNS / f"python-{python}.json"
        before = recorded.read_text("utf-8") if recorded.exists() else None
        problems += settle(f"Python {python}", text, before, SETTLED, accept=accept)
        runs[python] = text
    if problems:
        session.error(
            "the new stacks change verdicts (constraints and runs not written):\n  "
            + "\n  ".join(problems)
        )
    lock_file(NEWEST).parent.mkdir(exist_ok=True)
    for python in ("3.11", NEWEST):
        lock_file(python).write_text(
            (scratch / lock_file(python).name).read_text("utf-8"), "utf-8"
        )
        (STACK_RUNS / f"python-{python}.json").write_text(runs[python], "utf-8")
    session.log(f"wrote {lock_file(NEWEST).parent}/ and the stacks' runs in {STACK_RUNS}/")


def _stack_run(session: nox.Session, python: str, constraints: Path) -> str:
    """``flax-errors check --json`` on a venv of ``python`` installed within ``constraints``."""
    venv = Path(session.bin).parent / f"stack-{python}"
    bin_dir = venv / "bin"
    session.run("uv", "venv", "--quiet", "--clear", "--python", python, str(venv), external=True)
    session.run(
        "uv",
        "pip",
        "install",
        "--quiet",
        f"--python={bin_dir / 'python'}",
        "-c",
        str(constraints),
        "-e",
        ".[test]",
        external=True,
    )
    return catalogue_run(
        session, str(bin_dir / "flax-errors"), venv / "check-cache", venv / "errors.json"
    )


def catalogue_run(
    session: nox.Session,
    flax_errors: str,
    cache: Path,
    document: Path,
    env: dict[str, str] | None = None,
) -> str:
    """``flax-errors check --json`` into ``document``, with a cache of its own; its text.

    Exit status 1 (an example failed) is no error: the document records it. A
    document that names this checkout's folder is refused, since it is committed.
    Not under session.create_tmp(): that sets TMPDIR, and the examples' temporary
    names would then be inside .nox/ in the document.
    """
    with document.open("w", encoding="utf-8") as out:
        session.run(
            flax_errors,
            "check",
            "--json",
            "--no-cache",
            "--cache-dir",
            str(cache),
            env=env,
            external=True,
            stdout=out,
            stderr=None,
            success_codes=[0, 1],
        )
    text = document.read_text("utf-8")
    if str(Path.cwd()) in text:
        session.error(f"{document} names this checkout's folder; not kept")
    return text


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
    install_locked(session, "-e", ".[test]", *FLAX_SUITE_DEPS)
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


FLAX_SUITE_PARTS = ("pyproject.toml", "tests/")
"""What nox -s flax_suite takes of Flax's sdist: its tests and pytest configuration."""


def _flax_source(
    session: nox.Session, version: str, parts: tuple[str, ...] = FLAX_SUITE_PARTS
) -> Path:
    """Parts of Flax's sdist on PyPI (files, or folders ending in ``/``), fetched once.

    By default ``tests/`` and ``pyproject.toml``: the installed flax is the one under
    test, and no ``flax/`` directory in the tree can shadow it. Each other set of
    parts is extracted into a folder of its own, from the archive kept beside them.
    """
    if not re.fullmatch(r"[0-9A-Za-z.+!-]+", version):
        session.error(f"unexpected flax version {version!r}")
    cache = Path(session.cache_dir) / "flax-sdist"
    name = f"flax-{version}"
    if parts != FLAX_SUITE_PARTS:
        name += "-" + "-".join(part.strip("/") for part in parts)
    source = cache / name
    if (source / parts[0]).exists():
        return source
    cache.mkdir(parents=True, exist_ok=True)
    archive = cache / f"flax-{version}.tar.gz"
    with tempfile.TemporaryDirectory(dir=cache) as tmp:
        if not archive.is_file():
            session.install("pip")  # uv's environments have no pip, and uv cannot just download
            session.run(
                "python",
                "-m",
                "pip",
                "download",
                "--quiet",
                "--no-deps",
                # Flax's sdist (it ships tests/ and docs/, its wheel does not); the build
                # tools pip needs to read the sdist's metadata may come as wheels.
                "--no-binary=flax",
                "--dest",
                tmp,
                f"flax=={version}",
            )
            (downloaded,) = Path(tmp).glob("flax-*.tar.gz")
            downloaded.rename(archive)
        top = f"flax-{version}/"
        with tarfile.open(archive) as tar:
            wanted = [
                member
                for member in tar.getmembers()
                if any(
                    member.name.startswith(top + part)
                    if part.endswith("/")
                    else member.name == top + part
                    for part in parts
                )
            ]
            tar.extractall(tmp, members=wanted, filter="data")
        # Renamed into place whole, so that an interrupted fetch is never taken as cached.
        Path(tmp, top).rename(source)
    return source


# --- nox -s flax_docs: Flax's own documentation with the extension adopted. ---

FLAX_DOCS = Path("tests/flax_docs")
"""The maintainer's change (adopt.patch), the checks, and the docstrings-only build."""
FLAX_DOCS_PARTS = ("pyproject.toml", "docs/", "flax/")
"""What the session takes of Flax's sdist: its docs extra and pytest configuration, its
docs, and its flax/ for the export mode (on no other build's path)."""
FLAX_DOCS_KEPT = ("api_reference",)
"""The part of Flax's docs a CI builds: the API reference, flax.errors' page among it.
The rest (guides, notebooks) is left out with exclude_patterns."""
FLAX_DOCS_ROOT = "api_reference/index"
FLAX_DOCS_ERRORS_PAGE = "api_reference/flax.errors"
FLAX_DOCS_LOCKED = ("flax", "jax", "jaxlib")
"""Taken from the 3.11 stack's constraints: the releases the examples run on."""


@nox.session(python=PYTHON)
def flax_docs(session: nox.Session) -> None:
    """Flax's documentation with flax_errors_ext adopted, as Flax's maintainers would.

    One venv holds Flax's docs extra (from the installed flax's sdist: Sphinx 6.2.1)
    and this project. Flax's docs, trimmed to the API reference, are built as released
    and with tests/flax_docs/adopt.patch (the extension in conf.py, the catalogue on
    flax.errors' page instead of automodule); tests/flax_docs/check.py holds the
    patched build to adding no warning, every error an entry that passes at the anchor
    Flax's errors print, the same inventory but for flax.errors, and a passing
    ``-b doctest`` of the page. Then the export mode: Flax's tree with the patch
    ``flax-errors export`` writes is built from its docstrings alone and must give the
    same verdicts, and Flax's own docstring doctests (its CI's ``pytest
    --doctest-modules``) run on the patched flax/errors.py. ``-- --no-export`` stops
    before it.
    """
    import shutil

    started = time.perf_counter()
    source = _flax_docs_install(session)
    seconds = {"install": time.perf_counter() - started}
    work = Path(session.bin).parent / "flax-docs"
    shutil.rmtree(work, ignore_errors=True)
    trim = _flax_docs_trim(source / "docs")
    repo = Path.cwd()
    env = {"PYTHONPATH": str(repo)}

    def tree(name: str, *patches: Path, flax: bool = False) -> Path:
        """A copy of Flax's docs (and flax/) in work/<name>, the patches applied."""
        root = work / name
        shutil.copytree(source / "docs", root / "docs")
        if flax:
            shutil.copytree(source / "flax", root / "flax")
        for patch in patches:
            session.run(
                "patch", "-p1", "--batch", "--forward", "--quiet", "-d", str(root),
                "-i", str(patch.resolve()), external=True,
            )  # fmt: skip
        return root

    def build(root: Path, builder: str, *pages: str) -> None:
        started = time.perf_counter()
        session.run(
            "sphinx-build",
            "-b", builder, "-d", str(root / "_build/doctrees"),
            "-w", str(root / f"warnings-{builder}.txt"), "--keep-going", "-q",
            *trim, str(root / "docs"), str(root / "_build" / builder),
            *(str(root / "docs" / f"{page}.rst") for page in pages),
            env=env,
            # 1: a warning, a failed entry or doctest; check.py reads what was written.
            success_codes=[0, 1],
        )  # fmt: skip
        seconds[f"{root.name} {builder}"] = time.perf_counter() - started

    try:
        plain = tree("plain")
        patched = tree("patched", FLAX_DOCS / "adopt.patch")
        for root in (plain, patched):
            build(root, "html")
            # The html build's environment: only the page is tested, nothing read again.
            build(root, "doctest", FLAX_DOCS_ERRORS_PAGE)
        check = ("python", "-m", "tests.flax_docs.check")
        session.run(*check, "adopted", str(plain), str(patched), env=env)
        if "--no-export" not in session.posargs:
            exported = work / "export.patch"
            session.run("flax-errors", "export", "-o", str(exported))
            export = tree("export", FLAX_DOCS / "adopt.patch", exported, flax=True)
            # Flax's conf.py puts the tree's root, with the patched flax/, first on the
            # path; the kernels (and their server) find it there too. Its docstrings
            # now hold the examples, and the extension reads them, not its own files.
            env["PYTHONPATH"] = os.pathsep.join([str(export), str(repo)])
            build(export, "html")
            started = time.perf_counter()
            with session.chdir(export):
                # As Flax's CI tests its docstrings, with its pytest configuration.
                session.run(
                    "pytest", "-c", str(source / "pyproject.toml"), "--rootdir", ".",
                    "-p", "no:cacheprovider", "-q", "--doctest-modules",
                    "--junitxml=flax-doctest.xml", "flax/errors.py",
                    env=env, success_codes=[0, 1],
                )  # fmt: skip
            seconds["export pytest --doctest-modules"] = time.perf_counter() - started
            session.run(
                *check, "exported", str(patched), str(export),
                "--doctest-junit", str(export / "flax-doctest.xml"), env=env,
            )  # fmt: skip
    finally:
        # Also when a check fails: the times are part of its report.
        session.log(
            "seconds: " + ", ".join(f"{name} {value:.0f}" for name, value in seconds.items())
        )


def _flax_docs_install(session: nox.Session) -> Path:
    """Install Flax's docs extra and this project; Flax's sdist parts, fetched once.

    Flax, jax and jaxlib at the 3.11 stack's versions; the rest as Flax's docs extra
    says, and this project within it: the Sphinx Flax pins must stay.
    """
    locked = lock_file(PYTHON).read_text("utf-8").split()
    pins = dict(line.split("==", 1) for line in locked if "==" in line)
    source = _flax_source(session, pins["flax"], FLAX_DOCS_PARTS).resolve()
    flax_project = tomllib.loads((source / "pyproject.toml").read_text("utf-8"))["project"]
    requirements = flax_project["optional-dependencies"]["docs"]
    sphinx = next(r for r in requirements if r.startswith("sphinx=="))
    session.install(*requirements, *(f"{name}=={pins[name]}" for name in FLAX_DOCS_LOCKED))
    # This project as Flax would add it; pytest for Flax's docstring doctests.
    session.install("-e", ".[docs]", sphinx, "pytest==" + pins["pytest"])
    version = session.run("python", "-c", "import sphinx; print(sphinx.__version__)", silent=True)
    if f"sphinx=={str(version).strip()}" != sphinx:
        session.error(f"Sphinx {version!s} installed, Flax's docs pin {sphinx}")
    return source


def _flax_docs_trim(docs: Path) -> list[str]:
    """sphinx-build options that build Flax's API reference alone, reading no notebook.

    Every top-level part of Flax's docs but FLAX_DOCS_KEPT joins Flax's own
    exclude_patterns, and the API reference's index is the root page. Not
    ``nb_execution_mode=off``: the catalogue runs with myst-nb's execution mode
    (off would show every entry not run); with the guides left out no notebook is
    read, so none runs.
    """
    import ast

    (flax_patterns,) = (
        ast.literal_eval(node.value)
        for node in ast.parse((docs / "conf.py").read_text("utf-8")).body
        if isinstance(node, ast.Assign)
        and [getattr(target, "id", "") for target in node.targets] == ["exclude_patterns"]
    )
    left_out = sorted(
        path.name
        for path in docs.iterdir()
        if path.name not in FLAX_DOCS_KEPT and not path.name.startswith(("_", "."))
    )
    patterns = [*flax_patterns, *left_out]
    return ["-D", f"master_doc={FLAX_DOCS_ROOT}", "-D", "exclude_patterns=" + ",".join(patterns)]


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
    from flax_errors_ext.model.catalogue.parse import parse_docstring
    from flax_errors_ext.model.history.releases import History, Pin, ReleaseRun, entry_codes
    from flax_errors_ext.model.history.rewrites import entry_rewrites, parse_rules, rules_for

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
                "flax_errors_ext/execution/history/release_runner.py",
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
    interpreter = release.get("python", PYTHON)
    session.run(
        "uv", "venv", "--quiet", "--clear", "--python", interpreter, str(venv), external=True
    )
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
        # The runner reads the examples' ":holds for:" lines with it.
        "packaging",
        external=True,
    )
    marker.write_text(json.dumps(release), "utf-8")
    return python


def _write_history(path: Path, data: History, codes: dict[str, tuple[str, ...]]) -> None:
    """Write flax.json atomically: the data and its summaries."""
    from flax_errors_ext.model.history.timeline import document

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
    install_locked(session, "-e", ".[test]")
    # Not session.create_tmp(): it sets TMPDIR, and the examples' temporary files
    # would be named inside .nox/ in the document.
    cache = Path(session.bin).parent / "devices-cache"
    flags = " ".join(
        [os.environ.get("XLA_FLAGS", ""), "--xla_force_host_platform_device_count=8"]
    ).strip()
    temporary = DEVICE_RUN.with_name(DEVICE_RUN.name + ".tmp")
    catalogue_run(session, "flax-errors", cache, temporary, env={"XLA_FLAGS": flags})
    temporary.replace(DEVICE_RUN)
    session.log(f"wrote {DEVICE_RUN}")
