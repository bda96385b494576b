"""The site search answers a pasted error as ``flax-errors explain`` does, in a real browser.

One browser, one built site (execution off), one tab: every documented message,
old wording and real uncatalogued error (``tests/model/lookup/negatives.toml``)
is put to the search page's lookup and to :func:`~flax_errors_ext.model.lookup.find.find`,
and their answers must agree; each documented message's exception line, typed
into the search page, must bring its entry's own page first.
"""

from __future__ import annotations

import json
import shutil
import tomllib
import urllib.parse
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from flax_errors_ext.cli.selection import DEFAULT_MODULES
from flax_errors_ext.execution.catalogue.modules import load_module
from flax_errors_ext.execution.history.files import read_histories
from flax_errors_ext.model.history.releases import SHIPPED
from flax_errors_ext.model.lookup.find import by_entry, find, recorded_wordings
from flax_errors_ext.model.lookup.patterns import keeps_distinctive, normalise
from flax_errors_ext.model.lookup.texts import documented_messages, generic, raise_sites
from flax_errors_ext.model.runs.entry_record import EntryRecord
from tests.chromium import NEEDS_CHROMIUM
from tests.served_site import build_html, serve
from tests.utils import site_runs

if TYPE_CHECKING:
    from collections.abc import Iterator

    from playwright.sync_api import Page

    from flax_errors_ext.model.catalogue.records import ErrorEntry

ROOT = Path(__file__).parents[3]
MODULES = DEFAULT_MODULES
"""The real site's modules and groups of message entries (``conf.py``), in its order."""
NEGATIVES = [
    case
    for case in tomllib.loads((ROOT / "tests/model/lookup/negatives.toml").read_text("utf-8"))[
        "negative"
    ]
    if "entry" not in case  # documented since, by a message entry
]
PASTES = tomllib.loads((ROOT / "tests/model/lookup/pastes.toml").read_text("utf-8"))["paste"]
"""Real errors pasted in public threads: each finds its entry (or, marked ``miss``, none)."""

pytestmark = [
    pytest.mark.examples,
    NEEDS_CHROMIUM,
]


@pytest.fixture(scope="module")
def site_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The real site, built with execution off, served from localhost."""
    srcdir = tmp_path_factory.mktemp("search-site") / "docs"
    shutil.copytree(ROOT / "docs", srcdir, ignore=shutil.ignore_patterns("_build"))
    shutil.copy(ROOT / "conf.py", srcdir / "conf.py")
    yield from serve(next(build_html(srcdir, flax_errors_device_runs=site_runs())))


def _sites(entries: list[ErrorEntry]) -> dict[str, dict[int, tuple[str, ...]]]:
    """Where the site's other runs raised each example, as the search page reads them."""
    records = [
        EntryRecord.from_json(record)
        for run in site_runs()
        for record in json.loads(Path(run).read_text("utf-8"))["entries"]
    ]
    return raise_sites(entries, records)


def _corpus() -> tuple[list[ErrorEntry], dict[str, list[str]], list[tuple[str, str]]]:
    """The entries, old wordings by entry, and every (query, what it is) to put to both."""
    entries = [entry for name in MODULES for entry in load_module(name).entries]
    histories, _ = read_histories(ROOT, [SHIPPED], set(MODULES))
    wordings = recorded_wordings(histories.values())
    queries: list[tuple[str, str]] = []
    for entry in entries:
        for n, (_, message) in enumerate(documented_messages(entry)):
            line = message.split("\n", 1)[0]
            queries += [(f"{entry.qualname}: {line}", f"{entry.name} {n}, exception line")]
            queries += [(line, f"{entry.name} {n}, first line"), (message, f"{entry.name} {n}")]
    queries += [(w.text, f"{w.qualname} as flax {w.versions} worded it") for w in wordings]
    for case in NEGATIVES:
        text = case["text"]
        queries += [(text, case["id"]), (text.split("\n", 1)[0], f"{case['id']}, exception line")]
    queries += [(paste["text"], paste["source"]) for paste in PASTES]
    older = {name: list(texts) for name, texts in by_entry(wordings).items()}
    return entries, older, queries


def _search_page(page: Page, site_url: str, query: str = "") -> None:
    page.goto(site_url + "search.html?q=" + urllib.parse.quote(query))
    page.wait_for_function("() => typeof window.FLAX_ERRORS_LOOKUP === 'function'")


def test_the_site_search_answers_every_paste_as_explain_does(page: Page, site_url: str) -> None:
    entries, older, queries = _corpus()
    sites = _sites(entries)
    _search_page(page, site_url)
    answered = page.evaluate(
        "(queries) => queries.map((q) => window.FLAX_ERRORS_LOOKUP(q))", [q for q, _ in queries]
    )

    disagree = []
    for (query, what), theirs in zip(queries, answered, strict=True):
        ours = find(entries, query, older, sites)
        best = [m.entry.qualname for m in ours if (m.how, m.score) == (ours[0].how, ours[0].score)]
        if (theirs[:1] == [] and best) or (theirs[:1] != [] and theirs[0] not in best):
            disagree.append((what, best, theirs[:3]))
    assert len(queries) > 300
    assert disagree == []


def test_a_documented_exception_line_brings_its_entry_first(page: Page, site_url: str) -> None:
    entries, older, _ = _corpus()
    wrong = []
    checked = 0
    for entry in entries:
        for _, message in documented_messages(entry):
            line = message.split("\n", 1)[0]
            if entry.message and generic(line):
                continue  # Python's own words for any object: one line cannot tell which
            if not keeps_distinctive(normalise(message), normalise(line)):
                continue  # JAX's pytree words open several entries': the class tells which
            # Two errors Flax raises with one text are both first for explain.
            ours = find(entries, line, older)
            best = {
                m.entry.qualname for m in ours if (m.how, m.score) == (ours[0].how, ours[0].score)
            }
            assert entry.qualname in best, line
            _search_page(page, site_url, line)
            page.wait_for_function(
                "() => document.querySelector('#search-results p.search-summary')?.innerText"
            )
            first = page.locator("#search-results li > a").first.get_attribute("href") or ""
            checked += 1
            if first.partition("#")[2] not in best:
                wrong.append((entry.qualname, line[:60], first))
    assert checked > 50
    assert wrong == []


def test_an_uncatalogued_error_brings_no_entry_as_a_match(page: Page, site_url: str) -> None:
    for case in NEGATIVES:
        _search_page(page, site_url, case["text"].split("\n", 1)[0])
        page.wait_for_function(
            "() => document.querySelector('#search-results p.search-summary')?.innerText"
        )
        assert page.locator("#search-results li.kind-flax-errors").count() == 0, case["id"]


def test_a_real_paste_brings_its_entry_first_and_a_negative_none(
    page: Page, site_url: str
) -> None:
    wrong = []
    for paste in PASTES:
        expected = paste["entry"] if paste.get("entry") and "miss" not in paste else ""
        _search_page(page, site_url, paste["text"])
        page.wait_for_function(
            "() => document.querySelector('#search-results p.search-summary')?.innerText"
        )
        ours = page.locator("#search-results li.kind-flax-errors > a")
        first = (ours.first.get_attribute("href") or "") if ours.count() else ""
        if first.partition("#")[2] != expected:
            wrong.append((paste["source"], expected, first))
    assert wrong == []


def test_a_class_named_for_another_cause_is_not_claimed_as_explain_does(
    page: Page, site_url: str
) -> None:
    _search_page(page, site_url)
    x64_on_tpu = (
        "jax.errors.JaxRuntimeError: UNIMPLEMENTED: While rewriting computation to not contain "
        "X64 element types, XLA encountered an HLO for which this rewriting is not implemented"
    )
    ffi = (
        "jax.errors.JaxRuntimeError: NOT_FOUND: No FFI handler registered for rms_norm on a "
        "platform Host (canonical host)"
    )

    lookup = "(q) => window.FLAX_ERRORS_LOOKUP(q)"
    assert page.evaluate(lookup, x64_on_tpu) == []
    assert page.evaluate(lookup, ffi)[:1] == ["jax.errors.JaxRuntimeError"]


def test_the_same_words_raised_elsewhere_in_the_library_are_not_claimed_as_explain_does(
    page: Page, site_url: str
) -> None:
    _search_page(page, site_url)
    paste = (
        'Traceback (most recent call last):\n  File "/home/me/train.py", line 3, in <module>\n'
        '    save(model)\n  File "/venv/site-packages/flax/nnx/{file}", line 9, in f\n'
        "    return v.get_raw_value()\n"
        "AttributeError: 'jaxlib._jax.ArrayImpl' object has no attribute 'get_raw_value'\n"
    )

    lookup = "(q) => window.FLAX_ERRORS_LOOKUP(q)"
    at_site = page.evaluate(lookup, paste.format(file="graphlib.py"))
    elsewhere = page.evaluate(lookup, paste.format(file="variablelib.py"))

    assert at_site[:1] == ["flax.messages.CachedPartialRawArrayAttribute"]
    assert elsewhere == []
