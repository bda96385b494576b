"""The extension's footprint: what adopting it installs, and what a build imports."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
# Not the extension's to require: a library documenting its own errors would get them
# pinned (flax, jax), and most projects have no moved page (sphinx-reredirects).
NOT_REQUIRED = {"flax", "jax", "jaxlib", "sphinx-reredirects"}
_IMPORTED = (
    "sorted({m.split('.')[0] for m in sys.modules} & {'jax', 'flax', 'sphinx_reredirects'})"
)


def _names(requirements: list[str]) -> set[str]:
    return {Requirement(line).name.lower() for line in requirements}


def test_the_extension_requires_neither_flax_nor_jax_nor_reredirects() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    assert not _names(project["dependencies"]) & NOT_REQUIRED
    assert not _names(extras["docs"]) & NOT_REQUIRED
    # Each is an extra of its own, which this project's site installs.
    assert _names(extras["redirects"]) == {"sphinx-reredirects"}
    assert {"flax", "jax"} <= _names(extras["hook"])
    assert "flax-errors[docs,redirects,hook]" in extras["site"]


def test_importing_the_package_and_starting_a_build_imports_no_jax(tmp_path: Path) -> None:
    """A project whose errors are not JAX's: neither import nor setup loads JAX or Flax."""
    srcdir = tmp_path / "project"
    shutil.copytree(ROOT / "tests" / "roots" / "test-moved-pages", srcdir)
    script = f"""
import sys
import flax_errors_ext, flax_errors_ext.cli, flax_errors_ext.sphinx
print({_IMPORTED})
from sphinx.application import Sphinx
src = {str(srcdir)!r}
app = Sphinx(src, src, src + "/_build/html", src + "/_build/doctrees", "html",
             confoverrides={{"flax_errors_history": []}}, status=None)
print({_IMPORTED})
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-2:] == ["[]", "[]"], done.stdout
