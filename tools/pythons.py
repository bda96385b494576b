"""Which Python a nox session that must match another project's builds on.

Standard library only: ``noxfile.py`` imports it before any venv exists.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path


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


def runs(python: str) -> bool:
    """Whether ``python`` starts (a pyenv shim for a version it lacks does not)."""
    try:
        return subprocess.run([python, "-V"], capture_output=True, check=False).returncode == 0
    except OSError:
        return False
