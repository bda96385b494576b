"""Merge the slice files of one history run into flax.json (``nox -s history -- --merge DIR``).

Each slice ran part of releases.toml on a machine of its own
(:class:`~tools.history.recording.SliceOut`); CI downloads
them into one folder. They are merged only if together they hold every release
of releases.toml once, ran this checkout's catalogue and rewrites, and left no
entry to run (:mod:`~tools.history.slices` says what is wrong,
naming the file); flax.json is then replaced whole.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from tools.history.plan import plan_history, read_releases
from tools.history.recording import (
    digest,
    read_entries,
    say,
    write_history,
)
from tools.history.rewrites import parse_rules
from tools.history.slices import (
    HistorySlice,
    SliceError,
    merge_slices,
    owners,
    unfinished,
)

if TYPE_CHECKING:
    from pathlib import Path

    from tools.history.recording import HistoryFiles


def read_slices(folder: Path) -> dict[str, HistorySlice]:
    """Every slice file under ``folder`` (CI puts each artifact in a folder of its own).

    Raises:
        SliceError: naming each file that is not a readable slice, or if there is none.
    """
    slices: dict[str, HistorySlice] = {}
    problems: list[str] = []
    for path in sorted(folder.rglob("*.json")):
        try:
            slices[str(path)] = HistorySlice.from_json(json.loads(path.read_text("utf-8")))
        except (OSError, ValueError, KeyError, TypeError) as error:
            problems.append(f"{path}: not read: {error}")
    if not slices and not problems:
        problems.append(f"{folder}: no slice file (*.json) in it")
    if problems:
        raise SliceError("\n".join(problems))
    return slices


def merge(files: HistoryFiles, folder: Path) -> None:
    """Merge the slices under ``folder`` into flax.json, or leave it as it is.

    Raises:
        SliceError: listing what is wrong with the slices, each with its file.
    """
    slices = read_slices(folder)
    releases = read_releases((files.folder / "releases.toml").read_text("utf-8"))
    history = merge_slices(slices, releases, digest(files))
    rules = parse_rules((files.folder / "rewrites.toml").read_text("utf-8"))
    todo = plan_history(history, releases, read_entries(files.catalogue), rules)
    problems = unfinished(todo.todo, owners(slices))
    if problems:
        raise SliceError("\n".join(problems))
    write_history(files.out, history, todo.codes)
    say(f"{len(slices)} slices, {len(history.releases)} releases merged into {files.out}")
