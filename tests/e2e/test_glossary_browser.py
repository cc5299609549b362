"""The glossary in a real browser: an owner opens Ordlista from the menu, comes back with a word prefilled (the
dashboard's link), writes what the law calls it, adds it and sees it listed."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from django.contrib.auth.models import User

from compliance.models import Workspace
from glossary.models import Term
from tests.e2e.browsing import open_page
from tests.helpers import alice_owning_a_workspace, chunked_statute

if TYPE_CHECKING:  # for annotations only: Playwright is imported when a browser test starts
    from playwright.sync_api import Browser
    from pytest_django.live_server_helper import LiveServer

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def alice() -> tuple[User, Workspace]:
    return alice_owning_a_workspace()


def test_add_a_term_and_see_it_listed(live_server: LiveServer, browser: Browser, artifacts: Path,
                                      alice: tuple[User, Workspace]) -> None:
    user, ws = alice
    opened = open_page(browser, live_server.url, "alice")
    page = opened.page

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
    assert opened.csp_blocked == []
    page.close()


def test_export_and_import_a_glossary_file(live_server: LiveServer, browser: Browser, artifacts: Path,
                                           alice: tuple[User, Workspace], tmp_path: Path) -> None:
    """The file a team keeps its words in: exported as CSV, edited, imported back (twice: nothing changes the
    second time), and a file with a bad row is refused with the row named and nothing imported."""
    user, ws = alice
    Term.objects.create(workspace=ws, word="OVK", law_words="funktionskontroll av ventilationssystem",
                        created_by=user)
    opened = open_page(browser, live_server.url, "alice")
    page = opened.page
    page.goto(f"{live_server.url}/ws/{ws.slug}/ordlista/")

    with page.expect_download() as download:
        page.locator("#glossary-export").get_by_role("link", name="CSV").click()
    exported = Path(download.value.path()).read_bytes().decode("utf-8-sig")
    assert exported.splitlines() == ["Ord;Lagens ord", "OVK;funktionskontroll av ventilationssystem"]

    edited = tmp_path / "ordlista.csv"
    edited.write_text(exported + "hyrpersonal;inhyrd arbetskraft\r\n", encoding="utf-8-sig")
    for expected in ("Nya begrepp: 1, ändrade: 0, oförändrade: 1", "Nya begrepp: 0, ändrade: 0, oförändrade: 2"):
        page.set_input_files("#import-file", str(edited))
        page.get_by_role("button", name="Importera").click()
        page.wait_for_selector(".messages")
        assert expected in page.inner_text(".messages")
    assert sorted(Term.objects.filter(workspace=ws).values_list("word", flat=True)) == ["OVK", "hyrpersonal"]

    broken = tmp_path / "trasig.csv"
    broken.write_text("Ord;Lagens ord\r\nsemesterlön;semesterlön enligt lagen\r\n<b>;fet stil\r\n", encoding="utf-8")
    page.set_input_files("#import-file", str(broken))
    page.get_by_role("button", name="Importera").click()
    error = page.locator("#import-error")
    error.wait_for()
    assert "inget har importerats" in error.inner_text() and "Rad 3:" in error.inner_text()
    page.screenshot(path=str(artifacts / "glossary-import-refused.png"), full_page=True)
    assert Term.objects.filter(workspace=ws).count() == 2
    assert opened.csp_blocked == []
    page.close()


def _inhyrning_statute() -> None:
    """A statute of our own with two §§, what a team's word points at."""
    chunked_statute("2099:7", "Lag (2099:7) om inhyrning",
                    "1 § Den som anlitar inhyrd arbetskraft ska vidta de skyddsåtgärder som behövs.\n\n"
                    "2 § Den som hyr ut arbetskraft ska informera om riskerna.")


def test_a_term_citing_its_provision_links_to_it(live_server: LiveServer, browser: Browser, artifacts: Path,
                                                  alice: tuple[User, Workspace]) -> None:
    """Law words that cite where the law says it: the list links the provision, and the link opens the statute's
    page at that § (the anchor exists there); a citation the knowledge base lacks is named."""
    _, ws = alice
    _inhyrning_statute()
    opened = open_page(browser, live_server.url, "alice")
    page = opened.page
    page.goto(f"{live_server.url}/ws/{ws.slug}/ordlista/")
    for word, law_words in (("hyrpersonal", "inhyrd arbetskraft (2 § lagen (2099:7) om inhyrning)"),
                            ("hyrfolk", "inhyrd arbetskraft (9 § lagen (2099:7) om inhyrning)")):
        page.fill("#id_word", word)
        page.fill("#id_law_words", law_words)
        page.get_by_role("button", name="Lägg till").click()
        page.wait_for_selector(".messages")
    assert "finns inte i kunskapsbasen" in page.locator("tr", has_text="hyrfolk").inner_text()
    page.screenshot(path=str(artifacts / "glossary-provisions.png"), full_page=True)
    page.get_by_role("link", name="2 § lagen (2099:7) om inhyrning").click()
    page.wait_for_url("**/lag/2099:7#2")
    assert "informera om riskerna" in page.locator("[id='2']").inner_text()
    assert opened.csp_blocked == []
    page.close()


def test_teach_a_word_from_the_statute_page(live_server: LiveServer, browser: Browser, artifacts: Path,
                                            alice: tuple[User, Workspace]) -> None:
    """Reading a §, the owner teaches the workspace's word for it: the §'s link opens the Ordlista form with the
    provision as law words, and once the word is added the browser is back at that §, which now names the word."""
    _, ws = alice
    _inhyrning_statute()
    opened = open_page(browser, live_server.url, "alice")
    page = opened.page
    page.goto(f"{live_server.url}/lag/2099:7")
    page.get_by_role("link", name="Lär assistenten ert ord för 2 §").click()
    page.wait_for_url(f"**/ws/{ws.slug}/ordlista/?**")
    assert page.input_value("#id_law_words") == "2 § lagen om inhyrning"
    assert "Lagens ord hänvisar till 2 § lagen om inhyrning" in page.locator("#lagrum-hint").inner_text()
    page.fill("#id_word", "uthyrare")
    page.fill("#id_law_words", "hyr ut arbetskraft (2 § lagen om inhyrning)")
    page.get_by_role("button", name="Lägg till").click()
    page.wait_for_url("**/lag/2099:7#2")
    assert "”uthyrare” finns nu i ordlistan" in page.locator(".messages").inner_text()
    assert Term.objects.get(workspace=ws, word="uthyrare").law_words == "hyr ut arbetskraft (2 § lagen om inhyrning)"
    # The § now names the word, and the word leads to its row in the Ordlista.
    assert "I er ordlista: uthyrare" in page.locator("[id='2']").inner_text()
    assert "I er ordlista" not in page.locator("[id='1']").inner_text()
    page.screenshot(path=str(artifacts / "statute-teach-word.png"), full_page=True)
    page.locator("[id='2'] [data-taught-words] a").click()
    page.wait_for_url(f"**/ws/{ws.slug}/ordlista/?q=uthyrare")
    assert page.locator("#glossary-terms tbody tr").count() == 1
    assert opened.csp_blocked == []
    page.close()
