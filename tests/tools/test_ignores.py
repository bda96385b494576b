from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tools.ignores import PACKAGE, ignored_attributes, main

if TYPE_CHECKING:
    from pathlib import Path


def test_the_package_sets_no_attribute_behind_an_ignore() -> None:
    assert ignored_attributes(PACKAGE) == []
    assert main([]) == 0


def test_an_attribute_behind_an_ignore_is_found_with_its_place(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\napp.thing = 2  # type: ignore[attr-defined]\n")
    (tmp_path / "b.py").write_text("y = env.z  # type: ignore[union-attr, attr-defined]\n")
    assert ignored_attributes(tmp_path) == [
        f"{tmp_path / 'a.py'}:2: app.thing = 2  # type: ignore[attr-defined]",
        f"{tmp_path / 'b.py'}:1: y = env.z  # type: ignore[union-attr, attr-defined]",
    ]
    assert main([str(tmp_path)]) == 1


def test_a_folder_without_python_files_is_an_error_not_a_pass(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no Python files"):
        ignored_attributes(tmp_path / "missing")
