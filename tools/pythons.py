"""Which Python a nox session builds on: the site's, or the one another project's matches.

Standard library only: ``noxfile.py`` imports it before any venv exists.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence


def flax_docs_python() -> str:
    """The Python of the NNX docs build: 3.12, as Flax's Read the Docs config has it.

    ``python3.12`` on ``PATH``, else the newest 3.12 pyenv holds; without either, the
    newest Python found (flax's own floor is 3.12), and the session says which it took.
    """
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    candidates = [
        shutil.which("python3.12"),
        *sorted(map(str, pyenv.glob("3.12.*/bin/python3.12")), key=version_key, reverse=True),
        shutil.which("python3.13"),
    ]
    # pyenv's shims are on PATH whether or not they can run the version they name.
    return next((c for c in candidates if c and runs(c)), "3.12")


def version_key(python: str) -> tuple[int, ...]:
    """``(3, 12, 7)`` of ``.../versions/3.12.7/bin/python3.12``: 3.12.10 sorts above 3.12.9."""
    release = Path(python).parents[1].name
    return tuple(int(part) for part in release.split(".") if part.isdigit())


def newest_found(versions: Sequence[str]) -> str | None:
    """The newest of ``versions`` whose ``python<version>`` on ``PATH`` runs; None: none.

    Run, not only found: nox skips a session whose Python it cannot start (a pyenv
    shim of a version not installed) as "not found", and exits 0 with nothing built.
    """
    for version in sorted(versions, key=_release, reverse=True):
        python = shutil.which(f"python{version}")
        if python and runs(python):
            return version
    return None


def none_runs(versions: Sequence[str]) -> str:
    """Why no Python of ``versions`` runs here, and which to install."""
    names = [f"python{version}" for version in versions]
    broken = [name for name in names if shutil.which(name)]
    why = (
        f"{', '.join(broken)} on PATH cannot start (as a pyenv shim of a version "
        "pyenv has not installed and selected)"
        if broken
        else "none is on PATH"
    )
    return (
        f"no Python of the stacks runs here: {why}. "
        f"Install Python {_either(versions)}, as {_either(names)} on PATH"
    )


def runs(python: str, timeout: float = 10.0) -> bool:
    """Whether ``python`` starts and runs code (a pyenv shim for a version it lacks does not).

    Within ``timeout`` seconds: a Python that hangs on start is no more use to nox.
    """
    try:
        done = subprocess.run(
            [python, "-c", "import sys"], capture_output=True, check=False, timeout=timeout
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def _release(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def _either(items: Sequence[str]) -> str:
    return f"{', '.join(items[:-1])} or {items[-1]}" if len(items) > 1 else items[0]
