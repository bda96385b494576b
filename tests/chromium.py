"""The mark of a test that drives Debian's chromium (:mod:`tools.chromium`)."""

from __future__ import annotations

import pytest

from tools.chromium import CHROMIUM, CHROMIUM_ARGS

__all__ = ["CHROMIUM", "CHROMIUM_ARGS", "NEEDS_CHROMIUM"]

NEEDS_CHROMIUM = pytest.mark.skipif(
    CHROMIUM is None,
    reason="no chromium installed (Debian: apt-get install chromium); browsers are never "
    "downloaded for these tests",
)
"""The mark of a test that drives the browser."""
