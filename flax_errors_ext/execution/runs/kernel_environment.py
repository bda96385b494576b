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
import importlib.metadata
import json
import os
import sys
import zlib

PACKAGES = ("jax", "jaxlib", "flax")
"""The packages whose behaviour the catalogue records, by their installed versions."""

_known_files: dict[str, tuple[str, int, int]] = {}
"""Files already loaded when the fork server forked this kernel, with their state then."""
_known_versions: dict[str, str] = {}
"""The versions the fork server read, where it did."""


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
    _known_versions.update(package_versions())
    _known_files.update(_loaded_file_states())
    return dict(_known_files)


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


def _loaded_file_states() -> dict[str, tuple[str, int, int]]:
    found = {}
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if isinstance(path, str) and path not in found:
            known = _known_files.get(path)
            if known is None:
                try:
                    stat = os.stat(path)
                except OSError:
                    continue
                known = (path, stat.st_size, stat.st_mtime_ns)
            found[path] = known
    return found


def loaded_files() -> str:
    """Every file a module of this process was loaded from, packed for the notebook.

    The run's dependencies: a later run is trusted only while none of them changed.
    A JSON list of ``[path, size, mtime_ns]``, compressed and base64-encoded: one
    compact string instead of a small list per file in every cached notebook, which
    jupyter-cache and nbformat would read and validate each time.
    """
    found = _loaded_file_states()
    packed = zlib.compress(json.dumps(sorted(found.values())).encode(), 6)
    return base64.b64encode(packed).decode("ascii")
