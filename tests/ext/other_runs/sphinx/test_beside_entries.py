"""Runs on other devices on the site: ``tests/roots/test-device-runs``.

Its module has three errors and its ``runs/gpu.json`` a run of two of them on an
NVIDIA H200: one raised the same text there, one named the device's platform.
"""

from __future__ import annotations

import html
import importlib.metadata
import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sphinx.testing.util import SphinxTestApp

from flax_errors_ext.model.runs.fingerprint import Device
from tests.utils import ROOTS, entry, read_catalogue

MakeApp = Callable[..., SphinxTestApp]
GPU = "GPU (NVIDIA H200)"


def _project(tmp_path: Path) -> Path:
    """A copy of the root whose run has the installed versions, as a run beside it would."""
    srcdir = tmp_path / "device-runs"
    shutil.copytree(ROOTS / "test-device-runs", srcdir)
    path = srcdir / "runs" / "gpu.json"
    data: dict[str, Any] = json.loads(path.read_text())
    versions = {name: importlib.metadata.version(name) for name in ("jax", "jaxlib", "flax")}
    data["versions"] = versions
    for item in data["entries"]:
        item["versions"] = versions
    path.write_text(json.dumps(data))
    return srcdir


def _section(app: SphinxTestApp, qualname: str) -> str:
    """The text of an entry's section, tags and markup aside, on whichever page shows it."""
    tag = re.compile(rf'<section[^>]*class="flax-errors-entry"[^>]*id="{re.escape(qualname)}"')
    for path in sorted(Path(app.outdir).rglob("*.html")):
        page = path.read_text()
        found = tag.search(page)
        if found is not None:
            end = page.find("<section", found.end())
            text = re.sub(r"<[^>]+>", "", page[found.start() : end if end > 0 else len(page)])
            return html.unescape(re.sub(r"\s+", " ", text))
    raise AssertionError(f"no page shows the entry {qualname}")


def test_an_entry_not_run_here_has_no_note_per_run(make_app: MakeApp, tmp_path: Path) -> None:
    """Its status line says it was not run; the runs beside it add nothing to compare."""
    app = make_app("html", srcdir=_project(tmp_path), confoverrides={"nb_execution_mode": "off"})
    app.build()

    assert app.statuscode == 0
    new = _section(app, "device_errors.NewError")
    assert "Not run in this build" in new
    assert "Not compared" not in new
    outcomes = {e["name"]: e["devices"] for e in read_catalogue(Path(app.outdir))["entries"]}
    assert [o["agreement"] for o in outcomes["SteadyError"]] == ["not-compared"]


def test_the_page_shows_the_devices_that_agree_and_what_differs(
    make_app: MakeApp, tmp_path: Path
) -> None:
    app = make_app("html", srcdir=_project(tmp_path))
    app.build()

    assert app.statuscode == 0
    assert "flax-errors" not in app.warning.getvalue()
    catalogue = read_catalogue(Path(app.outdir))
    here = Device.from_json(entry(catalogue, "SteadyError")["device"])
    assert here is not None
    steady = _section(app, "device_errors.SteadyError")
    assert f"✓ Verified on {here.label} and on {GPU} · flax " in steady
    new = _section(app, "device_errors.NewError")
    assert f"Verified on {here.label} · flax " in new
    assert f"Not compared on {GPU}: it has no record of this entry." in new
    placed = _section(app, "device_errors.PlacedError")
    if here.platform != "gpu":
        assert f"Verified on {here.label} · flax " in placed
        assert f"Differs on {GPU}: bad example 1: passed in both, with other text" in placed
        assert f"no room on the {here.platform} device" in placed
        assert "no room on the gpu device" in placed

    assert catalogue["device_runs"][0]["source"] == "runs/gpu.json"
    outcomes = {e["name"]: e["devices"] for e in catalogue["entries"]}
    assert [o["agreement"] for o in outcomes["SteadyError"]] == ["same"]
    assert [o["agreement"] for o in outcomes["NewError"]] == ["not-compared"]
    if here.platform != "gpu":
        (differs,) = outcomes["PlacedError"]
        assert differs["agreement"] == "differs"
        assert "no room on the gpu device" in differs["differences"][0]["text_there"]


def test_an_edited_run_is_shown_on_the_next_build_and_a_broken_one_is_named(
    make_app: MakeApp, tmp_path: Path
) -> None:
    srcdir = _project(tmp_path)
    make_app("html", srcdir=srcdir).build()
    # The run is recorded again, and SteadyError now says something else there.
    path = srcdir / "runs" / "gpu.json"
    data = json.loads(path.read_text())
    bad = entry(data, "SteadyError")["examples"][0]
    bad["actual"] = bad["actual"].replace("the same everywhere (", "the same nearly (")
    path.write_text(json.dumps(data))

    again = make_app("html", srcdir=srcdir)
    again.build()

    assert again.statuscode == 0
    steady = _section(again, "device_errors.SteadyError")
    assert f"Differs on {GPU}: bad example 1: passed in both, with other text" in steady
    assert "the same nearly (" in steady

    path.write_text("{not json")
    broken = make_app("html", srcdir=srcdir)
    broken.build()

    warnings = broken.warning.getvalue()
    assert "[flax-errors.device-runs]" in warnings
    assert "device run not read: runs/gpu.json: not JSON" in warnings
    assert GPU not in _section(broken, "device_errors.SteadyError")


FLAX = "https://flax.readthedocs.io/en/latest"


OLDER = {"jax": "0.4.30", "jaxlib": "0.4.30", "flax": "0.8.5"}
"""Versions no stack of this project runs: another run's, whichever stack builds."""


def _older_run(data: dict[str, Any], device: dict[str, Any], here: dict[str, Any]) -> str:
    """``data``'s run moved onto ``device`` and older versions: SteadyError links to the
    page Flax 0.5 printed, PlacedError is worded otherwise; each text otherwise ``here``'s."""
    old = dict(OLDER)
    data = json.loads(json.dumps(data))
    data["device"] = device
    data["versions"] = old
    for item in data["entries"]:
        item["device"] = device
        item["versions"] = old
        mine = entry(here, item["name"])["examples"]
        for example, my_example in zip(item["examples"], mine, strict=False):
            example["actual"] = my_example["actual"]
    steady = entry(data, "SteadyError")["examples"][0]
    steady["actual"] = steady["actual"].replace(
        "/api_reference/flax.errors.html#", "/flax.errors.html#"
    )
    placed = entry(data, "PlacedError")["examples"][0]
    placed["actual"] = placed["actual"].replace("no room on the", "no space left on the")
    return json.dumps(data)


def test_runs_that_differ_alike_are_said_once_and_a_links_page_in_a_sentence(
    make_app: MakeApp, tmp_path: Path
) -> None:
    """Two runs of the same older versions: SteadyError's link names another page of
    Flax's site there (one sentence, no texts), PlacedError is worded otherwise (both
    texts, once for both runs); errors.json keeps each run's outcome as it was."""
    srcdir = _project(tmp_path)
    modules = [{"module": "device_errors", "upstream": FLAX}]
    first = make_app("html", srcdir=srcdir, confoverrides={"flax_errors_modules": modules})
    first.build()
    here = read_catalogue(Path(first.outdir))
    device = entry(here, "SteadyError")["device"]
    data = json.loads((srcdir / "runs" / "gpu.json").read_text())
    (srcdir / "runs" / "stack.json").write_text(_older_run(data, device, here))
    eight = {**device, "count": 8}
    (srcdir / "runs" / "eight.json").write_text(_older_run(data, eight, here))
    runs = ["runs/gpu.json", "runs/eight.json", "runs/stack.json"]

    app = make_app(
        "html",
        srcdir=srcdir,
        confoverrides={"flax_errors_modules": modules, "flax_errors_device_runs": runs},
    )
    app.build()

    assert app.statuscode == 0
    label = Device.from_json(device).label  # type: ignore[union-attr]
    old = ", ".join(f"{name} {version}" for name, version in sorted(OLDER.items()))
    both = f"with {old} on {label} \u00d78 and on {label}"
    steady = _section(app, "device_errors.SteadyError")
    assert steady.count(old) == 1
    assert (
        f"Bad example 1: the same message {both}, except the page of its link"
        " (flax.errors.html; api_reference/flax.errors.html in this build)."
    ) in steady
    assert "Differs" not in steady
    assert "This build, on" not in steady
    placed = _section(app, "device_errors.PlacedError")
    if device["platform"] != "gpu":
        assert placed.count(f"Differs {both}: bad example 1: passed in both, with other text") == 1
        assert placed.count("no space left on the") == 1
        assert f"On {label} \u00d78 and on {label}:" in placed
    # The record and the verdicts are as before: one outcome per run.
    catalogue = read_catalogue(Path(app.outdir))
    outcomes = {e["name"]: e["devices"] for e in catalogue["entries"]}
    assert [o["agreement"] for o in outcomes["SteadyError"]] == ["same", "differs", "differs"]
    assert [o["source"] for o in outcomes["SteadyError"]] == runs
    assert "/flax.errors.html#" in outcomes["SteadyError"][1]["differences"][0]["text_there"]
