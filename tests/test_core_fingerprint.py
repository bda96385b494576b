"""What keys the execution cache beyond the code cells."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from flax_errors_ext.core.discover import discover
from flax_errors_ext.core.fingerprint import code_hash
from flax_errors_ext.core.notebook import build_notebook

if TYPE_CHECKING:
    from pathlib import Path


def test_code_hash_ignores_docstrings_but_not_code(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text('"""Doc."""\nclass E:\n    """One."""\n    def f(self):\n        return "a"\n')
    before = code_hash(path)
    path.write_text('"""Doc!"""\nclass E:\n    """Two."""\n    def f(self):\n        return "a"\n')
    assert code_hash(path) == before
    path.write_text('"""Doc!"""\nclass E:\n    """Two."""\n    def f(self):\n        return "b"\n')
    assert code_hash(path) != before


def test_every_fingerprint_field_changes_the_first_cell() -> None:
    (entry,) = discover("flax_errors_ext.errors").entries
    base = {"versions": {"jax": "1"}, "device": {"device_kind": "cpu"}, "sources": {"m": "a"}}
    cell = build_notebook(entry, base, [], 10).cells[0].source
    for field, value in [
        ("versions", {"jax": "2"}),
        ("device", {"device_kind": "NVIDIA H200"}),
        ("sources", {"m": "b"}),
    ]:
        changed = dict(base, **{field: value})
        assert build_notebook(entry, changed, [], 10).cells[0].source != cell, field


def test_code_hash_is_safe_from_several_threads() -> None:
    # Entries are checked from several threads; CPython 3.11's ast.parse is not
    # thread-safe on its own (python/cpython#106905).
    import flax.errors

    with ThreadPoolExecutor(max_workers=4) as pool:
        hashes = set(pool.map(lambda _: code_hash(flax.errors.__file__), range(120)))
    assert len(hashes) == 1
