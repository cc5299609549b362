"""A person in a real browser: log in, ask about a section, read the cited answer, open the source, give a thumbs up."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from django.contrib.auth.models import User
from pytest_django import DjangoDbBlocker, Settings
from pytest_django.live_server_helper import LiveServer

from agent.models import Feedback
from compliance.models import Membership, Workspace
from tests.e2e.browsing import open_page
from tests.helpers import make_user

if TYPE_CHECKING:  # for annotations only: Playwright is imported when a browser test starts
    from playwright.sync_api import Browser, Page

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

QUESTION = "Vad säger 3 kap. 2 a § arbetsmiljölagen?"


@pytest.fixture
def alice(settings: Settings, django_db_blocker: DjangoDbBlocker) -> User:
    from tests.corpus import load_statutes

    settings.OPENAI_API_KEY = ""
    settings.OPENAI_BASE_URL = ""
    with django_db_blocker.unblock():
        load_statutes("1977:1160")
    user = make_user("alice")
    ws = Workspace.objects.create(name="Alices AB", slug="alices-ab")
    Membership.objects.create(user=user, workspace=ws, role="owner")
    other = Workspace.objects.create(name="Bolaget B", slug="bolaget-b")
    Membership.objects.create(user=user, workspace=other, role="owner")
    return user


def test_ask_read_open_and_rate(live_server: LiveServer, browser: Browser, artifacts: Path, alice: User) -> None:
    opened = open_page(browser, live_server.url, "alice")
    page = opened.page

    page.goto(f"{live_server.url}/ws/alices-ab/chatt/")
    page.fill("#chat-input", QUESTION)
    page.click("#chat-send")
    card = page.locator('.msg-assistant .source-card[data-citation="3 kap. 2 a §"][data-sfs="1977:1160"]')
    card.first.wait_for()
    answer = page.locator(".msg-assistant .answer").last.inner_text()
    assert "Ingen språkmodell är ansluten" in answer and "3 kap. 2 a §" in answer
    assert page.locator(".badge-extractive").count() == 1
    page.screenshot(path=str(artifacts / "chat.png"), full_page=True)
    assert QUESTION in page.locator(".conversation-list li.current").inner_text()

    # The question survives a reload: the conversation was saved.
    page.reload()
    assert QUESTION in page.locator(".msg-user").first.inner_text()
    card = page.locator('.msg-assistant .source-card[data-citation="3 kap. 2 a §"]').first

    with page.expect_navigation():
        card.locator("a.source-link").click()
    assert page.url.endswith("/lag/1977:1160#3kap2a")
    section = page.locator("[id='3kap2a']")
    assert "2 a §" in section.inner_text()
    page.screenshot(path=str(artifacts / "statute.png"))

    page.go_back()
    page.locator(".msg-assistant .thumb[aria-label='Tummen upp']").last.click()
    page.locator(".fb-thanks").last.wait_for()
    assert Feedback.objects.get(user=alice).rating == 1

    # The workspace switcher (a script file, not an inline handler) opens the chosen workspace.
    with page.expect_navigation():
        page.select_option("#ws-select", label="Bolaget B")
    assert "/ws/bolaget-b/" in page.url
    assert opened.csp_blocked == []
    page.close()


def _asked(browser: Browser, url: str, question: str) -> Page:
    """A page where alice has asked `question` in Alices AB's chat and the answer's sources have arrived."""
    page = open_page(browser, url, "alice").page
    page.goto(f"{url}/ws/alices-ab/chatt/")
    page.fill("#chat-input", question)
    page.click("#chat-send")
    page.locator(".msg-assistant .source-card").first.wait_for()
    return page


def test_a_word_no_source_uses_is_named_in_the_answer(live_server: LiveServer, browser: Browser, artifacts: Path,
                                                      alice: User) -> None:
    page = _asked(browser, live_server.url, "Vilket skydd har en visselblåsare enligt arbetsmiljölagen?")
    answer = page.locator(".msg-assistant .answer").last
    # The note is rendered (italic), not shown as markdown.
    assert 'Ingen källa använder "visselblåsare"' in answer.locator("em").first.inner_text()
    page.screenshot(path=str(artifacts / "chat-unknown-word.png"), full_page=True)
    page.reload()
    assert 'Ingen källa använder "visselblåsare"' in page.locator(".msg-assistant .answer").last.inner_text()
    page.close()


def test_a_misspelt_word_is_searched_as_the_statute_word_and_the_answer_says_so(
        live_server: LiveServer, browser: Browser, artifacts: Path, alice: User) -> None:
    page = _asked(browser, live_server.url, "Vad får ett skydsombud göra?")
    answer = page.locator(".msg-assistant .answer").last
    assert 'Ingen källa använder "skydsombud" (sökt som "skyddsombud' in answer.locator("em").first.inner_text()
    # The sources are the statute's §§ on the word meant.
    assert "skyddsombud" in answer.inner_text().lower().split("sökt som", 1)[1]
    page.screenshot(path=str(artifacts / "chat-misspelt-word.png"), full_page=True)
    page.close()


def test_teach_a_word_from_the_answer_and_ask_again(live_server: LiveServer, browser: Browser, artifacts: Path,
                                                    alice: User) -> None:
    """The answer offers to teach a word no source used; the Ordlista form comes prefilled; asked again, the
    answer says the glossary's term was searched, and the first answer says the word is taught now."""
    question = "Vilket skydd har en visselblåsare enligt arbetsmiljölagen?"
    page = _asked(browser, live_server.url, question)
    offer = page.locator(".msg-assistant [data-unknown-word='visselblåsare']").last
    assert "Vet ni vad lagen kallar ”visselblåsare”, eller var det står?" in offer.inner_text()
    conversation_url = page.url
    with page.expect_navigation():
        offer.locator("a[data-teach]").click()
    assert page.input_value("#id_word") == "visselblåsare"
    # The answer's provisions are offered as where the law says it.
    offered = page.locator("#lagrum-forslag option").evaluate_all("options => options.map(o => o.value)")
    assert offered and all(" § " in value for value in offered), offered
    assert page.get_attribute("#id_law_words", "list") == "lagrum-forslag"
    page.fill("#id_law_words", "arbetstagare som slår larm")
    # Added, the person is back in the conversation, told so, and the answer says the word is taught now.
    with page.expect_navigation():
        page.get_by_role("button", name="Lägg till").click()
    assert page.url == conversation_url
    assert "”visselblåsare” finns nu i ordlistan" in page.inner_text(".messages")
    assert "”visselblåsare” finns nu i ordlistan" in page.locator("[data-unknown-word='visselblåsare']").inner_text()
    page.fill("#chat-input", question)
    page.click("#chat-send")
    page.locator(".msg-assistant").nth(1).locator(".source-card").first.wait_for()
    answer = page.locator(".msg-assistant .answer").nth(1).inner_text()
    assert 'Enligt er ordlista söktes även på lagens ord: "visselblåsare" = "arbetstagare som slår larm"' in answer
    assert page.locator(".msg-assistant").nth(1).locator("[data-unknown-word]").count() == 0
    page.screenshot(path=str(artifacts / "chat-teach-word.png"), full_page=True)
    page.close()
