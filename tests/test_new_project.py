"""A project laid out as the README tells a new user, built as the README says.

``tests/projects/new-user`` is a library whose errors subclass ``Exception`` and
word a message in a helper module, with its own ``docs/conf.py`` (another theme,
myst-nb's default execution mode, no ``exclude_patterns``), autodoc of the same
module beside the catalogue, built with ``-W -j 2``. Nothing in it reaches into
this package beyond ``extensions`` and the documented settings.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from flax_errors_ext.cli import ExitCode

pytestmark = pytest.mark.examples

PROJECT = Path(__file__).parent / "projects" / "new-user"
BASE = "https://mylib.example.org/errors"


def _sphinx(root: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-j", "2", "-b", "html"]
    return subprocess.run(
        [*command, "docs", "docs/_build/html"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def _cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(Path(sys.executable).parent / "flax-errors"), *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("new-user") / "project"
    shutil.copytree(PROJECT, root)
    return root


def test_a_new_project_builds_with_warnings_as_errors(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built = _sphinx(project)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-5000:]
    html = project / "docs" / "_build" / "html"
    document = json.loads((html / "errors.json").read_text())
    statuses = {e["qualname"]: e["status"] for e in document["entries"]}
    assert statuses == {
        "mylib.errors.ShapeMismatchError": "passed",
        "mylib.errors.UnknownActivationError": "passed",
    }
    page = (html / "api_reference" / "mylib.errors.html").read_text()
    assert "Not catalogued here" in page
    assert "MylibError" in page
    # The URL the error prints, on the configured site, lands on its entry.
    monkeypatch.syspath_prepend(str(project))
    from mylib.errors import ShapeMismatchError  # type: ignore[import-not-found]

    printed = re.search(r"https://\S+", str(ShapeMismatchError((1,), (2,))))
    assert printed is not None
    path, _, fragment = printed.group().removeprefix(BASE + "/").partition("#")
    assert f'id="{fragment}"' in (html / path).read_text()
    # Nothing the build wrote was read back as a page.
    assert not list(html.glob("_build/**/*.html"))


def test_the_command_line_reads_the_project_conf(project: Path) -> None:
    listed = _cli(project, "list")
    assert listed.returncode == ExitCode.OK, listed.stderr
    assert (
        f"{BASE}/api_reference/mylib.errors/ShapeMismatchError.html#mylib.errors.ShapeMismatchError"
        in listed.stdout
    )


def test_a_reworded_helper_message_fails_the_warm_build_and_check(project: Path) -> None:
    messages = project / "mylib" / "messages.py"
    messages.write_text(messages.read_text().replace("does not broadcast", "never broadcasts"))
    built = _sphinx(project)
    assert built.returncode != 0
    assert "[flax-errors.drifted]" in built.stderr
    assert "mylib/errors.py:" in built.stderr
    checked = _cli(project, "check")
    assert checked.returncode == ExitCode.FAILED, checked.stdout + checked.stderr
    assert "never broadcasts" in checked.stdout
