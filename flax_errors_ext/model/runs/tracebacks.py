"""Tracebacks as the site shows them: trimmed to the reader's frames, no machine paths."""

from __future__ import annotations

import dataclasses
import functools
import os
import re
import sys
import sysconfig
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Sequence

TRACEBACK_HEADER = "Traceback (most recent call last):"
_FRAME = re.compile(r'^  File "(?P<file>[^"]*)", line (?P<line>\d+)(?:, in (?P<function>.*))?')
_RUNNER = ("doctest.py", "__run")  # doctest's: the first frame of each example's traceback
_THREAD = ("threading.py", "_bootstrap")  # where a thread's stack starts
# Where an entry's process starts: a ``python -c`` (the forkserver's) or ``-m`` program.
_PROCESS_STARTS = ("<string>", "<frozen runpy>")
_ABSOLUTE = re.compile(r"^(?:/|[A-Za-z]:[/\\]|\\\\)")
_SEPARATOR = re.compile(r"[/\\]")
# JAX's note on the frames it filtered, which the short view hides anyway.
_JAX_NOTE = re.compile(
    r"\n-{20}\nFor simplicity, JAX has removed its internal frames[^\n]*(?=\n|$)"
)
# Installed code, wherever the interpreter lives: the standard library and site-packages.
_INSTALLED = re.compile(r"[/\\](site-packages|dist-packages|lib[/\\]python\d+\.\d+)[/\\]")


@functools.cache
def library_dirs() -> tuple[str, ...]:
    """Folders of library internals: stdlib, site-packages and this package."""
    paths = sysconfig.get_paths()
    ours = Path(__file__).resolve().parents[2]
    return tuple(
        str(Path(p)) for p in {paths["stdlib"], paths["purelib"], paths["platlib"], str(ours)}
    )


def import_roots() -> tuple[str, ...]:
    """The folders this interpreter imports from (an editable install's too), and real paths."""
    return _find_import_roots(tuple(sys.path), len(sys.modules))


@functools.lru_cache(maxsize=1)
def _find_import_roots(sys_path: tuple[str, ...], _modules: int) -> tuple[str, ...]:
    found = {entry or "." for entry in sys_path if isinstance(entry, str)}
    # A copy: another thread may be importing meanwhile (a build probes its devices in one).
    for name, module in sys.modules.copy().items():
        path = getattr(module, "__file__", None)
        if "." in name or not isinstance(path, str):
            continue
        folder, file = os.path.split(path)
        if hasattr(module, "__path__") and os.path.basename(folder) == name:
            found.add(os.path.dirname(folder))
        elif file.split(".", 1)[0] == name != "__main__":
            # Not an alias (_frozen_importlib), nor the module ``python -m`` ran, whose
            # folder is its package's, not a root (python -m pytest: .../pytest).
            found.add(folder)
    roots = {os.path.abspath(entry) for entry in found}
    return tuple(sorted(roots | {os.path.realpath(root) for root in roots}))


def relative_path(path: str, roots: Iterable[str]) -> str:
    """``path`` inside the deepest of ``roots`` that holds it; under none, its file name alone."""
    if not _ABSOLUTE.match(path):
        return path
    folders = [root.rstrip("/\\") for root in roots]
    holding = [  # the length of each root that holds it
        len(folder)
        for folder in folders
        if _SEPARATOR.search(folder)  # not a bare drive or the file system's root
        and path.startswith(folder)
        and path[len(folder) : len(folder) + 1] in ("/", "\\")
    ]
    return path[max(holding) + 1 :] if holding else _SEPARATOR.split(path)[-1]


def is_internal(path: str, libraries: Iterable[str] = ()) -> bool:
    """Whether a frame's file is library code: installed, or under one of ``libraries``."""
    if path.startswith("<"):  # <doctest ...>, <stdin>, <string>: code the reader ran
        return False
    if _INSTALLED.search(path):
        return True
    return any(path == lib or path.startswith(lib.rstrip("/\\") + "/") for lib in libraries)


def trim_traceback(text: str, internal: Callable[[str], bool]) -> str:
    """``text`` without the frames whose file is ``internal``, nor JAX's note about them."""
    return strip_jax_note(
        _map_frames(text, lambda frame: [] if internal(frame.file) else frame.lines)
    )


def publishable(text: str, roots: Sequence[str]) -> str:
    """``text`` as the site may publish it: no runner frame, no folder of the build machine."""

    def publish(frame: _Frame) -> list[str]:
        if frame.place == _RUNNER:
            return []
        shown = relative_path(frame.file, roots)
        if shown == frame.file:
            return frame.lines
        return [frame.lines[0].replace(f'"{frame.file}"', f'"{shown}"', 1), *frame.lines[1:]]

    return strip_roots(_map_frames(text, publish, from_example=True), roots)


def strip_roots(text: str, roots: Iterable[str]) -> str:
    """``text`` with every path that starts with one of ``roots`` relative to the deepest."""
    folders = {root.rstrip("/\\") for root in roots}
    # Deepest first: the alternation takes the first root that matches.
    ordered = sorted((f for f in folders if _SEPARATOR.search(f)), key=len, reverse=True)
    if not ordered:
        return text
    alternatives = "|".join(re.escape(folder) for folder in ordered)
    return re.sub(rf"(?<![\w.~/\\-])(?:{alternatives})[/\\]", "", text)


@dataclasses.dataclass(frozen=True)
class _Frame:
    """One frame of a traceback: its "File" line and the source and carets below it."""

    file: str
    function: str
    lines: list[str]

    @property
    def place(self) -> tuple[str, str]:
        return _SEPARATOR.split(self.file)[-1], self.function


def _map_frames(
    text: str, rewrite: Callable[[_Frame], list[str]], *, from_example: bool = False
) -> str:
    # from_example: a whole stack (JAX's record of a key's first use) starts at the example.
    kept: list[str] = []
    for piece in _pieces(text):
        if isinstance(piece, str):
            kept.append(piece)
            continue
        first = piece[0] if piece else None
        whole = isinstance(first, _Frame) and (
            first.file in _PROCESS_STARTS or first.place in {_RUNNER, _THREAD}
        )
        starts = [
            i
            for i, item in enumerate(piece)
            if isinstance(item, _Frame) and item.file.startswith("<doctest ")
        ]
        for item in piece[starts[0] :] if from_example and whole and starts else piece:
            kept.extend([item] if isinstance(item, str) else rewrite(item))
    return "\n".join(kept)


def _pieces(text: str) -> list[str | list[str | _Frame]]:
    pieces: list[str | list[str | _Frame]] = []
    body: list[str | _Frame] | None = None
    for line in text.split("\n"):
        if body is not None and (frame := _FRAME.match(line)):
            body.append(_Frame(frame["file"], frame["function"] or "", [line]))
        elif body and isinstance(body[-1], _Frame) and line.startswith("    "):
            body[-1].lines.append(line)  # the frame's source line and carets
        elif body is not None and line.startswith("  "):
            body.append(line)
        else:
            body = None  # the exception line: the traceback's frames are over
            pieces.append(line)
            if line == TRACEBACK_HEADER:
                body = []
                pieces.append(body)
    return pieces


def frame_lines(text: str) -> Iterator[tuple[int, re.Match[str]]]:
    """The "File" line of each frame :func:`publishable` sees in ``text``: its offset and match."""
    offset = 0
    for piece in _pieces(text):
        for item in [piece] if isinstance(piece, str) else piece:
            lines = [item] if isinstance(item, str) else item.lines
            if isinstance(item, _Frame) and (frame := _FRAME.match(lines[0])):
                yield offset, frame
            offset += sum(len(line) + 1 for line in lines)


def raise_site(text: str) -> str:
    """``file:line`` of the innermost library frame of the last traceback in ``text``, or ""."""
    start = text.rfind(TRACEBACK_HEADER)
    if start < 0:
        return ""
    innermost = ""
    for _, frame in frame_lines(text[start:]):
        file = frame["file"]
        runner = (_SEPARATOR.split(file)[-1], frame["function"] or "") == _RUNNER
        if not file.startswith("<") and not runner:
            innermost = f"{file}:{frame['line']}"
    return innermost


def strip_jax_note(text: str) -> str:
    """``text`` without JAX's note about the frames it filtered."""
    return _JAX_NOTE.sub("", text)


_TENSORSTORE_NOTES = re.compile(
    r"\s*\[(?:tensorstore_spec(?:\[\d+\])?|source locations)='[^']*'\]"
)


def strip_tensorstore_notes(text: str) -> str:
    """``text`` without the spec and source lines TensorStore appends to its errors.

    They are a release's JSON (Orbax's errors carry them), in no fixed order: not the
    error's words.
    """
    return _TENSORSTORE_NOTES.sub("", text)
