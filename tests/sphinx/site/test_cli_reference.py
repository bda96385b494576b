"""The command line reference page, generated from the parser."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sphinx.testing.util import SphinxTestApp

from flax_errors_ext.cli import build_parser

if TYPE_CHECKING:
    import argparse
    from pathlib import Path


# The generated reference ------------------------------------------------------------


def test_cli_reference_is_generated_from_the_parser(tmp_path: Path) -> None:
    (tmp_path / "conf.py").write_text(
        'extensions = ["flax_errors_ext"]\nnb_execution_mode = "off"\n'
    )
    (tmp_path / "index.rst").write_text("Command line\n============\n\n.. flax-errors-cli::\n")
    app = SphinxTestApp("html", srcdir=tmp_path)
    try:
        app.build()
        page = (app.outdir / "index.html").read_text()
    finally:
        app.cleanup()

    assert app.statuscode == 0
    assert app.warning.getvalue() == ""
    parser = build_parser()
    commands: dict[str, argparse.ArgumentParser] = next(
        dict(a.choices) for a in parser._actions if isinstance(a.choices, dict)
    )
    assert set(commands) == {"list", "explain", "index", "check", "update", "export"}
    for name, command in commands.items():
        assert f'id="cli-{name}"' in page
        for action in command._actions:
            for option in action.option_strings:
                assert f'<span class="pre">{option}' in page, (name, option)
