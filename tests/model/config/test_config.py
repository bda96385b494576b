"""The typed configuration: how the entries' execution mode is settled, values given as text."""

from __future__ import annotations

import re

import pytest

from flax_errors_ext.model.config import PREFIX, CatalogueConfig


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


OVERRIDES = {
    # As sphinx-build -D gives each setting: text.
    "modules": ("flax.errors,mine.errors", ("flax.errors", "mine.errors")),
    "pages": ("module", "module"),
    "timeout": ("60", 60),
    "execution_mode": ("force", "force"),
    "jobs": ("2", 2),
    "compilation_cache": ("0", False),
    "catalogue_dirs": ("one,two", ("one", "two")),
    "upstream": ("error", "error"),
    "base_url": ("https://example.org/errors", "https://example.org/errors"),
    "strict": ("true", True),
    "output_limit": ("500", 500),
    "history": ("", ()),
    "device_runs": ("gpu.json", ("gpu.json",)),
}
"""Each setting's ``-D`` text, and what it reads as; a dict has no text form of its own."""


def test_every_setting_but_a_dict_has_a_command_line_override_here() -> None:
    fields = {name.removeprefix(PREFIX) for name, _, _ in CatalogueConfig.options()}
    assert fields - set(OVERRIDES) == {"source_links"}


@pytest.mark.parametrize(("field", "text", "value"), [(k, *v) for k, v in OVERRIDES.items()])
def test_a_setting_given_as_text_reads_as_its_type(field: str, text: str, value: object) -> None:
    config = CatalogueConfig.from_values({PREFIX + field: text})

    got = getattr(config, field)
    if field == "modules":
        got = tuple(spec.name for spec in got)
    assert got == value


def test_a_dict_setting_takes_its_keys_as_text() -> None:
    # -D flax_errors_source_links.optax=<URL> -D flax_errors_source_links.jax=None
    given = {"optax": "https://example.org/{version}/{path}#L{line}", "jax": "None"}
    config = CatalogueConfig.from_values({"flax_errors_source_links": given})

    assert config.source_links == {"optax": given["optax"], "jax": None}


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("timeout", "sixty", "flax_errors_timeout must be a positive whole number of seconds"),
        ("timeout", "0", "flax_errors_timeout must be a positive whole number of seconds"),
        ("jobs", "many", "flax_errors_jobs must be a whole number, 0 or more"),
        ("strict", "yes", "flax_errors_strict must be True or False (on the command line: 1, 0"),
        ("output_limit", "1e6", "flax_errors_output_limit must be a positive whole number"),
        ("pages", "entry", "flax_errors_pages must be one of 'error', 'module'"),
        ("source_links", "jax=None", "-D flax_errors_source_links.<package>=<URL>"),
    ],
)
def test_text_that_does_not_read_names_the_setting_and_the_text(
    name: str, text: str, message: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(message)) as raised:
        CatalogueConfig.from_values({PREFIX + name: text})

    assert str(raised.value).endswith(f"; got {text!r}")
