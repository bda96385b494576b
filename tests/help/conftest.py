"""An index of one message entry, for the help's hooks to answer from."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

import flax_errors_ext.help as flax_help
from flax_errors_ext.model.catalogue.parse import parse_docstring
from flax_errors_ext.model.lookup.help_index import help_index
from tests.help.index_entry import HELP, WORDS_AS_INTEGER

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path


@pytest.fixture
def index_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An index file of one entry, named by ``FLAX_ERRORS_HELP_INDEX`` in the environment."""
    entry = parse_docstring(
        WORDS_AS_INTEGER, "demo.messages.WordsAsInteger", "W.txt", 1, message=True
    )
    index = help_index([(entry, HELP[1].removeprefix("see: "), "Parse digits, not words.")])
    path = tmp_path / "index.json"
    path.write_text(json.dumps(index.to_json()), encoding="utf-8")
    monkeypatch.setenv("FLAX_ERRORS_HELP_INDEX", str(path))
    monkeypatch.delenv("FLAX_ERRORS_HELP", raising=False)
    flax_help.shipped_index.cache_clear()  # read once per process: read this one
    yield path
    flax_help.shipped_index.cache_clear()
