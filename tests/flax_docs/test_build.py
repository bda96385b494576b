"""The pure parts of ``nox -s flax_docs``'s build: pins, requirements, the trim, preparing.

No Sphinx build runs: the sdist is an archive already in the cache.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from tests.flax_docs import build
from tests.test_flax_sdist import archive

if TYPE_CHECKING:
    from pathlib import Path

CONSTRAINTS = "flax==0.12.8\njax==0.10.2\njaxlib==0.10.2\npytest==8.4.1\nsphinx-book-theme==1.1\n"
PYPROJECT = """\
[project]
name = "flax"
[project.optional-dependencies]
docs = ["sphinx==6.2.1", "myst-nb", "ipykernel ; python_version < '4'"]
"""
CONF = """\
import os
exclude_patterns = ['_build', '**.ipynb_checkpoints']
master_doc = 'index'
"""


def test_pins_are_the_constraints_exact_versions() -> None:
    pins = build.locked_pins(CONSTRAINTS + "# a comment\nnumpy>=2\n")
    assert pins == {
        "flax": "0.12.8",
        "jax": "0.10.2",
        "jaxlib": "0.10.2",
        "pytest": "8.4.1",
        "sphinx-book-theme": "1.1",
    }


def test_flax_docs_extra_with_the_locked_releases_then_the_pins_ours_keeps() -> None:
    flax_docs, ours = build.docs_requirements(PYPROJECT, build.locked_pins(CONSTRAINTS))
    assert flax_docs == [
        "sphinx==6.2.1",
        "myst-nb",
        "ipykernel ; python_version < '4'",
        "flax==0.12.8",
        "jax==0.10.2",
        "jaxlib==0.10.2",
    ]
    assert ours == ["sphinx==6.2.1", "pytest==8.4.1"]


def test_the_trim_keeps_the_api_reference_and_flax_own_patterns() -> None:
    names = [
        "index.rst",
        "guides",
        "api_reference",
        "_static",
        ".git",
        "conf.py",
        "nnx_basics.ipynb",
    ]
    assert build.trim_options(CONF, names) == [
        "-D",
        "master_doc=api_reference/index",
        "-D",
        "exclude_patterns=_build,**.ipynb_checkpoints,conf.py,guides,index.rst,nnx_basics.ipynb",
    ]


def test_a_conf_py_without_exclude_patterns_is_an_error() -> None:
    with pytest.raises(ValueError, match="not enough values"):
        build.trim_options("master_doc = 'index'\n", ["guides"])


def test_prepare_writes_what_the_session_installs(tmp_path: Path) -> None:
    cache, work = tmp_path / "cache", tmp_path / "work"
    files = {
        "flax-0.12.8/pyproject.toml": PYPROJECT,
        "flax-0.12.8/docs/conf.py": CONF,
        "flax-0.12.8/flax/errors.py": "",
        "flax-0.12.8/tests/a_test.py": "",
    }
    archive(cache, files)
    constraints = tmp_path / "constraints.txt"
    constraints.write_text(CONSTRAINTS, "utf-8")
    prepare = ["prepare", "--cache", str(cache), "--constraints", str(constraints)]
    assert build.main(["--work", str(work), *prepare]) == 0
    requirements = work / "requirements"
    assert (requirements / "ours.txt").read_text("utf-8") == "sphinx==6.2.1\npytest==8.4.1\n"
    assert (requirements / "flax-docs.txt").read_text("utf-8").splitlines()[-1] == "jaxlib==0.10.2"
    prepared = json.loads((work / "prepared.json").read_text("utf-8"))
    source = cache / "flax-0.12.8-pyproject.toml-docs-flax"
    assert prepared["source"] == str(source)
    assert prepared["sphinx"] == "sphinx==6.2.1"
    assert not (source / "tests").exists()


def test_run_refuses_another_sphinx_than_flax_pins(tmp_path: Path) -> None:
    prepared = {"source": str(tmp_path), "sphinx": "sphinx==0.0.1", "started": 0.0}
    (tmp_path / "prepared.json").write_text(json.dumps(prepared), "utf-8")
    with pytest.raises(SystemExit, match=r"Flax's docs pin sphinx==0\.0\.1"):
        build.main(["--work", str(tmp_path), "run"])
