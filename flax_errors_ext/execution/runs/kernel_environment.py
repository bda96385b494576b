"""What a kernel reports of its environment: the packages' versions, the files it loaded.

The build keys its execution cache on the versions (:func:`package_versions`), and
trusts a cached run only while none of the files it loaded code from changed
(:func:`loaded_files`). The fork server notes both once, before it forks kernels
(:func:`note_environment`), and its kernels report what it noted instead of
asking the file system again, for every file the server loaded, in every kernel.
This module is imported by the server, so it imports nothing that a
kernel's start-up would set up differently (:mod:`doctest` takes its debugger's
base class from :mod:`pdb` as it finds it when imported, which IPython's
start-up changes).
"""

from __future__ import annotations

import base64
import dataclasses
import importlib.metadata
import json
import os
import sys
import zlib

PACKAGES = ("jax", "jaxlib", "flax")
"""The packages whose behaviour the catalogue records, by their installed versions."""

_known_versions: dict[str, str] = {}
"""The versions the fork server read, where it did."""


@dataclasses.dataclass(frozen=True)
class _Noted:
    """What was noted of the files loaded before this process was forked.

    By the fork server, and again by a kernel before it forks its first entry's
    process.
    """

    files: dict[str, tuple[str, int, int]]
    """Each file by path, with its state then: ``(path, size, mtime_ns)``."""
    packed: str
    """The same states as JSON list items, sorted, without the list's brackets."""
    modules: int
    """How many modules were loaded then."""
    imports: int
    """How many imports :class:`_ImportsSeen` had seen then."""


_noted: _Noted | None = None
_imports: list[str] = []
"""The name of every module imported since :class:`_ImportsSeen` was installed."""


class _ImportsSeen:
    """A finder that finds nothing: it notes every module imported, for :func:`loaded_files`.

    First on ``sys.meta_path``, so every import passes it.
    """

    @staticmethod
    def find_spec(name: str, path: object = None, target: object = None) -> None:
        """Note ``name``; another finder finds it."""
        _imports.append(name)


def note_environment() -> dict[str, tuple[str, int, int]]:
    """Remember the packages' versions and every file loaded so far, with its state.

    Called by the fork server once it has imported what every kernel needs. Its
    kernels, forked from it, then report those files as they were when they were
    loaded, which is what the kernel runs. A file changed since is seen by the
    next build, and a package installed since makes the server stale (its files
    changed), so neither is read again here.

    Returns:
        Every loaded file by path, as ``(path, size, mtime_ns)``.
    """
    global _noted  # noqa: PLW0603 - noted once, before the forks that read it
    _known_versions.update(package_versions())
    files = _loaded_file_states(_noted.files if _noted else {})
    if _ImportsSeen not in sys.meta_path:
        sys.meta_path.insert(0, _ImportsSeen)
    packed = json.dumps(sorted(files.values()))[1:-1]
    _noted = _Noted(files, packed, len(sys.modules), len(_imports))
    return dict(files)


def package_versions() -> dict[str, str]:
    """The installed versions of :data:`PACKAGES` ("not installed" where one is not)."""
    if _known_versions:
        return dict(_known_versions)
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def _loaded_file_states(
    known: dict[str, tuple[str, int, int]],
) -> dict[str, tuple[str, int, int]]:
    """Every loaded module's file with its state; as ``known`` says where it knows it."""
    return _file_states(list(sys.modules.values()), known)


def _new_file_states(noted: _Noted) -> dict[str, tuple[str, int, int]] | None:
    """The files of the modules loaded since ``noted`` that it does not hold, with their states.

    From the imports :class:`_ImportsSeen` saw, without a look at every module a
    kernel has: in a process just forked, a look at an object writes to its
    memory, which the fork then copies, page by page. None where a module came
    another way (put in ``sys.modules`` by hand, a finder ahead of ours): the
    imports seen then do not account for every module loaded.
    """
    names = [name for name in dict.fromkeys(_imports[noted.imports :]) if name in sys.modules]
    if len(sys.modules) - noted.modules != len(names):
        return None
    found = _file_states([sys.modules[name] for name in names], noted.files)
    return {path: state for path, state in found.items() if path not in noted.files}


def _file_states(
    modules: list[object], known: dict[str, tuple[str, int, int]]
) -> dict[str, tuple[str, int, int]]:
    """The file of each of ``modules`` with its state; as ``known`` says where it knows it."""
    found = {}
    for module in modules:
        path = getattr(module, "__file__", None)
        if isinstance(path, str) and path not in found:
            state = known.get(path) or _state(path)
            if state is not None:
                found[path] = state
    return found


def _state(path: str) -> tuple[str, int, int] | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return (path, stat.st_size, stat.st_mtime_ns)


def loaded_files() -> str:
    """Every file a module of this process was loaded from, packed for the notebook.

    The run's dependencies: a later run is trusted only while none of them changed.
    A JSON list of ``[path, size, mtime_ns]``, compressed and base64-encoded: one
    compact string instead of a small list per file in every cached notebook, which
    jupyter-cache and nbformat would read and validate each time.
    """
    noted = _noted
    new = None if noted is None else _new_file_states(noted)
    if noted is None or new is None:
        text = json.dumps(sorted(_loaded_file_states(noted.files if noted else {}).values()))
    else:
        text = "[" + ",".join(filter(None, (noted.packed, json.dumps(sorted(new.values()))[1:-1])))
        text += "]"
    packed = zlib.compress(text.encode(), 6)
    return base64.b64encode(packed).decode("ascii")
