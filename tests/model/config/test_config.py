"""The typed configuration: how the entries' execution mode is settled."""

from __future__ import annotations

import pytest

from flax_errors_ext.model.config import CatalogueConfig


@pytest.mark.parametrize(
    ("setting", "notebooks", "entries"),
    [
        ("auto", "auto", "cache"),
        ("auto", "inline", "cache"),
        ("auto", "off", "off"),
        ("auto", "force", "force"),
        ("auto", "cache", "cache"),
        ("cache", "off", "cache"),
        ("force", "off", "force"),
        ("off", "cache", "off"),
    ],
)
def test_the_entries_run_as_set_else_as_the_notebooks(
    setting: str, notebooks: str, entries: str
) -> None:
    config = CatalogueConfig.from_values({"flax_errors_execution_mode": setting})

    assert config.run_mode(notebooks) == entries


def test_an_unknown_execution_mode_is_named() -> None:
    with pytest.raises(ValueError, match="flax_errors_execution_mode must be one of 'auto'"):
        CatalogueConfig.from_values({"flax_errors_execution_mode": "inline"})
