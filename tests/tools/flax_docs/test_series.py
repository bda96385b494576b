"""The patch series (tools/flax_docs/series.py): its order, what each patch changes, its size."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.flax_docs import series

PATCH = """\
From 0123 Mon Sep 17 00:00:00 2001
From: A <a@example.org>
Subject: [PATCH 2/3] docs: build the reference
 with the extension

Why.
---
 docs/conf.py | 2 +-
 1 file changed

diff --git a/docs/conf.py b/docs/conf.py
--- a/docs/conf.py
+++ b/docs/conf.py
@@ -1,2 +1,3 @@
 x = 1
-y = 2
+y = 3
+z = 4
diff --git a/docs/new.rst b/docs/new.rst
new file mode 100644
--- /dev/null
+++ b/docs/new.rst
@@ -0,0 +1 @@
+Title
"""


def test_a_patch_names_its_subject_files_and_lines() -> None:
    patch = series.read_patch(Path("0002-docs.patch"), PATCH)

    assert patch.subject == "docs: build the reference with the extension"
    assert patch.files == ("docs/conf.py", "docs/new.rst")
    assert (patch.added, patch.removed) == (3, 1)
    assert str(patch).startswith("0002-docs.patch: 2 file(s), +3 -1: docs: build")


def test_text_without_a_commit_is_named() -> None:
    with pytest.raises(ValueError, match=r"notes\.txt: not a git format-patch commit"):
        series.read_patch(Path("notes.txt"), "just text\n")


def test_the_series_applies_in_its_numbers_order() -> None:
    names = ["0002-b.patch", "0010-j.patch", "0001-a.patch"] + [
        f"{n:04d}-x.patch" for n in range(3, 10)
    ]
    ordered = series.series(Path(name) for name in names)

    assert [p.name for p in ordered][:3] == ["0001-a.patch", "0002-b.patch", "0003-x.patch"]
    assert ordered[-1].name == "0010-j.patch"


@pytest.mark.parametrize(
    ("names", "message"),
    [
        (["0001-a.patch", "0003-c.patch"], "the series has no patch 0002"),
        (["0001-a.patch", "README.md"], r"README\.md: not a numbered patch"),
        (["1-a.patch"], r"1-a\.patch: not a numbered patch"),
    ],
)
def test_a_gap_or_a_stray_file_is_named(names: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        series.series(Path(name) for name in names)


def test_the_committed_series_adds_the_extra_then_docs_nnx_then_docs() -> None:
    patches = series.read_series(series.SERIES)

    assert [p.files for p in patches] == [
        ("pyproject.toml",),
        (
            "docs_nnx/api_reference/flax.errors.rst",
            "docs_nnx/api_reference/index.rst",
            "docs_nnx/conf.py",
        ),
        ("docs/api_reference/flax.errors.rst", "docs/conf.py"),
    ]
    conf = (series.SERIES / patches[1].path.name).read_text("utf-8")
    assert "+flax_errors_base_url = 'https://flax.readthedocs.io/en/latest'" in conf
    assert "+flax_errors_execution_mode = 'cache'" in conf
    linen = patches[2].path.read_text("utf-8")
    assert "+flax_errors_base_url = 'https://flax-linen.readthedocs.io/en/latest'" in linen
    # Both sites show each error across its recorded releases.
    for patch in (conf, linen):
        assert "+  'flax_errors_ext',\n+  'flax_errors_ext.ext.history',\n" in patch
