"""The help under a traceback answers version skews from the shipped API indexes."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import TYPE_CHECKING

from flax_errors_ext.help import help_lines

if TYPE_CHECKING:
    from pathlib import Path


def test_a_name_the_installed_release_lacks_is_answered_with_the_releases_that_have_it() -> None:
    lines = help_lines(AttributeError("module 'jax.random' has no attribute 'KeyArray'"))

    assert lines[0] == "help: jax.random.KeyArray is in jax 0.4.1 to 0.4.23."
    assert any("removed it in 0.4.24" in line for line in lines)


def test_a_name_the_installed_release_has_says_nothing() -> None:
    # A class of the user's named like Flax's: the error came from this very release.
    assert help_lines(AttributeError("'Variable' object has no attribute 'value'")) == ()


def test_a_name_no_release_has_offers_the_closest() -> None:
    (line,) = help_lines(AttributeError("module 'flax.nnx' has no attribute 'Optimzer'"))

    assert line.startswith("help: No release of flax from 0.6.0 to ")
    assert "Did you mean flax.nnx.Optimizer" in line


def test_a_file_of_the_users_named_like_jax_is_named_under_its_traceback(tmp_path: Path) -> None:
    (tmp_path / "jax.py").write_text("import jax\n\nprint(jax.numpy)\n")
    code = "import flax_errors_ext.help\nflax_errors_ext.help.install()\nimport jax\n"

    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    hidden_by = tmp_path / "jax.py"
    assert f"help: {hidden_by} is not jax: a file of yours named like jax's package" in done.stderr
