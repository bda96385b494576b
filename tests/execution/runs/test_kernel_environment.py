"""A kernel's loaded files: those the fork server noted are stated as they were then."""

from __future__ import annotations

import base64
import importlib
import importlib.metadata
import importlib.util
import json
import os
import sys
import zlib
from typing import TYPE_CHECKING

import pytest

from flax_errors_ext.execution.runs import kernel_environment

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
    monkeypatch.setattr(kernel_environment, "_noted", None)
    monkeypatch.setattr(kernel_environment, "_known_versions", {})
    path = tmp_path / "kernel_environment_subject.py"
    path.write_text("VALUE = 1\n", encoding="utf-8")
    yield path
    sys.modules.pop("kernel_environment_subject", None)
    sys.modules.pop("kernel_environment_later", None)
    sys.modules.pop("kernel_environment_by_hand", None)


def test_a_noted_file_is_reported_as_it_was_when_noted(module_file: Path) -> None:
    importlib.import_module("kernel_environment_subject")
    noted = kernel_environment.note_environment()
    size = len("VALUE = 1\n")
    assert noted[str(module_file)][1:] == (size, module_file.stat().st_mtime_ns)

    # Changed after the server noted it: the kernel ran what was loaded, and says so,
    # so that the next build sees the change and runs the entry again.
    module_file.write_text("VALUE = 22\n", encoding="utf-8")
    os.utime(module_file, ns=(1, 1))
    reported = _unpacked(kernel_environment.loaded_files())
    assert reported[str(module_file)] == (size, noted[str(module_file)][2])


def test_a_file_loaded_after_the_note_is_looked_at(module_file: Path) -> None:
    kernel_environment.note_environment()
    later = module_file.with_name("kernel_environment_later.py")
    later.write_text("VALUE = 333\n", encoding="utf-8")
    importlib.import_module("kernel_environment_later")
    reported = _unpacked(kernel_environment.loaded_files())
    assert reported[str(later)] == (len("VALUE = 333\n"), later.stat().st_mtime_ns)


def test_versions_noted_by_the_server_are_not_read_again(
    module_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    read = kernel_environment.package_versions()
    assert set(read) == set(kernel_environment.PACKAGES)
    kernel_environment.note_environment()

    def unreadable(name: str) -> str:
        raise AssertionError(f"{name}'s version read again")

    monkeypatch.setattr(importlib.metadata, "version", unreadable)
    assert kernel_environment.package_versions() == read


def test_a_module_put_in_place_by_hand_after_the_note_is_looked_at(module_file: Path) -> None:
    # Not imported: no finder saw it, and every loaded module is looked at instead.
    importlib.import_module("kernel_environment_subject")
    kernel_environment.note_environment()
    by_hand = module_file.with_name("kernel_environment_by_hand.py")
    by_hand.write_text("VALUE = 4444\n", encoding="utf-8")
    spec = importlib.util.spec_from_file_location("kernel_environment_by_hand", by_hand)
    assert spec is not None
    sys.modules["kernel_environment_by_hand"] = importlib.util.module_from_spec(spec)
    reported = _unpacked(kernel_environment.loaded_files())
    assert reported[str(by_hand)] == (len("VALUE = 4444\n"), by_hand.stat().st_mtime_ns)
    assert reported[str(module_file)][0] == len("VALUE = 1\n")
