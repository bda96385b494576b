"""The extras join the build where a project lists them, and only there."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest
from docutils import nodes
from sphinx.errors import ConfigError

from flax_errors_ext.sphinx.extras import EXTRA_SETTINGS, EntryExtras
from tests.utils import project_from_root

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from sphinx.testing.util import SphinxTestApp

    MakeApp = Callable[..., SphinxTestApp]

EXTRAS = (
    "flax_errors_ext.ext.history",
    "flax_errors_ext.ext.other_runs",
    "flax_errors_ext.ext.search",
)

_BUILD = """
import json, sys
from sphinx.application import Sphinx

srcdir, outdir, extensions = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
app = Sphinx(
    srcdir, srcdir, outdir, outdir + "/.doctrees", "html", status=None, warning=sys.stderr,
    confoverrides={"nb_execution_mode": "off", "extensions": extensions},
)
app.build()
print(json.dumps({
    "status": app.statuscode,
    "modules": sorted(m for m in sys.modules if m.startswith("flax_errors_ext")),
    "extensions": sorted(app.extensions),
}))
"""


@dataclasses.dataclass(frozen=True)
class Built:
    """What a build in a fresh interpreter loaded and imported."""

    status: int
    modules: list[str]
    """The modules of the package it imported."""
    extensions: list[str]

    def extras(self, names: list[str]) -> list[str]:
        """The extras among ``names``."""
        return [name for name in names if name.startswith("flax_errors_ext.ext")]


def _build_apart(tmp_path: Path, extensions: list[str]) -> Built:
    """Build the ``passing`` root in a fresh interpreter; what it loaded and imported."""
    project = project_from_root("passing", tmp_path)
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            _BUILD,
            str(project),
            str(tmp_path / "out"),
            json.dumps(extensions),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return Built(**json.loads(done.stdout.splitlines()[-1]))


@pytest.mark.sphinx
def test_a_project_listing_the_core_alone_loads_and_imports_no_extra(tmp_path: Path) -> None:
    built = _build_apart(tmp_path, ["flax_errors_ext"])

    assert built.status == 0
    assert "flax_errors_ext" in built.extensions
    assert built.extras(built.extensions) == []
    assert built.extras(built.modules) == []
    out = tmp_path / "out"
    assert not (out / "_static" / "flax_errors_search_data.js").exists()
    assert "device_runs" not in json.loads((out / "errors.json").read_text("utf-8"))


@pytest.mark.sphinx
def test_an_extra_listed_alone_loads_the_core_and_joins_its_build(tmp_path: Path) -> None:
    built = _build_apart(tmp_path, ["flax_errors_ext.ext.search"])

    assert built.status == 0
    assert "flax_errors_ext" in built.extensions
    assert built.extras(built.extensions) == ["flax_errors_ext.ext.search"]
    data = (tmp_path / "out" / "_static" / "flax_errors_search_data.js").read_text("utf-8")
    assert "passing_errors." in data
    assert (tmp_path / "out" / "_static" / "flax_errors_search.js").is_file()


@pytest.mark.sphinx
@pytest.mark.parametrize(("setting", "extension"), sorted(EXTRA_SETTINGS.items()))
def test_a_setting_of_an_extra_not_loaded_is_refused_naming_the_extension(
    make_app: MakeApp, tmp_path: Path, setting: str, extension: str
) -> None:
    project = project_from_root("passing", tmp_path)
    with pytest.raises(ConfigError, match=rf"flax_errors_{setting} is set.*add '{extension}'"):
        make_app(
            "html",
            srcdir=project,
            confoverrides={"nb_execution_mode": "off", f"flax_errors_{setting}": ["run.json"]},
        )


@pytest.mark.sphinx
@pytest.mark.parametrize("setting", sorted(EXTRA_SETTINGS))
def test_a_setting_of_an_extra_set_to_read_nothing_is_no_reason_to_load_it(
    make_app: MakeApp, tmp_path: Path, setting: str
) -> None:
    project = project_from_root("passing", tmp_path)
    app = make_app(
        "html",
        srcdir=project,
        confoverrides={"nb_execution_mode": "off", f"flax_errors_{setting}": []},
    )

    assert EXTRA_SETTINGS[setting] not in app.extensions


def test_every_extra_setting_names_an_extra_that_exists() -> None:
    for extension in EXTRA_SETTINGS.values():
        assert extension in EXTRAS


def test_the_extras_of_an_entry_join_in_order_the_first_wording_kept() -> None:
    first, second = nodes.paragraph(text="first"), nodes.paragraph(text="second")
    joined = EntryExtras.joined(
        [
            None,
            EntryExtras(parts=(first,)),
            EntryExtras("Verified on CPU and on GPU", (second,)),
            EntryExtras("Verified elsewhere"),
        ]
    )

    assert joined == EntryExtras("Verified on CPU and on GPU", (first, second))
    assert EntryExtras.joined([]) == EntryExtras()
