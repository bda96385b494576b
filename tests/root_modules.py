"""Forget the error modules a test root's build imported, as a new sphinx-build would."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Set


def forget_root_modules(before: Set[str]) -> None:
    """Drop the ``*_errors`` modules imported since ``before`` was taken, but this package's.

    The next test imports its root's module afresh. This package's own modules (its
    ``retired_errors``) stay: a later build in the same process pickles their classes,
    which must still be the ones imported.
    """
    for name in set(sys.modules) - before:
        if name.endswith("_errors") and not name.startswith("flax_errors_ext."):
            del sys.modules[name]
