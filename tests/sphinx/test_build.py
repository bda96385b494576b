"""The catalogue build, one Sphinx test root per scenario (tests/roots/test-*)."""

from __future__ import annotations

import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sphinx.testing.util import SphinxTestApp

from flax_errors_ext.execution.cache.store import RunStore
from flax_errors_ext.execution.runs.runner import Runner
from flax_errors_ext.model.runs.fingerprint import Device
from tests.utils import entry, module_html, project_from_root, read_catalogue

MakeApp = Callable[..., SphinxTestApp]


def build(app: SphinxTestApp) -> dict[str, Any]:
    app.build()
    return read_catalogue(Path(app.outdir))


def warnings(app: SphinxTestApp) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", app.warning.getvalue())


def rebuild(make_app: MakeApp, app: SphinxTestApp, **kwargs: Any) -> SphinxTestApp:
    """A second sphinx-build over the same sources, build dir and execution cache."""
    again = make_app("html", srcdir=app.srcdir, **kwargs)
    again.build()
    return again


def rebuild_after_editing(
    make_app: MakeApp, app: SphinxTestApp, filename: str, old: str, new: str
) -> tuple[SphinxTestApp, dict[str, Any]]:
    """Replace ``old`` by ``new`` in one file of the root, rebuild: the app, its errors.json."""
    path = Path(app.srcdir) / filename
    path.write_text(path.read_text().replace(old, new))
    again = rebuild(make_app, app)
    return again, read_catalogue(Path(again.outdir))


def page(app: SphinxTestApp, module: str) -> str:
    """The module's page and its entries' pages."""
    return module_html(Path(app.outdir), f"api_reference/{module}")


@pytest.mark.sphinx("html", testroot="passing")
def test_passing_entry_is_executed_rendered_and_recorded(app: SphinxTestApp) -> None:
    catalogue = build(app)

    assert app.statuscode == 0
    assert "flax-errors" not in warnings(app)
    record = entry(catalogue, "ShapeError")
    assert record["qualname"] == "passing_errors.ShapeError"
    assert record["url"] == (
        "api_reference/passing_errors/ShapeError.html#passing_errors.ShapeError"
    )
    assert re.search(r"passing_errors\.py:7$", record["source"])
    assert record["status"] == "passed"
    assert [(e["kind"], e["status"]) for e in record["examples"]] == [
        ("bad", "passed"),
        ("good", "passed"),
    ]
    assert record["examples"][0]["actual"].startswith(
        "passing_errors.ShapeError: bad shape (3, 2)"
    )
    assert catalogue["device"]["platform"] == "cpu"
    assert set(catalogue["versions"]) == {"jax", "jaxlib", "flax"}

    html = page(app, "passing_errors")
    # The id the printed URL names is on the entry's section itself.
    assert '<section class="flax-errors-entry" id="passing_errors.ShapeError">' in html
    # Explanation rendered as reST, cross-reference resolved to the entry.
    assert (
        '<code class="docutils literal notranslate"><span class="pre">literal</span></code>'
        in html
    )
    assert 'href="#passing_errors.ShapeError"' in html
    # The signature comes from autodoc, with type hints.
    assert "sig-name descname" in html
    assert "shape" in html
    # The real traceback of this run, and the status line with device and versions.
    assert "&lt;doctest passing_errors.ShapeError[1]&gt;" in html
    assert re.search(r"✓</span> Verified on CPU · flax [\d.]+ · jax [\d.]+ · jaxlib ", html)


@pytest.mark.sphinx("html", testroot="passing")
def test_error_text_is_escaped_everywhere(app: SphinxTestApp) -> None:
    build(app)
    html = page(app, "passing_errors")
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    # Markup in the message stays literal: no emphasis from *not*, no role from `ok`.
    assert "<em>not</em>" not in html


@pytest.mark.sphinx("html", testroot="drift")
def test_documented_text_drift_fails_with_location_and_diff(app: SphinxTestApp) -> None:
    catalogue = build(app)

    assert app.statuscode == 1
    record = entry(catalogue, "RenamedError")
    assert record["examples"][0]["status"] == "drifted"
    text = warnings(app)
    assert re.search(
        r"drift_errors\.py:12: WARNING: drift_errors\.RenamedError: bad example drifted", text
    )
    assert "-drift_errors.RenamedError: the old wording (...)" in text
    assert "+drift_errors.RenamedError: the new wording (https://" in text
    assert "[flax-errors.drifted]" in text


@pytest.mark.sphinx("html", testroot="runtime-drift")
def test_runtime_message_drift_defeats_a_warm_cache(app: SphinxTestApp, make_app: MakeApp) -> None:
    catalogue = build(app)
    assert app.statuscode == 0
    assert catalogue["executed"] == ["runtime_drift_errors.ReworderError"]

    # Reword the message in __init__ only; the docstring (and so every code cell of
    # the notebook) stays the same.
    again, catalogue = rebuild_after_editing(
        make_app, app, "runtime_drift_errors.py", '("original message")', '("reworded message")'
    )

    assert again.statuscode == 1
    assert catalogue["executed"] == ["runtime_drift_errors.ReworderError"]
    assert entry(catalogue, "ReworderError")["examples"][0]["status"] == "drifted"
    assert "+runtime_drift_errors.ReworderError: reworded message" in warnings(again)


@pytest.mark.sphinx("html", testroot="helper-drift")
def test_a_reworded_helper_module_fails_a_warm_build(
    app: SphinxTestApp, make_app: MakeApp
) -> None:
    # The message is worded in a module nobody listed; only the kernel's record of
    # what it loaded ties the entry to it.
    assert build(app)["executed"] == ["helper_drift_errors.HelperError"]
    assert app.statuscode == 0
    unchanged = rebuild(make_app, app)
    assert read_catalogue(Path(unchanged.outdir))["executed"] == []

    again, catalogue = rebuild_after_editing(
        make_app, app, "helper_wording_errors.py", "worded by", "now worded by"
    )

    assert again.statuscode == 1
    assert catalogue["executed"] == ["helper_drift_errors.HelperError"]
    example = entry(catalogue, "HelperError")["examples"][0]
    assert example["status"] == "drifted"
    assert example["actual"].startswith("helper_drift_errors.HelperError: now worded by a helper")
    assert "helper_wording_errors.py changed since" in again.status.getvalue()


@pytest.mark.sphinx("html", testroot="helper-drift")
def test_a_helper_touched_but_not_changed_runs_nothing_again(
    app: SphinxTestApp, make_app: MakeApp
) -> None:
    build(app)
    helper = Path(app.srcdir) / "helper_wording_errors.py"
    helper.write_text(helper.read_text())  # a new time, the same text
    again = rebuild(make_app, app)

    assert again.statuscode == 0
    assert read_catalogue(Path(again.outdir))["executed"] == []


@pytest.mark.sphinx("html", testroot="passing")
def test_a_damaged_cached_run_is_run_again_and_kept_anew(
    app: SphinxTestApp, make_app: MakeApp
) -> None:
    build(app)
    (kept,) = (Path(app.outdir).parent / ".jupyter_cache" / "flax-errors").glob("*.json")
    kept.write_text('{"examples": ')

    again = rebuild(make_app, app, freshenv=True)

    catalogue = read_catalogue(Path(again.outdir))
    assert again.statuscode == 0, warnings(again)
    assert catalogue["executed"] == ["passing_errors.ShapeError"]
    assert entry(catalogue, "ShapeError")["status"] == "passed"
    assert _cache_records(app) == 1


@pytest.mark.sphinx("html", testroot="process-env")
def test_the_compilation_cache_is_set_in_the_entries_processes_only(app: SphinxTestApp) -> None:
    if "JAX_COMPILATION_CACHE_DIR" in os.environ:
        pytest.skip("the environment chose a compilation cache, which the build leaves alone")
    catalogue = build(app)

    # The entry's process saw the build's cache (its good example prints it) ...
    assert app.statuscode == 0, warnings(app)
    assert entry(catalogue, "CacheSharedError")["status"] == "passed"
    # ... and the Sphinx process, and whatever else it runs, did not get it.
    assert "JAX_COMPILATION_CACHE_DIR" not in os.environ
    assert "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS" not in os.environ


@pytest.mark.sphinx("html", testroot="latin1")
def test_a_module_saved_in_latin1_is_read_as_python_reads_it(app: SphinxTestApp) -> None:
    catalogue = build(app)

    assert app.statuscode == 0
    record = entry(catalogue, "CafeError")
    assert record["summary"] == "Raised when the café is closed."
    assert record["examples"][0]["actual"].startswith("latin1_errors.CafeError: le café est fermé")
    assert "le café est fermé" in page(app, "latin1_errors")


@pytest.mark.examples
def test_an_interrupted_build_stops_its_processes_and_caches_nothing_half_run(
    tmp_path: Path,
) -> None:
    source = project_from_root("interrupt", tmp_path)
    marker = tmp_path / "entry.pid"
    # A shell that runs the tests in the background ignores SIGINT, and a child
    # inherits that: the build gets the default, as one started from a terminal does.
    command = [sys.executable, "-m", "sphinx", "-b", "html", "-q", str(source)]
    ignored = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        build = subprocess.Popen(
            [*command, str(source / "_build")],
            env={**os.environ, "INTERRUPT_MARKER": str(marker)},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
    finally:
        signal.signal(signal.SIGINT, ignored)
    deadline = time.monotonic() + 120
    while not marker.exists() and build.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    assert marker.exists(), build.communicate()[0].decode()
    process = int(marker.read_text())

    interrupted = time.monotonic()
    build.send_signal(signal.SIGINT)  # to sphinx-build alone, not its process group
    try:
        build.wait(timeout=50)  # the example would sleep for 60 s
    finally:
        build.kill()
    waited = time.monotonic() - interrupted

    assert build.returncode != 0
    assert waited < 30, f"sphinx-build took {waited:.1f} s to stop"
    assert _gone(process, within=10), "the example's process outlived the build"
    assert list((source / ".jupyter_cache").glob("flax-errors/*.json")) == []


def _gone(pid: int, within: float) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


@pytest.mark.sphinx("html", testroot="no-raise")
def test_bad_example_that_raises_nothing(app: SphinxTestApp) -> None:
    catalogue = build(app)
    assert app.statuscode == 1
    example = entry(catalogue, "SilentError")["examples"][0]
    assert example["status"] == "no-raise"
    assert re.search(
        r"no_raise_errors\.py:\d+: WARNING: .*bad example no-raise: expected "
        r"no_raise_errors\.SilentError to be raised",
        warnings(app),
    )


@pytest.mark.sphinx("html", testroot="wrong-class")
def test_bad_example_that_raises_another_class(app: SphinxTestApp) -> None:
    catalogue = build(app)
    assert app.statuscode == 1
    # A subclass with the same text is still not *exactly* the documented class.
    assert entry(catalogue, "ExpectedError")["examples"][0]["status"] == "wrong-class"
    assert entry(catalogue, "OtherError")["examples"][0]["status"] == "passed"
    assert (
        "raised wrong_class_errors.OtherError, but the docstring documents "
        "wrong_class_errors.ExpectedError" in warnings(app)
    )
    # Only the passing entry's run is cached: an undocumented exception may come
    # from the environment, so that entry runs again next time.
    assert _cache_records(app) == 1


@pytest.mark.sphinx("html", testroot="good-raises")
def test_good_example_that_raises(app: SphinxTestApp) -> None:
    catalogue = build(app)
    assert app.statuscode == 1
    assert entry(catalogue, "FixError")["examples"][0]["status"] == "raised"
    assert "a good example raised KeyError" in warnings(app)
    assert '<span class="gr">KeyError</span>' in page(app, "good_raises_errors")
    # The failure is not kept: the next build runs the entry again.
    assert _cache_records(app) == 0


@pytest.mark.sphinx("html", testroot="timeout")
def test_example_past_the_timeout(app: SphinxTestApp) -> None:
    catalogue = build(app)
    assert app.statuscode == 1
    assert entry(catalogue, "SlowError")["examples"][0]["status"] == "timed-out"
    assert re.search(
        r"timeout_errors\.py:\d+: WARNING: .*timed-out: an example ran past the "
        r"3 s timeout",
        warnings(app),
    )
    assert "Traceback" not in warnings(app)
    assert _cache_records(app) == 0


@pytest.mark.sphinx("html", testroot="dead-process")
def test_example_that_kills_its_process(app: SphinxTestApp) -> None:
    catalogue = build(app)
    assert app.statuscode == 1
    assert entry(catalogue, "FatalError")["examples"][0]["status"] == "crashed"
    text = warnings(app)
    assert re.search(
        r"dead_process_errors\.py:\d+: WARNING: .*crashed: "
        r"the process that ran its examples ended",
        text,
    )
    assert "Traceback" not in text
    # Nothing was cached, so the next build runs it again instead of trusting it.
    assert _cache_records(app) == 0


@pytest.mark.sphinx("html", testroot="passing", freshenv=True)
def test_a_cache_that_fails_is_the_entrys_crash_not_the_builds(
    app: SphinxTestApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    def lost(*_: Any, **__: Any) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(RunStore, "get", lost)
    catalogue = build(app)

    assert app.statuscode == 1
    examples = entry(catalogue, "ShapeError")["examples"]
    assert [e["status"] for e in examples] == ["crashed", "crashed"]
    # Its traceback, for whoever reports it, is in errors.json and never in a warning.
    assert all(e["log"].startswith("Traceback (most recent call last):") for e in examples)
    assert all("in lost\n" in e["log"] for e in examples)
    text = warnings(app)
    assert re.search(
        r"passing_errors\.py:\d+: WARNING: .*crashed: flax-errors could not run it: "
        r"OperationalError: disk I/O error",
        text,
    )
    assert "Traceback" not in text
    assert "Extension error" not in text


def _cache_records(app: SphinxTestApp) -> int:
    return len(list((Path(app.outdir).parent / ".jupyter_cache" / "flax-errors").glob("*.json")))


@pytest.mark.sphinx("html", testroot="malformed")
def test_malformed_docstrings_are_located_and_the_rest_still_builds(app: SphinxTestApp) -> None:
    catalogue = build(app)
    assert app.statuscode == 1
    text = warnings(app)
    assert re.search(
        r"malformed_errors\.py:11: WARNING: .*NoTracebackError: a bad example must "
        r"end in the documented traceback",
        text,
    )
    assert re.search(
        r"malformed_errors\.py:18: WARNING: .*UnknownTitleError: unknown section "
        r"title 'Fixed example:'",
        text,
    )
    assert re.search(
        r"malformed_errors\.py:29: WARNING: .*BrokenSyntaxError: broken doctest "
        r"syntax",
        text,
    )
    assert text.count("[flax-errors.malformed]") == 3
    # Broken inline markup in our own prose is reported at its line (and fails -W).
    assert re.search(
        r"malformed_errors\.py:46: (WARNING|ERROR): Inline literal start-string without "
        r"end-string",
        text,
    ), text
    assert entry(catalogue, "FineError")["status"] == "passed"
    assert entry(catalogue, "NoTracebackError")["status"] == "malformed"


@pytest.mark.sphinx("html", testroot="undocumented")
def test_undocumented_class_is_a_warning(app: SphinxTestApp) -> None:
    catalogue = build(app)
    assert app.statuscode == 0
    assert {e["name"]: e["status"] for e in catalogue["entries"]} == {
        "BareError": "undocumented",
        "NoDocstringError": "undocumented",
    }
    text = warnings(app)
    assert re.search(
        r"undocumented_errors\.py:\d+: WARNING: undocumented_errors\.BareError has "
        r"no examples",
        text,
    )
    assert "[flax-errors.undocumented]" in text


@pytest.mark.sphinx("html", testroot="undocumented", confoverrides={"flax_errors_strict": True})
def test_undocumented_class_fails_a_strict_build(app: SphinxTestApp) -> None:
    build(app)
    assert app.statuscode == 1
    assert "ERROR: undocumented_errors.BareError has no examples" in warnings(app)


@pytest.mark.sphinx("html", testroot="isolation")
def test_examples_of_different_errors_do_not_share_state(app: SphinxTestApp) -> None:
    catalogue = build(app)
    # The second entry documents float32 and an untouched module: it only passes
    # when the first entry's x64 flag and assignment did not reach it.
    assert app.statuscode == 0, warnings(app)
    assert {e["name"]: e["status"] for e in catalogue["entries"]} == {
        "FirstError": "passed",
        "SecondError": "passed",
    }


@pytest.mark.sphinx("html", testroot="incremental")
def test_rebuilds_execute_only_what_changed(app: SphinxTestApp, make_app: MakeApp) -> None:
    catalogue = build(app)
    assert catalogue["executed"] == [
        "incremental_errors.EditedError",
        "incremental_errors.KeptError",
    ]

    unchanged = rebuild(make_app, app)
    assert read_catalogue(Path(unchanged.outdir))["executed"] == []
    # Not even read again: no dependency of the page looks changed.
    assert "0 added, 0 changed, 0 removed" in unchanged.status.getvalue()
    assert unchanged.statuscode == 0

    module = Path(app.srcdir) / "incremental_errors.py"
    module.write_text(
        module.read_text().replace('print("before")\n      before', 'print("after")\n      after')
    )
    edited = rebuild(make_app, app)
    catalogue = read_catalogue(Path(edited.outdir))
    assert catalogue["executed"] == ["incremental_errors.EditedError"]
    assert edited.statuscode == 0
    assert entry(catalogue, "EditedError")["examples"][0]["actual"] == "after\n"
    assert _cache_records(app) == 3


@pytest.mark.sphinx("html", testroot="parallel", parallel=2)
def test_parallel_build_matches_serial(
    app: SphinxTestApp, make_app: MakeApp, tmp_path: Path
) -> None:
    parallel = build(app)
    assert app.statuscode == 1

    serial_app = make_app("html", srcdir=app.srcdir, builddir=tmp_path / "serial", parallel=1)
    serial_app.build()
    serial = read_catalogue(Path(serial_app.outdir))

    def verdicts(catalogue: dict[str, Any]) -> dict[str, list[str]]:
        return {e["qualname"]: [x["status"] for x in e["examples"]] for e in catalogue["entries"]}

    assert (
        verdicts(parallel)
        == verdicts(serial)
        == {
            "parallel_a_errors.DriftedAError": ["drifted"],
            "parallel_a_errors.PageAError": ["passed", "passed"],
            "parallel_b_errors.DriftedBError": ["drifted"],
            "parallel_b_errors.PageBError": ["passed", "passed"],
        }
    )
    assert serial_app.statuscode == 1
    for module in ("parallel_a_errors", "parallel_b_errors"):
        assert _entries_html(page(app, module)) == _entries_html(page(serial_app, module))


def _entries_html(html: str) -> str:
    """Every entry's section, of the pages of one module."""
    entries = re.findall(r'<section class="flax-errors-entry".*?(?=</main>|$)', html, re.S)
    assert entries
    # When each build checked its entries is the one thing that may differ.
    return re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d( UTC)?", "<time>", "".join(entries))


@pytest.mark.sphinx("html", testroot="incremental")
def test_settings_that_only_change_speed_read_nothing_again(
    app: SphinxTestApp, make_app: MakeApp
) -> None:
    build(app)
    faster = {"flax_errors_jobs": 1}

    again = rebuild(make_app, app, confoverrides=faster)
    assert "0 added, 0 changed, 0 removed" in again.status.getvalue()

    # A setting that can change a verdict reads every page again.
    again = rebuild(make_app, app, confoverrides={**faster, "flax_errors_timeout": 60})
    assert "[config changed" in again.status.getvalue()


@pytest.mark.sphinx("html", testroot="incremental")
def test_another_device_reexecutes_every_entry(
    app: SphinxTestApp, make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    build(app)
    h200 = Device("gpu", "NVIDIA H200", 1)
    # A GPU appears: the cheap inventory changes, so the device is probed again.
    monkeypatch.setattr(
        "flax_errors_ext.execution.cache.probe.device_inventory", lambda: {"gpu": 1}
    )
    # The build asks a process of its runner, which would see the GPU.
    monkeypatch.setattr(Runner, "probe", lambda self: h200)

    again = rebuild(make_app, app)

    assert read_catalogue(Path(again.outdir))["executed"] == [
        "incremental_errors.EditedError",
        "incremental_errors.KeptError",
    ]


def test_a_build_served_wholly_from_the_cache_starts_no_process(
    make_app: MakeApp, rootdir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[int] = []
    start = Runner._start

    def counted(self: Runner) -> Any:
        started.append(1)
        return start(self)

    monkeypatch.setattr(Runner, "_start", counted)
    srcdir = tmp_path / "passing"
    shutil.copytree(rootdir / "test-passing", srcdir)
    first = make_app("html", srcdir=srcdir)
    assert build(first)["executed"] == ["passing_errors.ShapeError"]
    started.clear()

    # Every page read again, every entry from the cache, the device known: no
    # process, so no forkserver importing jax and flax for none.
    again = make_app("html", srcdir=srcdir, freshenv=True)
    catalogue = build(again)
    assert catalogue["executed"] == []
    assert entry(catalogue, "ShapeError")["examples"][0]["status"] == "passed"
    assert started == []

    # The entry that must run starts its process.
    path = srcdir / "passing_errors.py"
    path.write_text(path.read_text().replace(">>> print(shape)", ">>> print(shape)  # again"))
    edited = make_app("html", srcdir=srcdir)
    assert build(edited)["executed"] == ["passing_errors.ShapeError"]
    assert len(started) == 1


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("flax_errors_timeout", 0, "flax_errors_timeout must be a positive whole number"),
        ("flax_errors_modules", 42, "flax_errors_modules must be a list"),
        ("flax_errors_strict", "yes", "flax_errors_strict must be True or False"),
    ],
)
def test_invalid_settings_are_named(
    make_app: MakeApp, rootdir: Path, tmp_path: Path, name: str, value: object, message: str
) -> None:

    from sphinx.errors import ConfigError

    srcdir = tmp_path / "passing"
    shutil.copytree(rootdir / "test-passing", srcdir)
    with (srcdir / "conf.py").open("a") as conf:
        conf.write(f"{name} = {value!r}\n")
    with pytest.raises(ConfigError, match=message):
        make_app("html", srcdir=srcdir)


@pytest.mark.sphinx("html", testroot="output-limit")
def test_output_over_the_limit_is_judged_whole_and_kept_cut(
    app: SphinxTestApp, make_app: MakeApp
) -> None:
    limit, marker = 500, "characters cut; the example was judged on the full output] ..."
    catalogue = build(app)

    def verdicts(catalogue: dict[str, Any]) -> dict[str, list[str]]:
        return {e["name"]: [x["status"] for x in e["examples"]] for e in catalogue["entries"]}

    # Judged on the whole 300 KB: the documented rows 7500 lie in the part a cut
    # leaves out, and the drifted end is still found out.
    assert verdicts(catalogue) == {
        "HugeMessageError": ["passed", "passed"],
        "DriftingOutputError": ["drifted"],
    }
    assert app.statuscode == 1
    text = warnings(app)
    assert "drift" in text
    assert "+row 14999 = 7499.5" in text
    assert len(text) < 10 * limit
    for record in catalogue["entries"]:
        for example in record["examples"]:
            assert marker in example["actual"]
            assert len(example["actual"]) < 2 * limit
    bad, good = entry(catalogue, "HugeMessageError")["examples"]
    assert "row 7500 = 3750.0" in good["actual"]
    assert bad["actual"].startswith("output_limit_errors.HugeMessageError: The batch has")
    html = page(app, "output_limit_errors")
    assert marker in html
    assert "row 10000 = 5000.0" not in html
    assert len(html) < 50_000
    assert (Path(app.outdir) / "errors.json").stat().st_size < 20_000

    # Cached cut, verdicts and all: nothing runs again.
    again = rebuild(make_app, app)
    assert verdicts(read_catalogue(Path(again.outdir))) == verdicts(catalogue)
    assert read_catalogue(Path(again.outdir))["executed"] == []


@pytest.mark.sphinx("html", testroot="upstream")
def test_upstream_examples_run_with_verdicts_of_their_own(
    app: SphinxTestApp, make_app: Callable[..., SphinxTestApp]
) -> None:
    app.build()
    warnings = app.warning.getvalue()

    # The library's own doctest drifted: a warning of its own type, at its docstring,
    # which leaves the entry (whose catalogue examples pass) passed.
    assert re.search(
        r"upstream_lib\.py:\d+: WARNING: upstream_lib\.StaleError: upstream ", warnings
    )
    assert warnings.count("[flax-errors.upstream]") == 1
    assert "what the docstring once printed" in warnings
    # Their cross-references resolve nowhere here: plain text, no warning.
    assert "their-own-label" not in warnings
    assert "their.own.function" not in warnings
    document = read_catalogue(Path(app.outdir))
    by_name = {e["name"]: e for e in document["entries"]}
    assert {name: e["status"] for name, e in by_name.items()} == {
        "HeldError": "passed",
        "StaleError": "passed",
    }
    upstream = {
        name: [x["status"] for x in e["examples"] if x["kind"] == "upstream"]
        for name, e in by_name.items()
    }
    assert upstream == {"HeldError": ["passed"], "StaleError": ["drifted"]}
    page = module_html(Path(app.outdir), "api_reference/upstream_lib")
    assert "own examples</label>" in page  # the upstream tab
    # Unresolved references are code, not styled as the links they are not.
    assert "their.own.function()" in page
    assert 'class="xref' not in page

    # The project decides what upstream drift is: an error, or only shown.
    strict = make_app("html", srcdir=app.srcdir, confoverrides={"flax_errors_upstream": "error"})
    strict.build()
    assert strict.statuscode == 1
    assert "[flax-errors.upstream]" in strict.warning.getvalue()
    shown = make_app("html", srcdir=app.srcdir, confoverrides={"flax_errors_upstream": "show"})
    shown.build()
    assert shown.statuscode == 0
    assert "[flax-errors." not in shown.warning.getvalue()
    off = make_app("html", srcdir=app.srcdir, confoverrides={"flax_errors_upstream": "off"})
    off.build()
    kinds = {x["kind"] for e in read_catalogue(Path(off.outdir))["entries"] for x in e["examples"]}
    assert kinds == {"bad", "good"}


@pytest.mark.sphinx("html", testroot="holds-for")
def test_examples_for_other_versions_are_shown_not_run(app: SphinxTestApp) -> None:
    catalogue = build(app)
    assert app.statuscode == 0, warnings(app)
    changed = entry(catalogue, "ChangedError")
    assert changed["status"] == "passed"
    assert [e["status"] for e in changed["examples"]] == ["other-versions", "passed", "passed"]
    # Unreachable on these versions: the bad example that could raise it is for others.
    assert entry(catalogue, "RetiredError")["status"] == "unreachable"
    html = page(app, "versioned_errors")
    assert "Holds for python &gt;= 3 and flax &gt;= 0.1." in html
    assert "Bad example 1 (python &lt; 3)" in html
    assert re.search(
        r"Not run in this build: it holds for python &lt; 3; this run has python 3\.", html
    )


@pytest.mark.sphinx("html", testroot="unforwarded")
def test_a_printed_link_to_a_page_this_site_lacks_is_a_located_warning(
    app: SphinxTestApp,
) -> None:
    app.build()
    text = warnings(app)
    assert re.search(
        r"linked_errors\.py:\d+: WARNING: linked_errors\.MovedError: the error links to "
        r"https://up\.example/en/v2/linked_errors\.html, a page this site neither has nor "
        r"forwards",
        text,
    )
    # A link to a guide of that site, and one to the error's own page, are no such page.
    assert "guide.html" not in text
    assert "HomeError" not in text


@pytest.mark.sphinx("html", testroot="notebooks-off")
def test_entries_run_while_the_projects_notebooks_stay_unexecuted(app: SphinxTestApp) -> None:
    catalogue = build(app)

    assert app.statuscode == 0
    assert "flax-errors" not in warnings(app)
    record = entry(catalogue, "ShapeError")
    assert record["status"] == "passed"
    assert record["executed"]
    # The project's notebook is shown as saved: its cell has no output.
    guide = (Path(app.outdir) / "guide.html").read_text(encoding="utf-8")
    assert "print" in guide
    assert "executed here" not in guide


@pytest.mark.sphinx(
    "html", testroot="notebooks-off", confoverrides={"flax_errors_execution_mode": "auto"}
)
def test_entries_follow_the_notebooks_execution_mode_by_default(app: SphinxTestApp) -> None:
    catalogue = build(app)

    record = entry(catalogue, "ShapeError")
    assert record["status"] == "not-run"
    assert not record["executed"]
