"""Developer and CI sessions. ``nox -s tests`` is what CI runs; see README.md."""

from __future__ import annotations

import os

import nox

nox.options.default_venv_backend = "uv|virtualenv"
nox.options.reuse_venv = "yes"
nox.options.sessions = ["lint", "tests", "doctest", "docs", "linkcheck"]

PYTHON = "3.11"
# uv does not compile bytecode on install (pip does), and where PYTHONDONTWRITEBYTECODE
# is set nothing writes it later either: every process, and every kernel, would then
# compile jax and flax from source on each import (README, Performance, has the cost).
os.environ.setdefault("UV_COMPILE_BYTECODE", "1")
SITE_BUILD = ("-b", "html", "-c", ".", "-W", "--keep-going", "docs", "docs/_build/html")


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
