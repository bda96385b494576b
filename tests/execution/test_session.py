"""The run session: its cache database (a broken one is set aside, never crashed on) and the
kernel host it is handed or makes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from jupyter_cache import get_cache
from myst_nb.core.config import NbParserConfig

from flax_errors_ext.execution import session
from flax_errors_ext.execution.host import KernelHost
from flax_errors_ext.execution.session import Session, open_cache_database
from flax_errors_ext.model.config import CatalogueConfig

if TYPE_CHECKING:
    from pathlib import Path

    import pytest


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
        assert f"the execution cache database {cache / 'global.db'} could not be read" in said

    aside = sorted(p.name for p in cache.iterdir() if p.name.startswith("global.db."))
    assert len(aside) == 2
    assert all(name.startswith("global.db.broken-") for name in aside)
    assert get_cache(str(cache)).list_cache_records() == []


def test_a_rebuilt_database_keeps_every_executed_notebook(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    open_cache_database(cache)
    for hashkey in ("0c5c7305de25f3772bf756071b09dd61", "158a3c2a7b9c1cbb803b10813f66ca28"):
        kept = cache / "executed" / hashkey / "base.ipynb"
        kept.parent.mkdir(parents=True)
        kept.write_text("{}")
    (cache / "global.db").write_bytes(b"not a database" * 100)

    said = open_cache_database(cache)

    assert said is not None
    assert "rebuilt from the 2 executed notebook(s) the cache keeps" in said
    records = get_cache(str(cache)).list_cache_records()
    assert sorted(r.hashkey for r in records) == sorted(
        p.name for p in (cache / "executed").iterdir()
    )


def test_a_cache_that_cannot_be_rebuilt_is_set_aside_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    open_cache_database(cache)
    (cache / "global.db").write_bytes(b"not a database" * 100)

    def unreadable(path: Path) -> int:
        raise OSError(f"{path}/executed: input/output error")

    monkeypatch.setattr(session, "_index_cached_notebooks", unreadable)
    said = open_cache_database(cache)

    assert said is not None
    assert f"the execution cache at {cache} could not be read" in said
    assert "every example runs again" in said
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("cache.broken-")]
    assert get_cache(str(cache)).list_cache_records() == []


def test_a_session_takes_over_a_host_made_for_its_run(tmp_path: Path) -> None:
    config = CatalogueConfig()
    host = KernelHost(tmp_path, config, executes=True)
    run = Session(tmp_path, config, NbParserConfig(execution_mode="cache"), host)
    assert run.host is host


def test_a_host_made_for_another_run_is_closed_and_replaced(tmp_path: Path) -> None:
    config = CatalogueConfig()
    closed: list[KernelHost] = []

    class Watched(KernelHost):
        def close(self) -> None:
            closed.append(self)
            super().close()

    made_for_execution = Watched(tmp_path, config, executes=True)
    run = Session(tmp_path, config, NbParserConfig(execution_mode="off"), made_for_execution)
    assert closed == [made_for_execution]
    assert run.host is not made_for_execution
    assert not run.host.executes
