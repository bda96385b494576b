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


@pytest.mark.parametrize(
    ("timeout", "notebooks", "limit"),
    [
        (None, 30, 30),  # myst-nb's limit on a cell of a notebook
        (None, 300, 300),
        (None, -1, None),  # myst-nb's "no limit"
        (None, None, None),
        (7, 300, 7),  # set, it is the entries' own
        (7, -1, 7),
    ],
)
def test_an_example_may_run_as_long_as_a_notebook_cell_unless_set(
    timeout: int | None, notebooks: int | None, limit: int | None
) -> None:
    config = CatalogueConfig.from_values({"flax_errors_timeout": timeout})

    assert config.example_timeout(notebooks) == limit
