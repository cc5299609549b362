"""In a real browser: a company with a profile gets suggestions with reasons, accepts one and rejects one
(htmx swaps each row), adds the arbetsmiljö template, and the chat answers "vilka krav saknar bevis?" from
the register, with a link to the item."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from django.contrib.auth.models import User
from pytest_django import Settings
from pytest_django.live_server_helper import LiveServer

from compliance.models import LegalDocument, Workspace, WorkspaceProfile
from register.models import RegisterItem, SuggestionDecision
from tests.e2e.browsing import open_page
from tests.helpers import alice_owning_a_workspace

if TYPE_CHECKING:  # for annotations only: Playwright is imported when a browser test starts
    from playwright.sync_api import Browser

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

DOCUMENTS = {
    "1977:1160": ("Arbetsmiljölag (1977:1160)", "SFS_LAW"),
    "AFS 2023:1": ("Arbetsmiljöverkets föreskrifter och allmänna råd om systematiskt arbetsmiljöarbete",
                   "AGENCY_REGULATION"),
    "2021:890": ("Lag (2021:890) om skydd för personer som rapporterar om missförhållanden", "SFS_LAW"),
    "1982:80": ("Lag (1982:80) om anställningsskydd", "SFS_LAW"),
}


@pytest.fixture
def alice(settings: Settings) -> tuple[User, Workspace]:
    settings.OPENAI_API_KEY = ""
    settings.OPENAI_BASE_URL = ""
    for number, (title, kind) in DOCUMENTS.items():
        LegalDocument.objects.get_or_create(sfs_number=number, defaults={"title": title, "content_type": kind,
                                                                         "full_text": title})
    user, ws = alice_owning_a_workspace()
    WorkspaceProfile.objects.create(workspace=ws, employee_count=60, has_collective_agreement=True,
                                    sector="private")
    return user, ws


def test_accept_reject_template_and_ask(live_server: LiveServer, browser: Browser, artifacts: Path,
                                        alice: tuple[User, Workspace]) -> None:
    _, ws = alice
    opened = open_page(browser, live_server.url, "alice")
    page = opened.page

    page.goto(f"{live_server.url}/ws/alices-ab/laglista/forslag/")
    row = page.locator('tr[data-document="2021:890"]')
    assert "minst 50 anställda" in row.inner_text()
    page.screenshot(path=str(artifacts / "register-suggestions.png"), full_page=True)
    row.locator("button", has_text="Lägg till").click()
    page.locator('tr.suggestion-decided[data-document="2021:890"]').wait_for()
    assert "har lagts till i laglistan" in page.locator('tr[data-document="2021:890"]').inner_text()
    page.locator('tr[data-document="1982:80"] button', has_text="Avvisa").click()
    page.locator('tr.suggestion-decided[data-document="1982:80"]').wait_for()
    assert RegisterItem.objects.filter(workspace=ws, legal_document__sfs_number="2021:890").exists()
    assert SuggestionDecision.objects.get(legal_document__sfs_number="1982:80").decision == "rejected"
    page.reload()
    assert page.locator('#suggestions tr[data-document="1982:80"]').count() == 0
    assert "Avvisade förslag" in page.content()

    page.goto(f"{live_server.url}/ws/alices-ab/laglista/mallar/")
    page.locator("#mall-arbetsmiljo button", has_text="Lägg till mall").click()
    page.wait_for_load_state()
    assert "Mallen Arbetsmiljö har lagts till" in page.locator("ul.messages").inner_text()
    afs = RegisterItem.objects.get(workspace=ws, legal_document__sfs_number="AFS 2023:1")
    assert afs.requirements.filter(needs_evidence=True).count() >= 5

    page.goto(f"{live_server.url}/ws/alices-ab/chatt/")
    page.fill("#chat-input", "Vilka krav saknar bevis?")
    page.click("#chat-send")
    answer = page.locator(".msg-assistant[data-message-id]").first
    answer.wait_for()
    link = answer.locator(f'a[href="/ws/alices-ab/laglista/poster/{afs.pk}/"]').first
    link.wait_for()
    assert "Riskbedömning" in answer.inner_text() or "riskbedömning" in answer.inner_text()
    page.screenshot(path=str(artifacts / "register-chat-answer.png"), full_page=True)
    assert opened.csp_blocked == []
