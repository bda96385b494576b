"""Which of Flax's test files ``nox -s flax_suite`` runs, and what its arguments mean."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tools.flax_suite import run

if TYPE_CHECKING:
    from pathlib import Path


def test_the_fast_files_by_default_every_linen_file_with_all(tmp_path: Path) -> None:
    for name in ("linen/b_test.py", "linen/a_test.py", "linen/helper.py", "nnx/bridge/c_test.py"):
        (tmp_path / "tests" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "tests" / name).write_text("", "utf-8")
    assert run.test_files(tmp_path, run_all=False) == list(run.FAST)
    assert run.test_files(tmp_path, run_all=True) == [
        "tests/linen/a_test.py",
        "tests/linen/b_test.py",
        "tests/nnx/bridge/c_test.py",
    ]


def test_the_parts_hold_no_flax_folder_to_shadow_the_installed_one() -> None:
    assert not any(part.startswith("flax") for part in run.PARTS)
    assert run.SENTINEL == "tools.flax_suite.sentinel"
    assert set(run.MODES) == {"plain", "hooked"}
