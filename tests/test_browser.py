"""The site in a real browser: printed URLs land on their entries, pasted messages find them.

Debian's ``chromium`` runs headless under playwright; no browser is ever downloaded.
The site is built with execution off (the pages, anchors and search do not depend
on it) and served from localhost. Screenshots of the landing page and of an entry
go to the test's folder, and to ``$FLAX_ERRORS_ARTIFACTS`` when that is set.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import urllib.parse
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from flax_errors_ext.execution.history.files import read_histories
from flax_errors_ext.layout import FLAX_BASE_URL, base_url
from flax_errors_ext.model.catalogue.records import ErrorEntry, ExampleKind
from flax_errors_ext.model.config.values import KNOWN_MODULES
from flax_errors_ext.model.history.releases import SHIPPED
from flax_errors_ext.model.lookup.find import Wording, recorded_wordings
from tests.chromium import NEEDS_CHROMIUM, PAGE_HEIGHT, watched_tab
from tests.served_site import build_html, serve
from tests.utils import FLAX, OURS, run_in_process, site_runs
from tools.site_links import check_site
from tools.site_weight import BUDGET, weigh

if TYPE_CHECKING:
    from collections.abc import Iterator

    from playwright.sync_api import Browser, Page

ARTIFACTS_ENV_VAR = "FLAX_ERRORS_ARTIFACTS"
SCREEN_WIDTH, SCREEN_HEIGHT = 1280, 900
"""A laptop's window, where a reader lands from a traceback's URL (issue 15)."""
PHONE_WIDTH, PHONE_HEIGHT = 390, 844
"""A phone's screen, in CSS pixels."""
ROOT = Path(__file__).parents[1]

pytestmark = [
    pytest.mark.examples,
    NEEDS_CHROMIUM,
]

# JitPytreeError and two Flax errors: one early on its page, one near the end.
ERRORS = [
    "flax_errors_ext.errors.JitPytreeError",
    "flax.errors.ScopeParamShapeError",
    "flax.errors.TransformTargetError",
]
_ENTRIES = {entry.qualname: entry for entry in FLAX.entries + OURS.entries}
_URL = re.compile(r"(https?://\S+?\.html)#([\w.]+)")
JAX_BASE_URL = KNOWN_MODULES["jax.errors"]["upstream"]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The real site, as ``nox -s docs`` builds it, with execution off."""
    srcdir = tmp_path_factory.mktemp("browser-site") / "docs"
    shutil.copytree(ROOT / "docs", srcdir, ignore=shutil.ignore_patterns("_build"))
    shutil.copy(ROOT / "conf.py", srcdir / "conf.py")
    yield from build_html(srcdir, flax_errors_device_runs=site_runs())


@pytest.fixture(scope="module")
def site_url(site: Path) -> Iterator[str]:
    yield from serve(site)


@pytest.fixture
def screen(browser: Browser) -> Iterator[Page]:
    """A watched tab (the ``page`` fixture's kind) as large as a laptop's window."""
    yield from watched_tab(browser, width=SCREEN_WIDTH, height=SCREEN_HEIGHT)


@pytest.fixture
def phone(browser: Browser) -> Iterator[Page]:
    """A watched tab as wide and as tall as a phone's screen."""
    yield from watched_tab(browser, width=PHONE_WIDTH, height=PHONE_HEIGHT)


def _screenshot(page: Page, tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    page.screenshot(path=str(path))
    if os.environ.get(ARTIFACTS_ENV_VAR):
        folder = Path(os.environ[ARTIFACTS_ENV_VAR])
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, folder / name)
    return path


def _raised_message(entry: ErrorEntry) -> str:
    """Raise the entry's error here, from its first bad example, and return its text."""
    bad = next(e for e in entry.examples if e.kind is ExampleKind.BAD)
    raised = run_in_process(entry, bad)[-1]
    assert raised.exc_type == entry.qualname, raised.transcript
    return raised.exc_msg or ""


def _local(url: str, site_url: str) -> str:
    for base in (FLAX_BASE_URL, base_url()):
        url = url.replace(base + "/", site_url)
    return url


@pytest.mark.parametrize("qualname", ERRORS)
def test_printed_url_lands_on_the_entry(
    qualname: str, page: Page, site_url: str, tmp_path: Path
) -> None:
    entry = _ENTRIES[qualname]
    match = _URL.search(_raised_message(entry))
    assert match, f"{qualname} prints no URL"

    page.goto(_local(match.group(0), site_url))

    # The module's page, where the URL lands, takes the reader on to the entry's own.
    page.wait_for_url(f"**/{entry.site.page}.html#{qualname}")
    section = page.locator(f'section[id="{qualname}"]')
    heading = section.locator("h1, h2, h3").first
    assert heading.inner_text().rstrip("#¶ \n") == entry.name
    box = heading.bounding_box()
    assert box is not None
    assert box["y"] >= 0, box
    assert box["y"] + box["height"] <= PAGE_HEIGHT, box
    # What went wrong and the examples are on the first screen too.
    examples = section.locator(".flax-errors-shown").first
    assert examples.is_visible()
    examples_box = examples.bounding_box()
    assert examples_box is not None
    assert examples_box["y"] < PAGE_HEIGHT
    if qualname == "flax.errors.ScopeParamShapeError":
        _screenshot(page, tmp_path, "entry.png")


# Where the parts of the first screen are, from the top of the window.
_FIRST_SCREEN = """(qualname) => {
  const section = document.getElementById(qualname);
  const box = (selector) => {
    const found = section.querySelector(selector);
    if (!found) return null;
    const { top, bottom } = found.getBoundingClientRect();
    return { top, bottom };
  };
  const code = section.querySelector(".flax-errors-shown.good .flax-errors-transcript pre");
  return {
    height: window.innerHeight,
    title: box("h1, h2, h3"),
    fix: box(".flax-errors-fix"),
    status: box(".flax-errors-status"),
    bad: box(".flax-errors-shown.bad .flax-errors-transcript"),
    good: box(".flax-errors-shown.good .flax-errors-transcript"),
    line: code ? parseFloat(getComputedStyle(code).lineHeight) : null,
    padding: code ? parseFloat(getComputedStyle(code).paddingTop) : null,
  };
}"""


@pytest.mark.parametrize(
    ("qualname", "lines"),
    [
        # Its bad example is long: the fix's code starts on the first screen.
        ("flax.errors.ScopeParamShapeError", 3),
        # A short one: the fix's code is on the first screen whole.
        ("flax.errors.ApplyScopeInvalidVariablesTypeError", None),
    ],
)
def test_landing_shows_the_fix_and_its_code_on_the_first_screen(
    qualname: str, lines: int | None, screen: Page, site: Path, site_url: str, tmp_path: Path
) -> None:
    """A reader from a traceback sees the cause, the fix, the wrong code and the fixed code."""
    entry = _ENTRIES[qualname]
    good = next(e for e in entry.examples if e.kind is ExampleKind.GOOD)
    caption = good.description.split("\n\n")[0]
    screen.goto(site_url + _urls(site)[qualname])

    section = screen.locator(f'section[id="{qualname}"]')
    fix = section.locator(".flax-errors-fix")
    assert fix.inner_text().startswith("Fix: ")
    # The caption as the headline shows one: inline literals as code, nothing else.
    assert fix.inner_text() == "Fix: " + " ".join(caption.replace("``", "").split())
    # Both examples are open: no tab hides either.
    for kind in ("bad", "good"):
        assert section.locator(f".flax-errors-shown.{kind} .flax-errors-transcript").is_visible()
    shown = screen.evaluate(_FIRST_SCREEN, qualname)
    height = shown["height"]
    assert height == SCREEN_HEIGHT
    title, fix_box, status, bad, code = (
        shown[part] for part in ("title", "fix", "status", "bad", "good")
    )
    # In reading order: the name, the fix, the verification, then the wrong code and
    # the fixed code side by side, as high on the page as each other.
    assert 0 <= title["top"] < fix_box["top"] < status["top"] < bad["top"]
    assert status["top"] < code["top"] < height
    assert fix_box["bottom"] <= height, shown
    assert status["bottom"] <= height, shown
    if lines is None:
        assert code["bottom"] <= height, shown
    else:
        assert code["top"] + shown["padding"] + lines * shown["line"] <= height, shown
    _screenshot(screen, tmp_path, f"first-screen-{entry.name}.png")


# Where the code of the first bad and good example starts, from the top of the window.
_CODE_TOPS = """(qualname) => {
  const section = document.getElementById(qualname);
  const top = (kind) => {
    const code = section.querySelector(`.flax-errors-shown.${kind} .flax-errors-transcript pre`);
    return code ? code.getBoundingClientRect().top : null;
  };
  return { bad: top("bad"), good: top("good") };
}"""


def test_every_entry_shows_the_wrong_and_the_fixed_code_on_the_first_screen(
    screen: Page, phone: Page, site: Path, site_url: str
) -> None:
    """A laptop shows both codes from the first screen; a phone the wrong one, then the fix."""
    entries = json.loads((site / "errors.json").read_text())["entries"]
    with_bad = 0
    for entry in entries:
        url = site_url + entry["url"]
        tops = {}
        for tab, height in ((screen, SCREEN_HEIGHT), (phone, PHONE_HEIGHT)):
            tab.goto(url)
            tops[height] = found = tab.evaluate(_CODE_TOPS, entry["qualname"])
            if found["bad"] is None:
                break
            assert 0 < found["bad"] < height, (entry["qualname"], height, found)
        if tops[SCREEN_HEIGHT]["bad"] is None:
            continue
        with_bad += 1
        laptop, small = tops[SCREEN_HEIGHT], tops[PHONE_HEIGHT]
        if laptop["good"] is not None:
            assert 0 < laptop["good"] < SCREEN_HEIGHT, (entry["qualname"], laptop)
            assert small["good"] > small["bad"], (entry["qualname"], small)
    # Every entry with a bad example it can raise here has one open (JitPytreeError,
    # Flax's and JAX's, the message entries): none was skipped by a page that lost its
    # examples. An unreachable one has none to raise here (its bad examples, if any,
    # hold for other versions).
    reachable = [
        e
        for e in entries
        if any(x["kind"] == "bad" and x["status"] != "other-versions" for x in e["examples"])
    ]
    assert with_bad >= len(reachable), (with_bad, len(reachable))


def test_landing_page_says_what_and_links_to_the_index(
    page: Page, site: Path, site_url: str, tmp_path: Path
) -> None:
    catalogue = json.loads((site / "errors.json").read_text())

    page.goto(site_url + "index.html")

    main = page.locator("main")
    assert "executable catalogue of the errors Flax raises" in main.inner_text()
    assert f"{len(catalogue['entries'])} errors catalogued" in main.inner_text()
    link = page.get_by_role("link", name="Browse the error index")
    box = link.bounding_box()
    assert box is not None
    assert box["y"] + box["height"] <= PAGE_HEIGHT
    _screenshot(page, tmp_path, "landing.png")
    link.click()
    page.wait_for_url("**/error_index.html")
    rows = page.locator("table.flax-errors-index tbody tr")
    assert rows.count() == len(catalogue["entries"])


def _urls(site: Path) -> dict[str, str]:
    """Each entry's site-relative URL with its anchor, as ``errors.json`` gives it."""
    return {
        entry["qualname"]: entry["url"]
        for entry in json.loads((site / "errors.json").read_text())["entries"]
    }


def _phone_pages(site: Path) -> dict[str, str]:
    """The pages a reader opens on a phone: landing, index, a module's errors, an entry."""
    urls = _urls(site)
    return {
        "landing": "index.html",
        "error-index": "error_index.html",
        "flax-errors": "api_reference/flax.errors.html",
        "entry": urls["flax_errors_ext.errors.JitPytreeError"],
    }


# Elements that stick out of the window without a scrolling box to hold them.
_STICKING_OUT = """() => {
  const width = window.innerWidth;
  const held = (element) => {
    for (let box = element.parentElement; box && box !== document.body; box = box.parentElement) {
      if (getComputedStyle(box).overflowX !== "visible") return true;
    }
    return false;
  };
  return [...document.querySelectorAll("body *")]
    .filter((e) => e.getBoundingClientRect().right > width + 1 && !held(e))
    .map((e) => `${e.tagName.toLowerCase()}.${[...e.classList].join(".")}`)
    .slice(0, 10);
}"""


@pytest.mark.parametrize("name", ["landing", "error-index", "flax-errors", "entry"])
def test_phone_pages_never_scroll_sideways(
    name: str, phone: Page, site: Path, site_url: str, tmp_path: Path
) -> None:
    phone.goto(site_url + _phone_pages(site)[name])
    # Every dropdown open: full tracebacks hold the longest lines.
    phone.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")

    width = phone.evaluate("window.innerWidth")
    assert width == PHONE_WIDTH
    assert phone.evaluate("document.documentElement.scrollWidth") <= width, phone.evaluate(
        _STICKING_OUT
    )
    # Error text wraps in its box instead of running out of sight.
    for block in phone.locator(
        ".flax-errors-transcript pre, .flax-errors-full-traceback pre"
    ).all():
        assert block.evaluate("(e) => e.scrollWidth <= e.clientWidth"), block.inner_text()[:200]
    # The index fits its box: no column (the status, last) is cut off or scrolled away.
    for table in phone.locator("table.flax-errors-index").all():
        box = table.evaluate("(t) => [t.parentElement.scrollWidth, t.parentElement.clientWidth]")
        assert box[0] <= box[1], box
    for badge in phone.locator("table.flax-errors-index .sd-badge").all():
        box = badge.bounding_box()
        assert box is not None
        assert box["x"] + box["width"] <= width, badge.inner_text()
    _screenshot(phone, tmp_path, f"phone-{name}.png")


# For each text node of an element (a word, once <wbr>s split a name): on how many
# lines it is laid out, keyed by the top of its first line.
_WORD_LINES = """(element) => {
  const found = {};
  for (const node of element.childNodes) {
    if (node.nodeType !== Node.TEXT_NODE || !node.textContent.trim()) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const rects = [...range.getClientRects()];
    found[`${Math.round(rects[0].top)}:${node.textContent}`] = rects.length;
  }
  return found;
}"""


def test_phone_landing_shows_the_fix_on_the_first_screen(
    phone: Page, site: Path, site_url: str, tmp_path: Path
) -> None:
    qualname = "flax.errors.ScopeParamShapeError"
    phone.goto(site_url + _urls(site)[qualname])

    shown = phone.evaluate(_FIRST_SCREEN, qualname)
    assert 0 <= shown["title"]["top"] < shown["fix"]["top"]
    assert shown["fix"]["bottom"] <= PHONE_HEIGHT, shown
    assert shown["status"]["bottom"] <= PHONE_HEIGHT, shown
    assert shown["bad"]["top"] < PHONE_HEIGHT, shown  # and the wrong code begins
    # The name is too long for one line: it breaks between its words, not mid-word.
    heading = phone.locator(f'section[id="{qualname}"]').locator("h1, h2, h3").first
    assert heading.inner_text().rstrip("#¶ \n") == "ScopeParamShapeError"
    assert heading.evaluate("(h) => h.querySelectorAll('wbr').length") == 3
    lines = heading.evaluate(_WORD_LINES)
    assert len({key.partition(":")[0] for key in lines}) > 1, lines  # it wraps on a phone
    assert all(count == 1 for count in lines.values()), lines  # no word is split
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE_WIDTH
    _screenshot(phone, tmp_path, "phone-first-screen.png")


def _search(page: Page, site_url: str, text: str) -> list[str]:
    """Search the way a reader does: Ctrl+K on the landing page, paste, Enter."""
    page.goto(site_url + "index.html")
    page.keyboard.press("Control+k")
    field = page.locator("#pst-search-dialog input[name=q]")
    field.fill(text)
    field.press("Enter")
    page.wait_for_url("**/search.html?*")
    # Results are added one by one; the summary line is written after the last.
    page.wait_for_function(
        "() => document.querySelector('#search-results p.search-summary')?.innerText"
    )
    links = page.locator("#search-results li > a")
    return [str(links.nth(i).get_attribute("href")) for i in range(links.count())]


@pytest.mark.parametrize("qualname", ERRORS)
def test_pasted_message_finds_its_entry(qualname: str, page: Page, site_url: str) -> None:
    message = _raised_message(_ENTRIES[qualname])
    # A fragment from the middle of the message's first line, as a reader copies it.
    words = message.split("\n")[0].split()
    fragment = " ".join(words[2:14])

    found = _search(page, site_url, fragment)

    assert found, f"no results for {fragment!r}"
    assert found[0].endswith(f"#{qualname}"), (fragment, found[:5])


def test_a_message_with_other_names_and_shapes_still_finds_its_entry(
    page: Page, site_url: str
) -> None:
    message = _raised_message(_ENTRIES["flax.errors.ScopeParamShapeError"])
    theirs = (
        message.replace('"kernel"', '"bias"')
        .replace("Dense_0", "Dense_3")
        .replace("(4, 8)", "(16,)")
    )
    assert theirs != message

    found = _search(page, site_url, theirs.split(" (https://")[0])

    assert found[0].endswith("#flax.errors.ScopeParamShapeError"), found[:5]


def test_pythons_words_about_a_call_find_their_entry_where_the_paste_shows_it(
    page: Page, site_url: str
) -> None:
    """Flax 0.7.1's plain dicts: unpacking ``variables.pop('params')``, as find.py has it."""
    line = "ValueError: too many values to unpack (expected 2)"
    traceback = (
        'Traceback (most recent call last):\n  File "/home/me/train.py", line 9, in <module>\n'
        '    state, params = variables.pop("params")\n' + line
    )
    anchor = "#flax.messages.FrozenDictMethodOnDict"

    found = _search(page, site_url, traceback)
    # IPython's colours, as a page that dropped their escape characters shows them.
    coloured = _search(page, site_url, traceback.replace("ValueError", "[0;31mValueError[0m"))
    alone = _search(page, site_url, line)

    assert found[0].endswith(anchor), found[:5]
    assert coloured[:1] == found[:1], coloured[:5]
    assert not any(href.endswith(anchor) for href in alone), alone[:5]


def _first_result(page: Page) -> str:
    """The text of the first search result: its title and what the match was."""
    return page.locator("#search-results li").first.inner_text()


def test_the_seeds_own_message_finds_jit_pytree_error_and_says_install_turns_it(
    page: Page, site_url: str
) -> None:
    """Flax issue 853: JAX's TypeError, raised here without install(), pasted whole or in part."""
    entry = _ENTRIES["flax_errors_ext.errors.JitPytreeError"]
    seen_as = next(e for e in entry.examples if e.kind is ExampleKind.SEEN_AS)
    raised = [run for run in run_in_process(entry, seen_as) if run.exc_type == "TypeError"]
    assert len(raised) == 2, [run.transcript for run in raised]  # under jit and under grad
    for run in raised:
        message = run.exc_msg or ""  # as Python prints it: "TypeError: ...", JAX's note too
        first_line = message.split("\n", maxsplit=1)[0]
        for pasted in (message, first_line):
            found = _search(page, site_url, pasted)
            assert found, pasted
            assert found[0].endswith("#flax_errors_ext.errors.JitPytreeError"), (pasted, found)
            shown = _first_result(page)
            assert "Also seen as this error" in shown, shown
            assert "install" in shown, shown


def _past_wordings() -> list[Wording]:
    """Wordings of the shipped history that today's release no longer prints."""
    histories, problems = read_histories(ROOT, [SHIPPED], {"flax.errors"})
    assert problems == []
    return [w for w in recorded_wordings(histories.values()) if not w.current]


def test_an_old_wording_finds_its_entry_and_names_the_releases_that_printed_it(
    page: Page, site_url: str
) -> None:
    wording = next(w for w in _past_wordings() if w.qualname == "flax.errors.ScopeParamShapeError")
    pasted = wording.text.split(" (https://")[0]

    found = _search(page, site_url, pasted)

    assert found[0].endswith("#flax.errors.ScopeParamShapeError"), found[:5]
    assert f"Worded as flax {wording.versions} worded it" in _first_result(page)


def _retired_names() -> list[str]:
    histories, _ = read_histories(ROOT, [SHIPPED], {"flax.errors"})
    document = json.loads(Path(histories["flax.errors"].path).read_text("utf-8"))
    return [item["name"] for item in document["retired"]]


def test_old_anchors_land_on_retired_entries(
    screen: Page, site: Path, site_url: str, tmp_path: Path
) -> None:
    retired = _retired_names()
    assert len(retired) >= 3
    page_url = "api_reference/flax.errors.html"  # where printed URLs land
    for name in retired[:3]:
        screen.goto(f"{site_url}{page_url}#flax.errors.{name}")

        section = screen.locator(f'div.flax-errors-retired[id="flax.errors.{name}"]')
        heading = section.locator("p.rubric").first
        assert heading.inner_text().rstrip("#¶ \n") == name
        box = heading.bounding_box()
        assert box is not None
        assert box["y"] >= 0, (name, box)
        assert box["y"] + box["height"] <= SCREEN_HEIGHT, (name, box)
        assert "gone since" in section.inner_text()
    _screenshot(screen, tmp_path, "retired-entry.png")


def test_jaxs_newer_page_layout_lands_on_the_entry(page: Page, site_url: str) -> None:
    """JAX 0.12 prints .../en/latest/101/errors.html#...; the 3.13 stack's run says so."""
    run = json.loads((ROOT / "flax_errors_ext/history/python-3.13.json").read_text("utf-8"))
    printed = [
        match
        for entry in run["entries"]
        for example in entry["examples"]
        for match in _URL.finditer(example["actual"])
        if "/101/" in match.group(1)
    ]
    assert printed, "the 3.13 stack's run holds no JAX link of the 101/ layout"
    url, fragment = printed[0].groups()

    page.goto(url.replace(JAX_BASE_URL + "/", site_url) + "#" + fragment)

    page.wait_for_url(f"**/errors/{fragment.rpartition('.')[2]}.html#{fragment}")
    assert "/101/" not in page.url
    heading = page.locator(f'section[id="{fragment}"]').locator("h1, h2, h3").first
    box = heading.bounding_box()
    assert box is not None
    assert 0 <= box["y"] < PAGE_HEIGHT


def test_a_url_of_an_old_page_layout_lands_on_the_entry(
    page: Page, site: Path, site_url: str
) -> None:
    """Flax 0.4 and 0.5 printed .../en/latest/flax.errors.html#...: the URL still lands."""
    histories, _ = read_histories(ROOT, [SHIPPED], {"flax.errors"})
    printed = [
        match
        for release in histories["flax.errors"].releases
        for entry in release.entries.values()
        for run in entry.examples
        for match in _URL.finditer(run.exc_text)
        if "/api_reference/" not in match.group(1)
    ]
    assert printed, "no recorded release printed a URL of the old layout"
    old = printed[0]

    page.goto(_local(old.group(0), site_url))

    # The entry's page, or the module's where the error is retired.
    landing = _urls(site).get(old.group(2), f"api_reference/flax.errors.html#{old.group(2)}")
    page.wait_for_url(f"**/{landing}")
    heading = page.locator(f'section[id="{old.group(2)}"]').locator("h1, h2, h3").first
    box = heading.bounding_box()
    assert box is not None
    assert 0 <= box["y"] < PAGE_HEIGHT


def test_an_anchor_that_no_recorded_release_had_says_so(page: Page, site_url: str) -> None:
    """An error retired before the oldest recorded release still gets a word, not silence."""
    name = "ApplyScopeInvalidVariablesError"  # flax 0.3's; 0.4.2 no longer has it
    assert name not in _retired_names()
    page.goto(f"{site_url}api_reference/flax.errors.html#flax.errors.{name}")

    notice = page.locator("#flax-errors-missing-anchor")
    notice.wait_for()
    assert f"No entry for flax.errors.{name} here" in notice.inner_text()
    box = notice.bounding_box()
    assert box is not None
    assert 0 <= box["y"] < PAGE_HEIGHT
    notice.get_by_role("link").click()
    page.wait_for_url(f"**/search.html?q={name}")


def test_copy_button_copies_the_code_without_prompts_or_output(page: Page, site_url: str) -> None:
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    qualname = "flax.errors.ScopeParamShapeError"
    page.goto(f"{site_url}api_reference/flax.errors/ScopeParamShapeError.html")
    block = page.locator(f'section[id="{qualname}"] .flax-errors-transcript').first
    block.hover()
    block.locator("button.copybtn").click()

    copied = str(page.evaluate("navigator.clipboard.readText()"))

    assert copied.startswith("import jax\n")
    assert ">>>" not in copied
    assert "..." not in copied
    assert "Traceback" not in copied
    assert "ScopeParamShapeError" not in copied
    assert "    def __call__(self, x):" in copied  # continuation lines keep their indent


def test_internal_links_of_the_real_site_resolve(site: Path) -> None:
    report = check_site(site)
    assert report.broken == []


def test_every_landing_page_of_the_real_site_is_within_its_weight(site: Path) -> None:
    """The pages a printed URL leads to (nox -s linkcheck weighs the executed site too)."""
    weights = weigh(site)
    assert len(weights) >= len(_urls(site)) + 3  # every entry's page, and the modules'
    assert [str(w) for w in weights if w.over(BUDGET)] == []


def _served_root(tmp_path_factory: pytest.TempPathFactory, root: str) -> Iterator[str]:
    """A test root under ``tests/roots/``, built and served."""
    srcdir = tmp_path_factory.mktemp(f"browser-{root}") / "site"
    shutil.copytree(ROOT / "tests" / "roots" / root, srcdir)
    for built in build_html(srcdir):
        yield from serve(built)


@pytest.fixture(scope="module")
def hostile_site_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The test root whose error text holds a script tag."""
    yield from _served_root(tmp_path_factory, "test-site")


def test_hostile_error_text_stays_text_in_pages_and_search(
    page: Page, hostile_site_url: str
) -> None:
    page.goto(hostile_site_url + "api_reference/site_a_errors.html#site_a_errors.LeakyError")
    page.wait_for_url("**/api_reference/site_a_errors/LeakyError.html#site_a_errors.LeakyError")
    assert "<script>alert(1)</script>" in page.locator("body").inner_text()
    # The message as a reader pastes it: the search answers with the entry, and its note.
    pasted = "site_a_errors.LeakyError: leaf 7 leaked <script>alert(1)</script> into the forest"
    page.goto(hostile_site_url + "search.html?q=" + urllib.parse.quote_plus(pasted))
    page.wait_for_selector("#search-results li a")
    first = page.locator("#search-results li").first
    assert first.locator("a").get_attribute("href") == (
        "api_reference/site_a_errors/LeakyError.html#site_a_errors.LeakyError"
    )
    assert "<script>" in first.inner_text()  # shown as text; the page fixture saw no alert


def test_the_flax_page_is_grouped_by_area_and_names_wrap_between_words(
    page: Page, site_url: str
) -> None:
    page.goto(site_url + "/api_reference/flax.errors.html")
    groups = page.locator("div.flax-errors-group")
    assert groups.count() >= 5
    # A line of links to the areas at the top; each entry still has its own id.
    jump = page.locator(".flax-errors-areas a")
    assert jump.count() == groups.count()
    for link in jump.all():
        target = (link.get_attribute("href") or "").lstrip("#")
        assert page.locator(f'div.flax-errors-group[id="{target}"]').count() == 1
    assert page.locator('div.flax-errors-group [id="flax.errors.LazyInitError"]').count()
    # Boxes, not sections: no heading a project's autosectionlabel would label.
    assert page.locator("section.flax-errors-group").count() == 0
    # The contents list breaks long CamelCase names between words, and keeps their text.
    name = "ApplyScopeInvalidVariablesStructureError"
    link = page.locator("nav a", has_text=name).first
    assert link.inner_text().replace("\n", "") == name
    assert link.evaluate("(a) => a.querySelectorAll('wbr').length") == 5


@pytest.fixture(scope="module")
def foreign_prose_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The test root whose library docstring holds code that never runs (issue 15)."""
    yield from _served_root(tmp_path_factory, "test-foreign-prose")


def test_code_never_run_is_labelled_and_has_no_copy_button(
    page: Page, foreign_prose_url: str
) -> None:
    page.goto(foreign_prose_url + "api_reference/foreign_lib/LinkedError.html")
    prose = page.locator(".flax-errors-foreign")
    not_run = prose.locator("div.flax-errors-not-run")
    assert not_run.count() == 3
    labels = prose.locator("p.flax-errors-not-run-label")
    assert labels.count() == 3
    assert labels.first.is_visible()
    assert labels.first.inner_text() == "From foreign_lib\u2019s docstring, not run"
    # copybutton's script has run: the doctest that runs has its button, the others none.
    page.wait_for_selector(".flax-errors-foreign div.doctest button.copybtn", state="attached")
    assert not_run.locator("button.copybtn").count() == 0
    ran = prose.locator("div.doctest:not(.flax-errors-not-run) button.copybtn")
    assert ran.count() == 1
    # A known name links out, to the page the inventory names; an unknown one is code.
    link = prose.locator("a.flax-errors-api-link", has_text="Module.apply()")
    assert link.get_attribute("href") == (
        "https://flax-linen.readthedocs.io/en/latest/api_reference/flax.linen/module.html"
        "#flax.linen.Module.apply"
    )
    plain = prose.locator("code", has_text="their.own.function()")
    assert plain.evaluate("(code) => code.closest('a') === null")
