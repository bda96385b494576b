"""The run session: its cache database (a broken one is set aside, never crashed on) and its
kernel server (started once, by whichever entry needs a kernel first)."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from jupyter_cache import get_cache
from myst_nb.core.config import NbParserConfig

from flax_errors_ext.execution import session
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


def test_the_entries_threads_start_one_kernel_server_between_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[object] = []
    lock = threading.Lock()

    class SlowToStart:
        def __init__(self, *_: Any, **__: Any) -> None:
            time.sleep(0.05)  # a server's start, long enough for every thread to ask
            with lock:
                made.append(self)

    monkeypatch.setattr(session, "WarmKernelServer", SlowToStart)
    run = Session(tmp_path, CatalogueConfig(), NbParserConfig(execution_mode="cache"))

    with ThreadPoolExecutor(8) as pool:
        servers = list(pool.map(lambda _: run.start_server(), range(8)))

    assert len(made) == 1
    assert all(server is made[0] for server in servers)
