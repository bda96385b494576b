"""The hosting configuration runs exactly the build ``nox -s docs`` runs."""

from __future__ import annotations

import ast
import shlex
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).parents[1]


NOXFILE = ast.parse((ROOT / "noxfile.py").read_text())


def _noxfile_constants() -> dict[str, Any]:
    tree = NOXFILE
    return {
        target.id: ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name) and target.id in ("NEWEST", "LOCK_FILES", "SITE_BUILD")
    }


def test_read_the_docs_builds_what_nox_docs_builds() -> None:
    hosting = yaml.safe_load((ROOT / ".readthedocs.yaml").read_text())
    nox = _noxfile_constants()
    assert hosting["version"] == 2
    # The published site is the newest stack's, within its locked versions.
    assert hosting["build"]["tools"]["python"] == nox["NEWEST"]
    install, build = (shlex.split(command) for command in hosting["build"]["commands"])
    # The docs session installs the same, and nothing else.
    assert install[:6] == [
        "python",
        "-m",
        "pip",
        "install",
        "-c",
        nox["LOCK_FILES"][nox["NEWEST"]],
    ]
    assert [install[6:]] == _docs_session_installs()
    # The same sphinx-build arguments, the output folder aside.
    assert build[:3] == ["python", "-m", "sphinx"]
    assert tuple(build[3:-1]) == nox["SITE_BUILD"][:-1]
    assert build[-1] == "$READTHEDOCS_OUTPUT/html"


def _docs_session_installs() -> list[list[str]]:
    (docs,) = (n for n in NOXFILE.body if isinstance(n, ast.FunctionDef) and n.name == "docs")
    # install_locked(session, *args): its arguments after the session.
    return [
        [ast.literal_eval(arg) for arg in call.args[1:]]
        for call in ast.walk(docs)
        if isinstance(call, ast.Call)
        and isinstance(call.func, ast.Name)
        and call.func.id == "install_locked"
    ]
