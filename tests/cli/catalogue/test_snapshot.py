"""``explain`` reads the catalogue from snapshots, importing nothing it documents."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from typing import TYPE_CHECKING

from flax_errors_ext.cli import ExitCode
from flax_errors_ext.cli.selection import CACHE_ENV
from tests.cli.console import run

if TYPE_CHECKING:
    from pathlib import Path

    import pytest

# Runs explain as the command line does and reports which libraries it imported.
PROBE = textwrap.dedent(
    """
    import contextlib, io, json, sys
    from flax_errors_ext.cli import main
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["explain", sys.argv[1]])
    libraries = ("jax", "flax", "numpy", "optax", "flax_errors_ext.errors")
    print(json.dumps({
        "code": code,
        "out": out.getvalue(),
        "imported": [name for name in libraries if name in sys.modules],
    }))
    """
)


def _explain(query: str, snapshots: Path) -> dict[str, object]:
    result = subprocess.run(
        [sys.executable, "-c", PROBE, query],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, CACHE_ENV: str(snapshots), "JAX_PLATFORMS": "cpu"},
    )
    data: dict[str, object] = json.loads(result.stdout.splitlines()[-1])
    return data


def test_explain_imports_no_library_once_the_catalogue_was_read(tmp_path: Path) -> None:
    query = 'Could not find parameter named "w" in scope "/Head/Dense_1".'

    first = _explain(query, tmp_path)
    second = _explain(query, tmp_path)

    assert first["code"] == second["code"] == ExitCode.OK
    assert "jax" in first["imported"]  # type: ignore[operator]  # reading imports them
    assert second["imported"] == []
    assert second["out"] == first["out"]
    assert str(second["out"]).startswith("ScopeParamNotFoundError")


ERRORS = '''\
"""Errors of a small project."""


class WidgetError(Exception):
    """A widget broke.

    Bad example:

        >>> raise WidgetError("the {part} broke")
        Traceback (most recent call last):
            ...
        snap_errors.WidgetError: the {part} broke
    """
'''


def test_an_edited_docstring_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    errors = tmp_path / "snap_errors.py"
    errors.write_text(ERRORS.format(part="spring"))
    (tmp_path / "conf.py").write_text('flax_errors_modules = ["snap_errors"]\n')
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))

    code, out, _ = run(capsys, "explain", "WidgetError")
    assert code == ExitCode.OK
    assert "the spring broke" in out

    errors.write_text(ERRORS.format(part="lever"))
    stamp = errors.stat().st_mtime_ns + 1_000_000_000
    os.utime(errors, ns=(stamp, stamp))  # a second later, whatever the clock's grain

    code, out, _ = run(capsys, "explain", "WidgetError")
    assert code == ExitCode.OK
    assert "the lever broke" in out
    assert "the spring broke" not in out


def test_a_broken_snapshot_is_read_anew(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    snapshot_folder = tmp_path / "snapshots"
    monkeypatch.setenv(CACHE_ENV, str(snapshot_folder))
    (tmp_path / "snap_errors.py").write_text(ERRORS.format(part="spring"))
    (tmp_path / "conf.py").write_text('flax_errors_modules = ["snap_errors"]\n')
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert run(capsys, "explain", "WidgetError")[0] == ExitCode.OK
    (snapshot,) = snapshot_folder.glob("snap_errors-*.pickle")
    # Truncated, then naming a class that no longer exists where it was.
    for broken in (snapshot.read_bytes()[:40], b"\x80\x04\x95cno_such_module\nThing\n."):
        snapshot.write_bytes(broken)
        code, out, _ = run(capsys, "explain", "WidgetError")
        assert code == ExitCode.OK
        assert "the spring broke" in out
