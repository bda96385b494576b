"""Trim tracebacks to the frames a reader wrote, for the short view of an example's run.

A traceback from an example starts in ``doctest.py`` and, for a Flax error, runs
through a dozen frames of Flax and JAX before the exception line. The reader's
own code is in the ``<doctest ...>`` frames; the rest is shown on request. Pure
text in, text out: the site and the command line can both use it.
"""

from __future__ import annotations

import re
import sysconfig
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

TRACEBACK_HEADER = "Traceback (most recent call last):"
_FRAME = re.compile(r'^  File "(?P<file>[^"]*)", line \d+')
# JAX appends this note to the message of an error whose traceback it filtered;
# it explains frames the short view hides anyway.
_JAX_NOTE = re.compile(
    r"\n-{20}\nFor simplicity, JAX has removed its internal frames[^\n]*(?=\n|$)"
)
# Installed code, wherever the interpreter lives: the standard library
# (doctest.py included) and site-packages or dist-packages below it.
_INSTALLED = re.compile(r"[/\\](site-packages|dist-packages|lib[/\\]python\d+\.\d+)[/\\]")


def library_dirs() -> tuple[str, ...]:
    """Folders whose frames are library internals: stdlib, site-packages and this package."""
    paths = sysconfig.get_paths()
    ours = Path(__file__).resolve().parents[1]
    return tuple(
        str(Path(p)) for p in {paths["stdlib"], paths["purelib"], paths["platlib"], str(ours)}
    )


def is_internal(path: str, libraries: Iterable[str] = ()) -> bool:
    """Whether a frame's file is library code rather than the reader's.

    Args:
        path: The file name a traceback frame names.
        libraries: Extra folders that count as library code (see :func:`library_dirs`).
    """
    if path.startswith("<"):  # <doctest ...>, <stdin>, <string>: code the reader ran
        return False
    if _INSTALLED.search(path):
        return True
    return any(path == lib or path.startswith(lib.rstrip("/\\") + "/") for lib in libraries)


def trim_traceback(text: str, internal: Callable[[str], bool] | None = None) -> str:
    """``text`` with the library frames of every traceback in it dropped.

    Everything that is not a frame of a traceback (output, the header, the
    exception line and chained tracebacks' separators) is kept, as are frames
    in the reader's code. JAX's note about filtered frames is dropped too.

    Args:
        text: Output of a doctest statement, possibly holding tracebacks.
        internal: Decides whether a frame's file is library code; by default
            :func:`is_internal` with :func:`library_dirs`.
    """
    if internal is None:
        libraries = library_dirs()

        def internal(path: str) -> bool:
            return is_internal(path, libraries)

    lines = text.split("\n")
    kept: list[str] = []
    index, in_traceback = 0, False
    while index < len(lines):
        line = lines[index]
        if line == TRACEBACK_HEADER:
            in_traceback = True
        elif in_traceback and (frame := _FRAME.match(line)):
            # A frame is its "File" line and the indented source and carets below it.
            end = index + 1
            while end < len(lines) and lines[end].startswith("    "):
                end += 1
            if not internal(frame["file"]):
                kept.extend(lines[index:end])
            index = end
            continue
        elif in_traceback and not line.startswith("  "):
            in_traceback = False  # the exception line: the traceback's frames are over
        kept.append(line)
        index += 1
    return strip_jax_note("\n".join(kept))


def strip_jax_note(text: str) -> str:
    """``text`` without JAX's note about the frames it filtered."""
    return _JAX_NOTE.sub("", text)


def exception_lines(text: str) -> str:
    """The exception text of the last traceback in ``text`` (its final lines), or ""."""
    start = text.rfind(TRACEBACK_HEADER)
    if start < 0:
        return ""
    lines = text[start:].split("\n")[1:]
    first = next(
        (i for i, line in enumerate(lines) if line and not line.startswith(" ")), len(lines)
    )
    return strip_jax_note("\n".join(lines[first:])).strip("\n")
