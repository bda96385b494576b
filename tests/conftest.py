"""Shared fixtures: Sphinx's testing plugin over the roots in tests/roots/."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from collections.abc import Iterator

pytest_plugins = ("sphinx.testing.fixtures",)

ROOTS = Path(__file__).parent / "roots"


@pytest.fixture(scope="session")
def rootdir() -> Path:
    return ROOTS


@pytest.fixture(autouse=True)
def _forget_root_modules() -> Iterator[None]:
    """Each test imports its root's error module afresh, as a new sphinx-build would."""
    before = set(sys.modules)
    yield
    for name in set(sys.modules) - before:
        if name.endswith("_errors"):
            del sys.modules[name]


def read_catalogue(outdir: Path) -> dict[str, Any]:
    """The errors.json a build wrote."""
    catalogue: dict[str, Any] = json.loads((outdir / "errors.json").read_text())
    return catalogue


def entry(catalogue: dict[str, Any], name: str) -> dict[str, Any]:
    """The record of the entry called ``name`` (short name)."""
    found: list[dict[str, Any]] = [e for e in catalogue["entries"] if e["name"] == name]
    assert len(found) == 1, f"{len(found)} entries named {name}"
    return found[0]
