"""The glossary in a real browser: an owner opens Ordlista from the menu, comes back with a word prefilled (the
dashboard's link), writes what the law calls it, adds it and sees it listed."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from django.contrib.auth.models import User

from compliance.models import Membership, Workspace
from glossary.models import Term
from tests.e2e.browsing import log_in
from tests.helpers import make_user

if TYPE_CHECKING:  # for annotations only: Playwright is imported when a browser test starts
    from playwright.sync_api import Browser
    from pytest_django.live_server_helper import LiveServer

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def alice() -> tuple[User, Workspace]:
    user = make_user("alice")
    ws = Workspace.objects.create(name="Alices AB", slug="alices-ab")
    Membership.objects.create(user=user, workspace=ws, role=Membership.Role.OWNER)
    return user, ws


def test_add_a_term_and_see_it_listed(live_server: LiveServer, browser: Browser, artifacts: Path,
                                      alice: tuple[User, Workspace]) -> None:
    user, ws = alice
    page = browser.new_page(viewport={"width": 1280, "height": 900}, locale="sv-SE")
    page.set_default_timeout(60_000)
    blocked = []
    page.on("console", lambda msg: blocked.append(msg.text) if "Content Security Policy" in msg.text else None)
    log_in(page, live_server.url, "alice")

    page.goto(f"{live_server.url}/ws/{ws.slug}/")
    page.get_by_role("link", name="Ordlista").first.click()
    page.wait_for_url(f"**/ws/{ws.slug}/ordlista/")
    assert page.locator("#glossary-empty").is_visible()

    # From the dashboard's link: the word is there, the law's words are ours to write.
    page.goto(f"{live_server.url}/ws/{ws.slug}/ordlista/?ord=visselbl%C3%A5sare")
    assert page.input_value("#id_word") == "visselblåsare"
    page.fill("#id_law_words", "rapporterande person")
    page.get_by_role("button", name="Lägg till").click()
    page.wait_for_selector("#glossary-terms")
    assert "”visselblåsare” finns nu i ordlistan" in page.inner_text(".messages")
    row = page.locator("#glossary-terms tbody tr").first.inner_text()
    assert "visselblåsare" in row and "rapporterande person" in row and "alice" in row
    page.screenshot(path=str(artifacts / "glossary-list.png"), full_page=True)

    term = Term.objects.get(workspace=ws)
    assert (term.word, term.law_words, term.created_by) == ("visselblåsare", "rapporterande person", user)
    assert blocked == []
    page.close()
