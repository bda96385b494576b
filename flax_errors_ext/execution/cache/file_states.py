"""Whether the files a run loaded changed: each looked at once per run.

Every entry loads jax's and flax's files. A Python source whose time changed is
compared by its content hash, kept in a small JSON file next to the cache.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from typing import TYPE_CHECKING

from flax_errors_ext.model.runs.fingerprint import LoadedFile, Stat, first_change

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path


class SourceStates:
    """What the files of this machine are now, memoised for the life of one run."""

    def __init__(self, store: Path) -> None:
        self._store = store
        self._stats: dict[str, Stat | None] = {}
        self._hashes_now: dict[str, str | None] = {}
        self._known: dict[tuple[str, Stat], str] = {}
        self._added = False
        with contextlib.suppress(OSError, ValueError, TypeError):
            for path, size, mtime_ns, digest in json.loads(store.read_text(encoding="utf-8")):
                self._known[(path, (size, mtime_ns))] = digest

    def stat(self, path: str) -> Stat | None:
        """(size, mtime) of ``path`` now; None if it is gone."""
        if path not in self._stats:
            try:
                found = os.stat(path)
            except OSError:
                self._stats[path] = None
            else:
                self._stats[path] = (found.st_size, found.st_mtime_ns)
        return self._stats[path]

    def content_hash(self, path: str) -> str | None:
        """The SHA-256 of ``path``'s content now; None if it cannot be read."""
        if path not in self._hashes_now:
            try:
                with open(path, "rb") as file:
                    self._hashes_now[path] = hashlib.file_digest(file, "sha256").hexdigest()
            except OSError:
                self._hashes_now[path] = None
        return self._hashes_now[path]

    def first_change(self, files: Iterable[LoadedFile]) -> str | None:
        """The first of ``files`` that changed since a run loaded it, or None."""
        return first_change(files, self.stat, self.content_hash, self._known)

    def remember(self, files: Iterable[LoadedFile]) -> None:
        """Note the content of the Python sources a run just loaded, as they are now."""
        for file in files:
            if file.hashable and (file.path, file.stat) not in self._known:
                if self.stat(file.path) != file.stat:
                    continue  # already changed again: nothing true to note
                digest = self.content_hash(file.path)
                if digest is not None:
                    self._known[(file.path, file.stat)] = digest
                    self._added = True

    def save(self) -> None:
        """Keep the noted hashes for later runs (merged with what is on disk; atomic)."""
        if not self._added:
            return
        merged = SourceStates(self._store)._known
        merged.update(self._known)
        rows = sorted([path, *stat, digest] for (path, stat), digest in merged.items())
        self._store.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=self._store.parent, prefix=".hashes.")
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            json.dump(rows, file)
        os.replace(temporary, self._store)
        self._added = False
