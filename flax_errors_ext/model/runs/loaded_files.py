"""Which source files an entry's run loaded, and whether any has changed since.

An error's message may be built anywhere the cache key does not look (a helper
module of the project, an editable install whose version never changes), so each
run records every file its process had loaded, and a later run is trusted only
while none of them changed: in size or modification time and, for Python source
(whose content hash was noted at load time), in content too. How files are looked
at is the caller's: this module only decides.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping

Stat = tuple[int, int]
"""A file's (size, modification time in nanoseconds)."""


@dataclasses.dataclass(frozen=True)
class LoadedFile:
    """A file a run loaded code from, as it was then."""

    path: str
    size: int
    mtime_ns: int

    @property
    def stat(self) -> Stat:
        """(size, modification time) when it was loaded."""
        return (self.size, self.mtime_ns)

    @property
    def hashable(self) -> bool:
        """Whether its content is compared when its time changes (Python source)."""
        return self.path.endswith(".py")

    @classmethod
    def from_json(cls, data: Any) -> LoadedFile:
        """Read the ``[path, size, mtime_ns]`` triple an entry's process sent."""
        path, size, mtime_ns = data
        return cls(str(path), int(size), int(mtime_ns))


def first_change(
    files: Iterable[LoadedFile],
    stat: Callable[[str], Stat | None],
    content_hash: Callable[[str], str | None],
    known: Mapping[tuple[str, Stat], str],
) -> str | None:
    """The first of ``files`` that changed since it was loaded, or None.

    ``stat`` and ``content_hash`` tell a file's now (None if it is gone or cannot be
    read); ``known`` has the content hashes noted at load time, by (path, stat).
    """
    for file in files:
        now = stat(file.path)
        if now == file.stat:
            continue
        if now is None or not file.hashable:
            return file.path
        then = known.get((file.path, file.stat))
        if then is None or then != content_hash(file.path):
            return file.path
    return None
