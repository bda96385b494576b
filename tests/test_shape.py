"""The shape a newcomer reads: short functions, a short noxfile and README."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
LONGEST_FUNCTION = 60
"""Lines from ``def`` to the function's last line, its decorators aside."""
CODE = ("flax_errors_ext", "tools", "benchmarks")


def long_functions(path: Path, limit: int = LONGEST_FUNCTION) -> list[str]:
    """``file:line name (N lines)`` of each function in ``path`` over ``limit`` lines."""
    tree = ast.parse(path.read_bytes())
    return [
        f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({length} lines)"
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and (length := (node.end_lineno or node.lineno) - node.lineno + 1) > limit
    ]


def test_no_function_of_the_code_is_over_sixty_lines() -> None:
    files = [p for folder in CODE for p in sorted((ROOT / folder).rglob("*.py"))]
    assert len(files) > 100  # the folders were found
    found = [line for path in [*files, ROOT / "noxfile.py"] for line in long_functions(path)]
    assert found == []


def test_a_long_function_is_found() -> None:
    path = ROOT / "tests" / "test_shape.py"
    assert long_functions(path, limit=3)  # this file's own are over three lines
    assert long_functions(path) == []


@pytest.mark.parametrize(("name", "limit"), [("noxfile.py", 300), ("README.md", 150)])
def test_the_files_a_newcomer_reads_first_are_short(name: str, limit: int) -> None:
    assert len((ROOT / name).read_text("utf-8").splitlines()) < limit


def test_the_readme_starts_with_the_two_set_up_commands() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    first_block = re.search(r"```console\n(.*?)```", readme, re.DOTALL)
    assert first_block is not None
    set_up = readme.index("\n## Set up")
    assert set_up == readme.index("\n## ")  # the first section
    assert set_up < first_block.start() < readme.index("\n## ", set_up + 1)
    commands = [line.split("#")[0].strip() for line in first_block[1].splitlines()]
    assert commands == ["pip install nox uv && nox -s docs", "nox -s tests"]
