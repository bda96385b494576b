"""Reading a listed module, or a group of message entries, and the pages a build keeps."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

import pytest

from flax_errors_ext.execution.catalogue.modules import (
    DiscoveryError,
    ModulePages,
    load_module,
    read_module_data,
)
from flax_errors_ext.layout import SiteLayout
from flax_errors_ext.model.catalogue.module_data import ModuleData
from flax_errors_ext.model.config.values import ModuleSpec

if TYPE_CHECKING:
    from pathlib import Path

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


MESSAGE = """\
A key was looked up that the mapping does not hold.

Bad example:

  >>> {}["lr"]
  Traceback (most recent call last):
    ...
  KeyError: 'lr'
"""


def test_a_group_of_message_entries_is_read_from_its_folders_without_an_import(
    tmp_path: Path,
) -> None:
    ours, shipped = tmp_path / "ours", tmp_path / "shipped"
    for folder in (ours, shipped):
        (folder / "demo.messages").mkdir(parents=True)
        (folder / "demo.messages" / "KeyNotStored.txt").write_text(MESSAGE)
    (shipped / "demo.messages" / "OnlyShipped.txt").write_text(MESSAGE)
    spec = ModuleSpec.from_value({"module": "demo.messages", "messages": True})

    module = load_module(spec, (ours, shipped))

    assert module.messages
    assert [e.qualname for e in module.entries] == [
        "demo.messages.KeyNotStored",
        "demo.messages.OnlyShipped",
    ]
    # The project's file wins over the shipped one of the same name.
    assert module.entries[0].location.path == str(ours / "demo.messages" / "KeyNotStored.txt")
    assert module.entries[0].raised_as == ("KeyError",)
    assert "demo" not in sys.modules


def test_a_group_no_folder_holds_is_a_discovery_error_naming_where_it_looked(
    tmp_path: Path,
) -> None:
    spec = ModuleSpec.from_value({"module": "demo.messages", "messages": True})

    with pytest.raises(DiscoveryError, match=r"demo\.messages is a group of message entries") as e:
        load_module(spec, (tmp_path,))
    assert str(tmp_path / "demo.messages") in str(e.value)


DATA = """\
area = "Data errors"
related = [["OneError", "pages_errors.OneError"]]

[notes.OneError]
doc = "one_error_design"
title = "Why it is raised once"
"""


def test_a_folder_holding_module_toml_alone_keeps_the_docstrings_ours(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "data_errors.py").write_text(SOURCE.replace("pages_errors", "data_errors"))
    (tmp_path / "catalogue" / "data_errors").mkdir(parents=True)
    toml = tmp_path / "catalogue" / "data_errors" / "module.toml"
    toml.write_text(DATA)
    monkeypatch.syspath_prepend(str(tmp_path))
    module = load_module("data_errors", (tmp_path / "catalogue",))

    # Read as ours: the docstring is the entry, its example ours (not upstream).
    assert [example.kind.ours for example in module.entries[0].examples] == [True]
    assert module.data.area == "Data errors"
    assert module.data.related == (("data_errors.OneError", "pages_errors.OneError"),)
    assert module.data.notes == (("OneError", "one_error_design", "Why it is raised once"),)
    assert module.problems == ()
    # A build reads it again when the file changes.
    assert str(toml) in [path for path, _ in ModulePages.of(module, SiteLayout()).files]

    # A class the data names that the module lacks: reported at the file.
    toml.write_text(DATA.replace("[notes.OneError]", "[notes.OnceError]"))
    problems = [str(p) for p in load_module("data_errors", (tmp_path / "catalogue",)).problems]
    assert problems == [
        f"{toml}:1: this file's notes names no class of data_errors: no data_errors.OnceError; "
        "did you mean OneError?"
    ]


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ('area = "A"\n\narea "B"\n', r"module\.toml: cannot read it as a module's data: .*line 3"),
        ('area = "A"\nsee_also = []\n', r"module\.toml: .*unknown key see_also"),
        ('[[repair]]\nerror = "E"\nold = "a"\nnew = "b"\n', r"\[\[repair\]\] needs error"),
    ],
)
def test_a_malformed_module_toml_is_a_discovery_error_naming_the_file(
    tmp_path: Path, text: str, error: str
) -> None:
    (tmp_path / "lib.errors").mkdir()
    (tmp_path / "lib.errors" / "module.toml").write_text(text)
    with pytest.raises(DiscoveryError, match=error) as raised:
        read_module_data("lib.errors", (tmp_path,))
    assert str(raised.value).startswith(str(tmp_path / "lib.errors" / "module.toml"))


def test_the_first_folder_holding_a_modules_data_gives_all_of_it(tmp_path: Path) -> None:
    for folder, area in (("ours", "Ours"), ("shipped", "Shipped")):
        (tmp_path / folder / "lib.errors").mkdir(parents=True)
        (tmp_path / folder / "lib.errors" / "module.toml").write_text(f'area = "{area}"\n')
    folders = (tmp_path / "none", tmp_path / "ours", tmp_path / "shipped")
    assert read_module_data("lib.errors", folders).area == "Ours"
    assert read_module_data("lib.other", folders) == ModuleData()
