"""A new user in a real browser tells the chat the company's size and agreement, saves it, sees it on the
settings page, gets an answer that uses it, clears it, and it is gone."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from django.contrib.auth.models import User
from pytest_django import DjangoDbBlocker, Settings
from pytest_django.live_server_helper import LiveServer

from compliance import selectors
from compliance.models import Membership, Workspace
from tests.e2e.browsing import open_page
from tests.helpers import make_user

if TYPE_CHECKING:  # for annotations only: Playwright is imported when a browser test starts
    from playwright.sync_api import Browser, Locator, Page

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

STATEMENT = "Vi är 45 anställda och vi har kollektivavtal med Unionen."
QUESTION = "Vad säger 3 kap. 2 a § arbetsmiljölagen?"


@pytest.fixture
def alice(settings: Settings, django_db_blocker: DjangoDbBlocker) -> tuple[User, Workspace]:
    from tests.corpus import load_statutes

    settings.OPENAI_API_KEY = ""
    settings.OPENAI_BASE_URL = ""
    with django_db_blocker.unblock():
        load_statutes("1977:1160")
    user = make_user("alice")
    ws = Workspace.objects.create(name="Alices AB", slug="alices-ab")
    Membership.objects.create(user=user, workspace=ws, role="owner")
    return user, ws


def ask(page: Page, text: str) -> Locator:
    count = page.locator(".msg-assistant[data-message-id]").count()
    page.fill("#chat-input", text)
    page.click("#chat-send")
    page.locator(".msg-assistant[data-message-id]").nth(count).wait_for()
    return page.locator(".msg-assistant[data-message-id]").nth(count)


def test_propose_save_see_use_clear(live_server: LiveServer, browser: Browser, artifacts: Path,
                                    alice: tuple[User, Workspace]) -> None:
    _, ws = alice
    opened = open_page(browser, live_server.url, "alice")
    page = opened.page

    # The statement is proposed, nothing is stored yet.
    page.goto(f"{live_server.url}/ws/alices-ab/chatt/")
    answer = ask(page, STATEMENT)
    proposals = answer.locator(".proposal")
    assert proposals.count() == 3
    assert "Antal anställda: 45" in proposals.nth(0).inner_text()
    assert selectors.workspace_profile_get(ws).pk is None

    # Spara the size and the agreement; Nej tack for nothing else.
    for i in range(3):
        answer.locator(".proposal").nth(i).get_by_role("button", name="Spara").click()
        answer.locator(".proposal").nth(i).locator(".ok").wait_for()
    assert "Sparat: Antal anställda: 45" in answer.inner_text()
    profile = selectors.workspace_profile_get(ws)
    assert (profile.employee_count, profile.collective_agreement) == (45, "Unionen")
    page.screenshot(path=str(artifacts / "profile-proposals.png"), full_page=True)

    # Visible on the settings page, with its origin.
    page.get_by_role("link", name="Inställningar").first.click()
    page.wait_for_url("**/installningar/")
    facts = page.locator("#profile-facts").inner_text()
    assert "45" in facts and "Unionen" in facts and "Lärt från" in facts
    page.screenshot(path=str(artifacts / "profile-settings.png"), full_page=True)

    # Used in the next answer (offline: the extractive answer names it).
    page.goto(f"{live_server.url}/ws/alices-ab/chatt/")
    used = ask(page, QUESTION).locator(".answer").inner_text()
    assert "Ni har angett 45 anställda, kollektivavtal med Unionen" in used or \
        "Ni har angett 45 anställda och kollektivavtal med Unionen" in used

    # Cleared, after a confirmation naming the count; gone from the page and from the next answer.
    page.goto(f"{live_server.url}/ws/alices-ab/installningar/")
    page.get_by_role("link", name="Rensa allt i företagsprofilen").click()
    assert "3 uppgifter tas bort permanent." in page.inner_text("main")
    page.get_by_role("button", name="Rensa allt").click()
    page.wait_for_url("**/installningar/")
    assert page.locator("#profile-empty").is_visible()
    page.goto(f"{live_server.url}/ws/alices-ab/chatt/")
    after = ask(page, QUESTION).locator(".answer").inner_text()
    assert "Ni har angett" not in after
    assert opened.csp_blocked == []
    page.close()
