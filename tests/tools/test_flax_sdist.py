"""Parts of Flax's sdist, from an archive already in the cache: nothing is downloaded."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.tools.sdist_archive import FILES, archive
from tools.flax_sdist import flax_source, folder_name, wanted

if TYPE_CHECKING:
    from pathlib import Path


def test_each_set_of_parts_has_a_folder_of_its_own() -> None:
    assert (
        folder_name("0.12.8", ("pyproject.toml", "tests/")) == "flax-0.12.8-pyproject.toml-tests"
    )
    assert folder_name("0.12.8", ("docs/",)) == "flax-0.12.8-docs"
    with pytest.raises(ValueError, match="unexpected flax version"):
        folder_name("0.12.8/../..", ("docs/",))


def test_folders_take_what_is_under_them_files_only_themselves() -> None:
    parts = ("pyproject.toml", "tests/")
    assert wanted(FILES, "0.12.8", parts) == [
        "flax-0.12.8/pyproject.toml",
        "flax-0.12.8/tests/linen/a_test.py",
    ]
    assert (
        wanted(["flax-0.12.8/pyproject.toml.orig", "flax-0.12.9/tests/x"], "0.12.8", parts) == []
    )


def test_the_parts_are_extracted_once_from_the_cached_archive(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    archive(cache)
    source = flax_source("0.12.8", ("pyproject.toml", "tests/"), cache)
    assert source == cache / "flax-0.12.8-pyproject.toml-tests"
    extracted = sorted(str(p.relative_to(source)) for p in source.rglob("*") if p.is_file())
    assert extracted == ["pyproject.toml", "tests/linen/a_test.py"]
    # Taken as cached now: the archive is not read again.
    (cache / "flax-0.12.8.tar.gz").unlink()
    assert flax_source("0.12.8", ("pyproject.toml", "tests/"), cache) == source
    assert sorted(p.name for p in cache.iterdir()) == [source.name]
