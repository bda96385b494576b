"""Fail where the package sets or reads an attribute behind ``type: ignore[attr-defined]``.

The build keeps its state in typed records (``sphinx/context.py``), never on Sphinx's
objects behind an ignore. ``nox -s lint`` runs it: ``python -m tools.ignores [FOLDER]``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

PATTERN = re.compile(r"type:\s*ignore\[[^\]]*\battr-defined\b")
PACKAGE = Path(__file__).resolve().parents[1] / "flax_errors_ext"


def ignored_attributes(folder: Path) -> list[str]:
    """``file:line: text`` of each attribute set or read behind an ignore under ``folder``.

    Raises:
        FileNotFoundError: if ``folder`` holds no Python file, so that a wrong folder
            never passes as a clean one.
    """
    files = sorted(folder.rglob("*.py"))
    if not files:
        raise FileNotFoundError(f"no Python files under {folder}")
    return [
        f"{path}:{number}: {line.strip()}"
        for path in files
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1)
        if PATTERN.search(line)
    ]


def main(argv: list[str]) -> int:
    """Print each one found; exit 1 if any was."""
    found = ignored_attributes(Path(argv[0]) if argv else PACKAGE)
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
