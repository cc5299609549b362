"""Steps every browser test takes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tests.helpers import PASSWORD

if TYPE_CHECKING:  # for annotations only: Playwright is imported when a browser test starts
    from playwright.sync_api import Page


def log_in(page: Page, base_url: str, username: str) -> None:
    """Log in through the login page as `username` (made with tests.helpers.make_user) and wait to leave it."""
    page.goto(f"{base_url}/logga-in/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(lambda url: "/logga-in/" not in url)
