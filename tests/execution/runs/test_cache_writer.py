"""The writer process: the runs' outputs cached as jupyter-cache caches them, in order."""

from __future__ import annotations

import os
import pickle
from typing import TYPE_CHECKING

import nbformat
from jupyter_cache import get_cache

from flax_errors_ext.execution.runs.cache_writer import CacheWriter

if TYPE_CHECKING:
    from pathlib import Path


def _executed(number: int) -> nbformat.NotebookNode:
    """An executed notebook of one cell, its own by ``number``."""
    cell = nbformat.v4.new_code_cell(f"print({number})", execution_count=1)  # type: ignore[no-untyped-call]
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=f"{number}\n")]  # type: ignore[no-untyped-call]
    notebook: nbformat.NotebookNode = nbformat.v4.new_notebook(cells=[cell])  # type: ignore[no-untyped-call]
    return notebook


def _cached(folder: Path, notebook: nbformat.NotebookNode) -> str | None:
    """What the cache keeps of ``notebook``'s run: its output's text, or None."""
    cache = get_cache(str(folder))
    try:
        record = cache.match_cache_notebook(notebook)
    except KeyError:
        return None
    return str(cache.get_cache_bundle(record.pk).nb.cells[0].outputs[0]["text"])


def test_what_is_handed_over_is_cached_in_order_once_closed(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    writer = CacheWriter(folder, tmp_path / "writer.log")
    kept, dropped = _executed(1), _executed(2)
    writer.write(kept, "one.ipynb", {"execution_seconds": 0.5})
    writer.write(dropped, "two.ipynb", {})
    writer.forget(dropped)  # after its write: it must end up not cached
    assert writer.close() is None
    assert _cached(folder, kept) == "1\n"
    assert _cached(folder, dropped) is None
    (record,) = get_cache(str(folder)).list_cache_records()
    assert record.uri == "one.ipynb"
    assert record.data == {"execution_seconds": 0.5}


def test_a_run_the_cache_cannot_keep_is_said_and_the_others_are_kept(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    writer = CacheWriter(folder, tmp_path / "writer.log")
    cell_without_source = {"cell_type": "code", "metadata": {}, "outputs": []}
    broken = nbformat.from_dict(  # type: ignore[no-untyped-call]
        {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [cell_without_source]}
    )
    writer.write(broken, "broken.ipynb", {})  # a cell without source cannot be hashed
    writer.write(_executed(4), "four.ipynb", {})
    said = writer.close()
    assert said is not None
    assert str(tmp_path / "writer.log") in said
    assert "not kept" in said
    assert _cached(folder, _executed(4)) == "4\n"


def test_a_writer_handed_nothing_starts_no_process(tmp_path: Path) -> None:
    writer = CacheWriter(tmp_path / "cache", tmp_path / "writer.log")
    assert writer.close() is None
    assert not (tmp_path / "writer.log").exists()
    assert not (tmp_path / "cache").exists()


def test_only_the_process_that_made_it_hands_over_and_a_pickled_one_is_new(
    tmp_path: Path,
) -> None:
    writer = CacheWriter(tmp_path / "cache", tmp_path / "writer.log")
    writer.write(_executed(5), "five.ipynb", {})
    try:
        copy = pickle.loads(pickle.dumps(writer))
        assert copy.folder == writer.folder
        assert copy.close() is None  # nothing was handed to it, whatever the original holds
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # a -j reader forked from the build
            os.write(write, b"1" if writer.owned() else b"0")
            os._exit(0)
        os.waitpid(pid, 0)
        assert os.read(read, 1) == b"0"
        assert writer.owned()
    finally:
        writer.close()


def test_a_writer_that_has_gone_is_said_to_have_kept_nothing(tmp_path: Path) -> None:
    writer = CacheWriter(tmp_path / "cache", tmp_path / "writer.log")
    writer.write(_executed(6), "six.ipynb", {})
    process = writer._process
    assert process is not None
    process.kill()
    process.wait()
    for number in range(7, 40):  # more than the pipe holds: the feeding thread must not hang
        writer.write(_executed(number), f"{number}.ipynb", {})
    said = writer.close()
    assert said is not None
    assert "exited with status" in said or "not kept" in said
