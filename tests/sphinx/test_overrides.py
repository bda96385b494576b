"""``sphinx-build -D flax_errors_<name>=<text>``: each setting read from its text."""

from __future__ import annotations

import shutil
import tempfile
from typing import TYPE_CHECKING

import pytest
from sphinx.cmd.build import build_main

from flax_errors_ext.sphinx.context import build_context

if TYPE_CHECKING:
    from pathlib import Path

    from sphinx.testing.util import SphinxTestApp

AS_TEXT = {
    # What -D gives: text, whatever the setting's type, and a dict a key at a time.
    "flax_errors_modules": "passing_errors",
    "flax_errors_timeout": "60",
    "flax_errors_jobs": "1",
    "flax_errors_strict": "1",
    "flax_errors_compilation_cache": "false",
    "flax_errors_history": "",
    "flax_errors_source_links.jax": "None",
    "flax_errors_execution_mode": "off",
}


@pytest.mark.sphinx("html", testroot="passing", confoverrides=AS_TEXT)
def test_settings_given_as_text_reach_the_build(app: SphinxTestApp) -> None:
    app.build()

    assert app.statuscode == 0, app.warning.getvalue()
    config = build_context(app.env).config
    assert [spec.name for spec in config.modules] == ["passing_errors"]
    assert (config.timeout, config.jobs, config.strict) == (60, 1, True)
    assert (config.compilation_cache, config.history) == (False, ())
    assert config.source_links == {"jax": None}


def test_text_that_does_not_read_is_a_configuration_error(
    rootdir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Where Sphinx 9 saves its report, rather than the machine's temporary folder.
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    srcdir = tmp_path / "passing"
    shutil.copytree(rootdir / "test-passing", srcdir)
    argv = ["-N", "-q", "-b", "html", "-D", "flax_errors_timeout=sixty"]

    status = build_main([*argv, str(srcdir), str(tmp_path / "out")])

    errors = capsys.readouterr().err
    assert status != 0
    # Sphinx 6.2.1 prints "Configuration error:" and the message; Sphinx 9
    # "Configuration error!" and its report around the message.
    assert "Configuration error" in errors
    assert "flax_errors_timeout must be a positive whole number of seconds; got 'sixty'" in errors
