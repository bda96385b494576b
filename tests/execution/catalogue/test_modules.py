"""A module's entry pages as a build keeps them for the next (ModulePages)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from flax_errors_ext.execution.catalogue.modules import ModulePages, load_module
from flax_errors_ext.layout import SiteLayout
from flax_errors_ext.model.config.module_spec import ModuleSpec

if TYPE_CHECKING:
    from pathlib import Path

    import pytest

SOURCE = '''"""Errors of a test module."""


class OneError(Exception):
    """Raised once.

    Bad example:

      >>> raise OneError("once")
      Traceback (most recent call last):
        ...
      pages_errors.OneError: once
    """
'''


def test_pages_are_kept_while_no_file_they_came_from_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pages_errors.py").write_text(SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    module = load_module("pages_errors")

    kept = ModulePages.of(module, SiteLayout())
    assert kept.pages == (("api_reference/pages_errors/OneError", "pages_errors.OneError"),)
    assert [path for path, _ in kept.files] == [str(tmp_path / "pages_errors.py")]
    assert kept.unchanged()

    stat = (tmp_path / "pages_errors.py").stat()
    os.utime(tmp_path / "pages_errors.py", ns=(stat.st_atime_ns, stat.st_mtime_ns + 1))
    assert not kept.unchanged()
    # A layout that keeps entries on the module's page gives them no pages.
    assert ModulePages.of(module, SiteLayout.of([ModuleSpec("x")], per_error=False)).pages == ()
