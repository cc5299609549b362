"""The statute page in a real browser: a reference in a statute's text opens the unit it cites, on another
statute's page or further down its own, and a unit names the units citing it, on its page and in other statutes."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from django.contrib.auth.models import User

from compliance.models import Workspace
from tests.e2e.browsing import open_page
from tests.helpers import alice_owning_a_workspace, chunked_statute

if TYPE_CHECKING:  # for annotations only: Playwright is imported when a browser test starts
    from playwright.sync_api import Browser
    from pytest_django.live_server_helper import LiveServer

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def alice() -> tuple[User, Workspace]:
    return alice_owning_a_workspace()


def test_a_reference_in_the_text_opens_the_section_it_cites(live_server: LiveServer, browser: Browser,
                                                             artifacts: Path, alice: tuple[User, Workspace]) -> None:
    # Statutes of our own: one cites the other's § and its own.
    chunked_statute("2099:7", "Lag (2099:7) om inhyrning",
                    "1 § Den som anlitar inhyrd arbetskraft ska vidta de skyddsåtgärder som behövs.\n\n"
                    "2 § Den som hyr ut arbetskraft ska informera om riskerna.")
    chunked_statute("2099:8", "Lag (2099:8) om bemanning",
                    "1 § Ett bemanningsföretag ska lämna den information som avses i 2 § lagen (2099:7) om "
                    "inhyrning.\n\n2 § Bestämmelserna i 1 och 3 §§ gäller även den som förmedlar personal.\n\n"
                    "3 § Ett bemanningsföretag ska föra en förteckning över sina uppdrag.")
    opened = open_page(browser, live_server.url, "alice")
    page = opened.page
    page.goto(f"{live_server.url}/lag/2099:8")
    page.get_by_role("link", name="2 § lagen (2099:7) om inhyrning").click()
    page.wait_for_url("**/lag/2099:7#2")
    assert "informera om riskerna" in page.locator("[id='2']").inner_text()
    page.go_back()
    page.wait_for_url("**/lag/2099:8")
    # Each § of a list opens its own: "1" the first, "3 §§" the third.
    page.locator("[id='2'] a.ref-link", has_text="3 §§").click()
    page.wait_for_url("**/lag/2099:8#3")
    assert "förteckning över sina uppdrag" in page.locator("[id='3']").inner_text()
    page.locator("[id='2'] a.ref-link").filter(has_text="1").first.click()
    page.wait_for_url("**/lag/2099:8#1")
    assert "lämna den information" in page.locator("[id='1']").inner_text()
    # And back: 1 § says which § of its statute cites it.
    page.locator("[id='1'] [data-cited-by] a", has_text="2 §").click()
    page.wait_for_url("**/lag/2099:8#2")
    page.screenshot(path=str(artifacts / "statute-references.png"), full_page=True)
    # And from the other statute: its 2 § names the § of 2099:8 that cites it, which opens there.
    page.goto(f"{live_server.url}/lag/2099:7")
    page.locator("[id='2'] [data-cited-elsewhere] a", has_text="1 § Lag (2099:8) om bemanning").click()
    page.wait_for_url("**/lag/2099:8#1")
    assert "lämna den information" in page.locator("[id='1']").inner_text()
    assert opened.csp_blocked == []
    page.close()
