"""The run session's cache database: a broken one is set aside, never crashed on."""

from __future__ import annotations

from typing import TYPE_CHECKING

from jupyter_cache import get_cache

from flax_errors_ext.execution.session import open_cache_database

if TYPE_CHECKING:
    from pathlib import Path


def test_a_sound_database_is_left_alone(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    assert open_cache_database(cache) is None
    assert open_cache_database(cache) is None
    assert [p.name for p in tmp_path.iterdir()] == ["cache"]


def test_each_broken_database_is_set_aside_under_a_name_of_its_own(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    open_cache_database(cache)
    for damage in (b"", b"not a database" * 100):  # both within the same second, likely
        (cache / "global.db").write_bytes(damage)
        said = open_cache_database(cache)
        assert said is not None
        assert f"the execution cache at {cache} could not be read" in said

    aside = sorted(p.name for p in tmp_path.iterdir() if p.name != "cache")
    assert len(aside) == 2
    assert all(name.startswith("cache.broken-") for name in aside)
    assert get_cache(str(cache)).list_cache_records() == []
