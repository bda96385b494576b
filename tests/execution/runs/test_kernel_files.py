"""A kernel's loaded files: those the fork server noted are stated as they were then."""

from __future__ import annotations

import base64
import importlib
import json
import os
import sys
import zlib
from typing import TYPE_CHECKING

import pytest

from flax_errors_ext.execution.runs import kernel_files

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path


def _unpacked(packed: str) -> dict[str, tuple[int, int]]:
    files = json.loads(zlib.decompress(base64.b64decode(packed)))
    return {path: (size, mtime) for path, size, mtime in files}


@pytest.fixture
def module_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A module of its own, imported from ``tmp_path``; forgotten after the test."""
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(kernel_files, "_known_files", {})
    path = tmp_path / "kernel_files_subject.py"
    path.write_text("VALUE = 1\n", encoding="utf-8")
    yield path
    sys.modules.pop("kernel_files_subject", None)
    sys.modules.pop("kernel_files_later", None)


def test_a_noted_file_is_reported_as_it_was_when_noted(module_file: Path) -> None:
    importlib.import_module("kernel_files_subject")
    noted = kernel_files.note_loaded_files()
    size = len("VALUE = 1\n")
    assert noted[str(module_file)][1:] == (size, module_file.stat().st_mtime_ns)

    # Changed after the server noted it: the kernel ran what was loaded, and says so,
    # so that the next build sees the change and runs the entry again.
    module_file.write_text("VALUE = 22\n", encoding="utf-8")
    os.utime(module_file, ns=(1, 1))
    reported = _unpacked(kernel_files.loaded_files())
    assert reported[str(module_file)] == (size, noted[str(module_file)][2])


def test_a_file_loaded_after_the_note_is_looked_at(module_file: Path) -> None:
    kernel_files.note_loaded_files()
    later = module_file.with_name("kernel_files_later.py")
    later.write_text("VALUE = 333\n", encoding="utf-8")
    importlib.import_module("kernel_files_later")
    reported = _unpacked(kernel_files.loaded_files())
    assert reported[str(later)] == (len("VALUE = 333\n"), later.stat().st_mtime_ns)
