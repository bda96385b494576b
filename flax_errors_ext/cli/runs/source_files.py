"""The files ``update`` rewrites: read before the examples run, written back atomically.

A file is written (temporary file, then :func:`os.replace`) only if it still holds
what was read: an edit made while the examples ran is never overwritten.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import io
import os
import tempfile
import tokenize
from pathlib import Path

from flax_errors_ext.model.runs.update import UpdateError


class ConcurrentEditError(UpdateError):
    """The file changed after it was read, so writing would lose that change."""


@dataclasses.dataclass(frozen=True)
class SourceFile:
    """A file's content as read before the examples ran, to write back against."""

    path: Path
    text: str
    digest: str
    encoding: str = "utf-8"

    @classmethod
    def read(cls, path: str | Path) -> SourceFile:
        """Read ``path``, line endings as they are; Python source as Python decodes it."""
        data = Path(path).read_bytes()
        encoding = "utf-8"
        if str(path).endswith(".py"):
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        try:
            text = data.decode(encoding)
        except (UnicodeDecodeError, LookupError) as error:
            raise UpdateError(f"{path}: cannot decode it as {encoding}: {error}") from None
        return cls(Path(path), text, hashlib.sha256(data).hexdigest(), encoding)

    def diff(self, new_text: str, name: str) -> str:
        """A unified diff from the content read to ``new_text``, of the file called ``name``."""
        lines = difflib.unified_diff(
            io.StringIO(self.text, newline="").readlines(),
            io.StringIO(new_text, newline="").readlines(),
            fromfile=f"a/{name}",
            tofile=f"b/{name}",
        )
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def write(source: SourceFile, new_text: str) -> None:
    """Replace the file with ``new_text``, atomically, unless it changed since it was read.

    The check and the replacement are not one atomic step, but the window between
    them is a few system calls, against the seconds the examples took.
    """
    try:
        data = new_text.encode(source.encoding)
    except UnicodeEncodeError as error:
        raise UpdateError(
            f"{source.path}: the new text cannot be written as {source.encoding}: {error}"
        ) from None
    try:
        changed = hashlib.sha256(source.path.read_bytes()).hexdigest() != source.digest
    except FileNotFoundError:
        changed = True
    if changed:
        raise ConcurrentEditError(
            f"{source.path} changed while the examples ran; nothing was written to it. "
            "Run update again."
        )
    mode = source.path.stat().st_mode
    handle, temporary = tempfile.mkstemp(dir=source.path.parent, prefix=f".{source.path.name}.")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, mode & 0o7777)
        os.replace(temporary, source.path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
