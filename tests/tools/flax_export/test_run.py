"""The export run's command line: its arguments and the failures it names."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tools.flax_export import run

if TYPE_CHECKING:
    from pathlib import Path


def test_a_stack_that_does_not_pin_flax_is_named(tmp_path: Path) -> None:
    constraints = tmp_path / "constraints.txt"
    constraints.write_text("jax==0.10.2\njaxlib==0.10.2\npytest==9.2.0\n")

    with pytest.raises(ValueError, match="do not pin flax"):
        run.main(
            ["--constraints", str(constraints), "--cache", str(tmp_path), "--work", str(tmp_path)]
        )
