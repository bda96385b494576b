"""What the build keeps per page: the files each page's runs loaded, one shared set."""

from __future__ import annotations

import pickle

from flax_errors_ext.model.runs.fingerprint import LoadedFile
from flax_errors_ext.sphinx.context import joined_files


def _files(prefix: str, count: int) -> tuple[LoadedFile, ...]:
    return tuple(LoadedFile(f"/{prefix}/{n}.py", n, n) for n in range(count))


def test_pages_whose_runs_loaded_the_same_lists_share_one_set() -> None:
    shared, own = _files("site-packages", 1000), _files("project", 3)

    first, second = joined_files([shared]), joined_files([shared])
    both = joined_files([shared, own])

    assert first is second
    assert first == frozenset(shared)
    assert both == frozenset(shared) | frozenset(own)
    # Pickled once, however many pages hold it (the environment Sphinx pickles).
    assert len(pickle.dumps([first] * 200)) < 2 * len(pickle.dumps(first))


def test_every_combination_of_lists_gets_its_own_union() -> None:
    a, b, c = _files("a", 3), _files("b", 3), _files("c", 3)

    for lists in ([a], [b], [a, b], [b, a], [a, b, c], [c]):
        assert joined_files(lists) == frozenset().union(*lists)
    # Equal content in another object: the same files.
    assert joined_files([tuple(LoadedFile(f.path, f.size, f.mtime_ns) for f in a)]) == frozenset(a)
