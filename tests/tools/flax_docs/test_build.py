"""The pure parts of ``nox -s flax_docs``'s build: pins, requirements, the trim, preparing.

No Sphinx build runs: the sdist is an archive already in the cache.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
import sphinx

from tests.tools.sdist_archive import archive
from tools.flax_docs import build

CONSTRAINTS = (
    "flax==0.12.8\njax==0.10.2\njaxlib==0.10.2\npytest==8.4.1\nplaywright==1.65.2\n"
    "sphinx-book-theme==1.1\n"
)
PYPROJECT = """\
[project]
name = "flax"
[project.optional-dependencies]
docs = ["sphinx==6.2.1", "myst-nb", "ipykernel ; python_version < '4'", "flax_Errors>=0.1"]
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
        "playwright": "1.65.2",
        "sphinx-book-theme": "1.1",
    }


def test_flax_docs_extra_with_the_locked_releases_then_the_pins_ours_keeps() -> None:
    flax_docs, ours = build.docs_requirements(PYPROJECT, build.locked_pins(CONSTRAINTS))
    assert flax_docs == [
        "sphinx==6.2.1",
        "myst-nb",
        "ipykernel ; python_version < '4'",
        "flax_Errors>=0.1",
        "flax==0.12.8",
        "jax==0.10.2",
        "jaxlib==0.10.2",
    ]
    assert ours == ["sphinx==6.2.1", "pytest==8.4.1", "playwright==1.65.2"]


def test_the_newest_releases_are_left_unpinned() -> None:
    pins = build.locked_pins(CONSTRAINTS)
    flax_docs, _ = build.docs_requirements(PYPROJECT, pins, newest=["jax", "jaxlib"])
    assert flax_docs[-3:] == ["flax==0.12.8", "jax", "jaxlib"]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ('["sphinx==6.2.1", "myst-nb"]', "does not name flax-errors"),
        ('["flax-errors", "sphinx>=6"]', "pins no Sphinx"),
    ],
)
def test_a_docs_extra_the_adoption_cannot_build_with_is_named(extra: str, message: str) -> None:
    pyproject = f"[project.optional-dependencies]\ndocs = {extra}\n"
    with pytest.raises(ValueError, match=message):
        build.docs_requirements(pyproject, build.locked_pins(CONSTRAINTS))


def test_the_trim_keeps_the_api_reference_and_flax_own_patterns(tmp_path: Path) -> None:
    conf = tmp_path / "conf.py"
    conf.write_text(CONF, "utf-8")
    names = [
        "index.rst",
        "guides",
        "api_reference",
        "_static",
        ".git",
        "conf.py",
        "nnx_basics.ipynb",
    ]
    assert build.trim_options(conf, names) == [
        "-D",
        "master_doc=api_reference/index",
        "-D",
        "exclude_patterns=_build,**.ipynb_checkpoints,conf.py,guides,index.rst,nnx_basics.ipynb",
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param("master_doc = 'index'\n", " assigns no exclude_patterns", id="none"),
        pytest.param(
            "if True:\n    exclude_patterns = ['_build']\n",
            " assigns no exclude_patterns at its top level",
            id="not-at-the-top-level",
        ),
        pytest.param(
            "exclude_patterns = []\nexclude_patterns = ['_build']\n",
            " assigns exclude_patterns 2 times",
            id="twice",
        ),
        pytest.param(
            "import os\nexclude_patterns = [os.sep]\n",
            ":2 assigns exclude_patterns something other than a literal list",
            id="computed",
        ),
        pytest.param(
            "exclude_patterns = '_build'\n",
            ":1 assigns exclude_patterns something other than a literal list",
            id="a-string",
        ),
    ],
)
def test_a_conf_py_whose_exclude_patterns_cannot_be_read_is_named(
    tmp_path: Path, text: str, message: str
) -> None:
    conf = tmp_path / "conf.py"
    conf.write_text(text, "utf-8")
    with pytest.raises(ValueError, match=re.escape(f"{conf}{message}")):
        build.trim_options(conf, ["guides"])


def _series(tmp_path: Path, files: dict[str, str]) -> Path:
    """A one-patch series, written by git format-patch, that adds flax-errors to the extra."""
    repo = tmp_path / "repo"
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@localhost"]
    repo.mkdir()
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text, "utf-8")
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "released"], check=True)
    pyproject = PYPROJECT.replace(', "flax_Errors>=0.1"]', ', "flax-errors"]')
    (repo / "pyproject.toml").write_text(pyproject, "utf-8")
    subprocess.run([*git, "commit", "-qam", "Add flax-errors to the docs extra"], check=True)
    folder = tmp_path / "series"
    subprocess.run([*git, "format-patch", "-q", "-o", str(folder), "HEAD~1"], check=True)
    return folder


def test_prepare_applies_the_series_and_writes_what_the_session_installs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache, work = tmp_path / "cache", tmp_path / "work"
    released = PYPROJECT.replace(', "flax_Errors>=0.1"]', "]")
    files = {
        "pyproject.toml": released,
        "docs/conf.py": CONF,
        "docs_nnx/conf.py": CONF,
    }
    monkeypatch.setattr(build, "SERIES", _series(tmp_path, files))
    archive(
        cache,
        {f"flax-0.12.8/{name}": text for name, text in files.items()}
        | {
            "flax-0.12.8/flax/errors.py": "",
            "flax-0.12.8/tests/a_test.py": "",
        },
    )
    constraints = tmp_path / "constraints.txt"
    constraints.write_text(CONSTRAINTS, "utf-8")
    prepare = ["prepare", "--cache", str(cache), "--constraints", str(constraints)]
    nnx = ["--tree", "docs_nnx", "--newest", "jax", "jaxlib"]
    assert build.main(["--work", str(work), *prepare, *nnx]) == 0
    requirements = work / "requirements"
    assert (requirements / "ours.txt").read_text("utf-8").splitlines() == [
        "sphinx==6.2.1",
        "pytest==8.4.1",
        "playwright==1.65.2",
    ]
    # The released extra, then what the series added, then the releases.
    assert (requirements / "flax-docs.txt").read_text("utf-8").splitlines()[-5:] == [
        "ipykernel ; python_version < '4'",
        "flax-errors",
        "flax==0.12.8",
        "jax",
        "jaxlib",
    ]
    prepared = json.loads((work / "prepared.json").read_text("utf-8"))
    source = cache / "flax-0.12.8-pyproject.toml-docs-docs_nnx-flax"
    assert prepared["source"] == str(source)
    assert prepared["tree"] == "docs_nnx"
    assert [Path(p).name for p in prepared["patches"]] == [
        "0001-Add-flax-errors-to-the-docs-extra.patch"
    ]
    assert not (source / "tests").exists()


def test_a_patch_that_does_not_apply_is_named(tmp_path: Path) -> None:
    files = {"pyproject.toml": "[project]\n", "docs/conf.py": CONF, "docs_nnx/conf.py": CONF}
    folder = _series(tmp_path, {**files, "pyproject.toml": PYPROJECT})
    source = tmp_path / "source"
    for name, text in files.items():
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_text(text, "utf-8")
    patches = sorted(folder.glob("*.patch"))
    with pytest.raises(
        ValueError, match=r"0001-Add-flax-errors-to-the-docs-extra\.patch does not"
    ):
        build.checkout(source, tmp_path / "tree", patches=patches)


def test_run_refuses_another_sphinx_than_flax_pins(tmp_path: Path) -> None:
    prepared = {
        "source": str(tmp_path),
        "tree": "docs",
        "patches": [],
        "sphinx": "sphinx==0.0.1",
        "started": 0.0,
    }
    (tmp_path / "prepared.json").write_text(json.dumps(prepared), "utf-8")
    with pytest.raises(SystemExit, match=r"Flax's docs pin sphinx==0\.0\.1"):
        build.main(["--work", str(tmp_path), "run"])


def test_run_names_a_conf_py_it_cannot_trim(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "conf.py").write_text("master_doc = 'index'\n", "utf-8")
    prepared = {
        "source": str(tmp_path),
        "tree": "docs",
        "patches": [],
        "sphinx": f"sphinx=={sphinx.__version__}",
        "started": 0.0,
    }
    (tmp_path / "prepared.json").write_text(json.dumps(prepared), "utf-8")
    # An exit with the message, not a traceback: the session's log says what to fix.
    with pytest.raises(SystemExit, match=re.escape(f"{tmp_path / 'docs' / 'conf.py'} assigns no")):
        build.main(["--work", str(tmp_path), "run"])
