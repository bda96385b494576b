"""Each entry's section as a doctree, held to a snapshot for a few roots.

What a reader sees of an entry, part by part and in order, is compared as a whole
with ``test_entry_doctrees/<root>.xml`` (pytest-regressions): a part that moves,
goes missing or changes its words fails here, with the difference. After a
change meant to show, ``pytest --force-regen`` writes the snapshots again, to be
read in review like any diff.

The entries run in this build (the roots run their examples): the verdicts are
real. What differs between machines and stacks is written as a placeholder: the
project's folder, the versions the verification line names, and a traceback's
markers under an expression. The constructor's
signature is autodoc's rendering, not this extension's, and its attributes differ
between Sphinx releases: it is left out.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest
from docutils import nodes

from flax_errors_ext.sphinx.context import CatalogueCollector
from tests.utils import project_from_root

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from pytest_regressions.file_regression import FileRegressionFixture
    from sphinx.testing.util import SphinxTestApp

    MakeApp = Callable[..., SphinxTestApp]

_VERSIONS = re.compile(r"\b(flax|jax|jaxlib) \d+\.\d+[\w.+-]*")
_CARETS = re.compile(r"^[ \t]*[~^]+[ \t]*\n", re.MULTILINE)
"""A traceback's markers under an expression: newer Pythons add them where older do not."""


def _sections(app: SphinxTestApp) -> str:
    """Every entry's section of the build, in name order, as stable text."""
    shown = []
    for docname, records in sorted(CatalogueCollector.records(app.env).items()):
        doctree = app.env.get_doctree(docname)
        for section in doctree.findall(nodes.section):
            if "flax-errors-entry" not in section["classes"]:
                continue
            for signature in list(section.findall(nodes.container)):
                if "flax-errors-signature" in signature["classes"]:
                    signature.parent.remove(signature)
            shown.append(f"<!-- {docname} ({len(records)} entries on the page) -->")
            shown.append(section.pformat())
    text = "\n".join(shown).replace(str(app.srcdir), "<project>")
    return _CARETS.sub("", _VERSIONS.sub(r"\1 <version>", text))


@pytest.mark.parametrize("root", ["passing", "drift", "no-raise", "wrong-class"])
def test_an_entrys_section_is_its_snapshot(
    make_app: MakeApp, tmp_path: Path, root: str, file_regression: FileRegressionFixture
) -> None:
    app = make_app("html", srcdir=project_from_root(root, tmp_path))
    app.build()

    file_regression.check(_sections(app), basename=root, extension=".xml")
