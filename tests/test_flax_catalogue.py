"""Flax's and JAX's errors: every one catalogued, unreachable claims kept honest, URLs
round-trip.

The examples of their errors live in ``flax_errors_ext/catalogue/<module>/``, one
file per error, because their docstrings cannot be edited here.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from sphinx.testing.util import SphinxTestApp

from flax_errors_ext.layout import base_url
from flax_errors_ext.model.catalogue.discover import SHIPPED_CATALOGUE, catalogue_paths
from flax_errors_ext.model.catalogue.records import ErrorEntry, ExampleKind, Verdict
from flax_errors_ext.model.config.values import KNOWN_MODULES
from flax_errors_ext.model.runs.judge import judge
from tests.utils import (
    FLAX,
    INSTALLED,
    JAX,
    MODULES,
    OURS,
    read_catalogue,
    run_in_process,
    site_runs,
)

pytestmark = pytest.mark.examples

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

REACHABLE = [
    e for e in FLAX.entries + OURS.entries + JAX.entries if not e.unreachable_with(INSTALLED)
]
_URL = re.compile(r"(https?://\S+?\.html)#([\w.]+)")
PRINTING_URLS = [
    e
    for e in REACHABLE
    if any(_URL.search(s.exc_msg or "") for x in e.examples for s in x.statements)
]
"""The errors whose documented text prints a URL (not all of JAX's do); the
build's drift check holds the raised text to it."""
UNREACHABLE = [e for e in FLAX.entries if e.unreachable_with(INSTALLED)]
MESSAGES = MODULES["flax.messages"].entries + MODULES["jax.messages"].entries
"""The errors Flax and JAX raise as builtin exceptions, one message entry each."""


@pytest.mark.parametrize("entry", FLAX.entries + JAX.entries, ids=lambda e: e.qualname)
def test_every_flax_and_jax_error_is_catalogued(entry: ErrorEntry) -> None:
    (path,) = catalogue_paths([SHIPPED_CATALOGUE], entry.qualname)
    assert path.is_file(), f"{entry.qualname} has no catalogue file at {path}"
    assert entry.problems == ()
    kinds = {example.kind for example in entry.examples}
    # Every entry shows what to do, even one that cannot be raised here.
    assert ExampleKind.GOOD in kinds
    assert ExampleKind.BAD in kinds or ExampleKind.UNREACHABLE in kinds


@pytest.mark.parametrize("entry", MESSAGES, ids=lambda e: e.qualname)
def test_a_message_entry_raises_its_builtin_with_the_documented_text_here(
    entry: ErrorEntry,
) -> None:
    assert entry.message
    assert entry.problems == ()
    assert ExampleKind.GOOD in {example.kind for example in entry.examples}
    held = [e for e in entry.examples if e.holds(INSTALLED) and e.kind.ours]
    assert any(e.kind in (ExampleKind.BAD, ExampleKind.UNREACHABLE) for e in held)
    for example in held:
        result = judge(example, tuple(run_in_process(entry, example)))
        assert result.verdict is Verdict.PASSED, f"{example}: {result.detail}\n{result.diff}"
    raised = {e.documented_class for e in held if e.kind is ExampleKind.BAD}
    assert raised <= set(entry.raised_as)
    # Python's own classes, as Python prints them: builtins, or the standard library's.
    assert all(
        name and ("." not in name or name.split(".")[0] in sys.stdlib_module_names)
        for name in raised
    ), "a builtin, as Python prints it"


@pytest.mark.parametrize("entry", UNREACHABLE, ids=lambda e: e.name)
def test_unreachable_claims_hold(entry: ErrorEntry) -> None:
    """The evidence is re-checked here: a Flax that raises the error again fails this."""
    for example in entry.examples:
        if example.kind is ExampleKind.UNREACHABLE and example.holds(INSTALLED):
            result = judge(example, tuple(run_in_process(entry, example)))
            assert result.verdict is Verdict.PASSED, result.diff or result.detail


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The real site, built once with execution off: pages and ids do not depend on it."""
    import shutil

    srcdir = tmp_path_factory.mktemp("site") / "docs"
    shutil.copytree(
        Path(__file__).parents[1] / "docs", srcdir, ignore=shutil.ignore_patterns("_build")
    )
    shutil.copy(Path(__file__).parents[1] / "conf.py", srcdir / "conf.py")
    app = SphinxTestApp(
        "html",
        srcdir=srcdir,
        confoverrides={"nb_execution_mode": "off", "flax_errors_device_runs": site_runs()},
    )
    try:
        app.build()
        yield Path(app.outdir)
    finally:
        app.cleanup()


@pytest.mark.parametrize("entry", PRINTING_URLS, ids=lambda e: e.name)
def test_printed_url_lands_on_the_entry(entry: ErrorEntry, site: Path) -> None:
    bad = next(e for e in entry.examples if e.kind is ExampleKind.BAD and e.holds(INSTALLED))
    raised = run_in_process(entry, bad)[-1]
    assert raised.exc_type == entry.qualname, raised.transcript

    match = _URL.search(raised.exc_msg or "")
    assert match, f"no URL in {raised.exc_msg!r}"
    url, fragment = match.groups()
    assert fragment == entry.qualname
    upstreams = [known["upstream"] for known in KNOWN_MODULES.values() if "upstream" in known]
    for base in (*upstreams, base_url()):
        url = url.replace(base + "/", "")
    page = site / url
    assert page.is_file(), f"{match.group(0)} maps to missing {page}"
    forward = _FORWARD.search(page.read_text())
    if forward:  # a page this site forwards (JAX's 101/errors.html), anchor kept
        page = (page.parent / forward.group(1)).resolve()
    assert f'id="{fragment}"' in page.read_text()


_FORWARD = re.compile(r'<meta http-equiv="refresh" content="0; url=([^"#]+)')


@pytest.mark.sphinx("html", testroot="old-wording")
def test_rewording_in_flax_fails_the_build_with_a_diff(
    app: SphinxTestApp, make_app: Callable[..., SphinxTestApp]
) -> None:
    app.build()
    text = app.warning.getvalue()

    assert app.statuscode == 1
    assert re.search(
        r"old_catalogue/flax\.errors/ScopeParamShapeError\.txt:9: WARNING: "
        r"flax\.errors\.ScopeParamShapeError: bad example drifted",
        text,
    )
    assert "-flax.errors.ScopeParamShapeError: Inconsistent shapes between value and" in text
    assert '+flax.errors.ScopeParamShapeError: For parameter "kernel" in "/", the given' in text
    # The project's file replaces the shipped one for that error alone.
    assert "[flax-errors.undocumented]" not in text
    assert read_catalogue(Path(app.outdir))["summary"]["entries"] == 1

    # The next build checks the failing entry again (drift is a fact of the code:
    # its run comes from the cache) and still fails on it.
    again = make_app("html", srcdir=app.srcdir)
    again.build()
    assert "0 added, 1 changed, 0 removed" in again.status.getvalue()
    assert read_catalogue(Path(again.outdir))["executed"] == []
    assert again.statuscode == 1
    assert "bad example drifted" in again.warning.getvalue()
