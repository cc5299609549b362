"""Steps every browser test takes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tests.helpers import PASSWORD

if TYPE_CHECKING:  # for annotations only: Playwright is imported when a browser test starts
    from playwright.sync_api import Browser, Page


def log_in(page: Page, base_url: str, username: str) -> None:
    """Log in through the login page as `username` (made with tests.helpers.make_user) and wait to leave it."""
    page.goto(f"{base_url}/logga-in/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(lambda url: "/logga-in/" not in url)


@dataclass
class OpenedPage:
    page: Page
    # The console messages of what the Content-Security-Policy blocked: a test ends asserting there were none.
    csp_blocked: list[str] = field(default_factory=list)


def open_page(browser: Browser, base_url: str, username: str, *, timeout_ms: int = 60_000) -> OpenedPage:
    """A Swedish desktop page, logged in as `username`, recording what the Content-Security-Policy blocks."""
    page = browser.new_page(viewport={"width": 1280, "height": 900}, locale="sv-SE")
    page.set_default_timeout(timeout_ms)
    opened = OpenedPage(page)
    page.on("console", lambda msg: opened.csp_blocked.append(msg.text)
            if "Content Security Policy" in msg.text else None)
    log_in(page, base_url, username)
    return opened
