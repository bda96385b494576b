"""The files a kernel's modules were loaded from: the run's dependencies.

A cached run is trusted only while none of the files it loaded code from changed,
so every entry's kernel reports them (:func:`loaded_files`). Imported by the fork
server before it forks kernels, so it imports nothing that a kernel's start-up
would set up differently (:mod:`doctest` takes its debugger's base class from
:mod:`pdb` as it finds it when imported, which IPython's start-up changes).
"""

from __future__ import annotations

import base64
import json
import os
import sys
import zlib

_known_files: dict[str, tuple[str, int, int]] = {}
"""Files already loaded when the fork server forked this kernel, with their state then."""


def note_loaded_files() -> dict[str, tuple[str, int, int]]:
    """Remember every file loaded so far, with its size and modification time.

    Called by the fork server once it has imported what every kernel needs: its
    kernels, forked from it, then state those files as they were when they were
    loaded (what the kernel runs) without asking the file system again, which was
    a tenth of a light entry's time in its kernel.
    """
    _known_files.update(_loaded_file_states())
    return dict(_known_files)


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
    string of a few tens of KB instead of a thousand small lists in every cached
    notebook, which jupyter-cache and nbformat would read and validate each time.
    """
    found = _loaded_file_states()
    packed = zlib.compress(json.dumps(sorted(found.values())).encode(), 6)
    return base64.b64encode(packed).decode("ascii")
