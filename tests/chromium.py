"""Debian's chromium (:mod:`tools.chromium`) in the tests: the mark, the browser, its tabs."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import sync_playwright

from tools.chromium import CHROMIUM, CHROMIUM_ARGS

if TYPE_CHECKING:
    from collections.abc import Iterator

    from playwright.sync_api import Browser, Dialog, Page, Request, Response

__all__ = [
    "CHROMIUM",
    "CHROMIUM_ARGS",
    "NEEDS_CHROMIUM",
    "PAGE_HEIGHT",
    "PAGE_WIDTH",
    "launched_chromium",
    "watched_tab",
]

NEEDS_CHROMIUM = pytest.mark.skipif(
    CHROMIUM is None,
    reason="no chromium installed (Debian: apt-get install chromium); browsers are never "
    "downloaded for these tests",
)
"""The mark of a test that drives the browser."""
PAGE_WIDTH, PAGE_HEIGHT = 1280, 860
"""The ``page`` fixture's tab; its height is what a reader sees first."""


def launched_chromium() -> Iterator[Browser]:
    """Debian's chromium, headless, until the generator is closed."""
    assert CHROMIUM is not None
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


def watched_tab(browser: Browser, *, width: int, height: int) -> Iterator[Page]:
    """A fresh tab that fails the test on any dialog (an ``alert`` means injected script).

    It fails the test too on any file the site does not have, or any request to the
    network.
    """
    context = browser.new_context(viewport={"width": width, "height": height})
    opened = context.new_page()
    dialogs: list[str] = []
    missing: list[str] = []

    def on_dialog(dialog: Dialog) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    def on_response(response: Response) -> None:
        if response.status >= 400:
            missing.append(response.url)

    opened.on("dialog", on_dialog)
    opened.on("response", on_response)

    def on_failed(request: Request) -> None:
        # A page that forwards (location.replace) aborts its own load and the files it
        # was still fetching: the browser moved on, nothing is missing. (A missing
        # file is a 404 response; a fetch from the network fails to connect.)
        if request.failure == "net::ERR_ABORTED":
            return
        missing.append(request.url)

    opened.on("requestfailed", on_failed)
    yield opened
    context.close()
    assert dialogs == [], "a page opened a dialog: error text ran as script"
    assert missing == [], "the site asked for files it does not have, or for the network"
