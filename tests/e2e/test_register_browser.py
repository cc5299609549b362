"""A new user runs the laglista in a real browser: fills in the company profile, uploads a file to the knowledge
base, puts two documents on the register, assesses one, adds a kravpunkt with the file as evidence, runs the
yearly review to its end (one finding of "uppfylls inte" becomes an action) and opens the item's history.

Each step is a function, so later steps (suggestions and templates, import, exports, the chat's register
answer) slot in between without touching these.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import TYPE_CHECKING

import openpyxl
import pytest
from django.contrib.auth.models import User
from pypdf import PdfReader
from pytest_django import Settings
from pytest_django.live_server_helper import LiveServer

from compliance import selectors as compliance_selectors
from compliance.models import LegalDocument, Membership, ProcessingStatus, UserFile, Workspace
from register.models import Action, Evidence, RegisterItem, Review
from tests.e2e.browsing import open_page
from tests.helpers import make_user

if TYPE_CHECKING:  # for annotations only: Playwright is imported when a browser test starts
    from playwright.sync_api import Browser, Page

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SLUG = "nya-ab"


@pytest.fixture
def newcomer(settings: Settings) -> tuple[User, Workspace]:
    settings.OPENAI_API_KEY = ""
    settings.OPENAI_BASE_URL = ""
    for number, title, kind in (("1977:1160", "Arbetsmiljölag (1977:1160)", "SFS_LAW"),
                                ("(EU) 2016/679", "Dataskyddsförordningen", "EU_REGULATION")):
        LegalDocument.objects.get_or_create(sfs_number=number, defaults={
            "title": title, "content_type": kind, "status": ProcessingStatus.DONE})
    user = make_user("nina")
    # No page creates workspaces yet (setup_demo and admin do): the new user's first workspace is given.
    ws = Workspace.objects.create(name="Nya AB", slug=SLUG)
    Membership.objects.create(user=user, workspace=ws, role="owner")
    return user, ws


# --- Steps ------------------------------------------------------------------------------------------------


def fill_in_profile(page: Page, base: str) -> None:
    page.goto(f"{base}/ws/{SLUG}/installningar/")
    page.click("details.edit-profile > summary")
    page.fill("#id_employee_count", "60")
    page.fill("#id_industry", "Lager och logistik")
    page.get_by_role("button", name="Spara företagsprofilen").click()
    page.wait_for_url("**/installningar/")
    assert "Företagsprofilen har sparats." in page.inner_text("main")


def upload_knowledge_file(page: Page, base: str, tmp_path: Path) -> None:
    path = tmp_path / "sam-rutin.txt"
    path.write_text("Rutin för systematiskt arbetsmiljöarbete: riskbedömning varje år.", encoding="utf-8")
    page.goto(f"{base}/ws/{SLUG}/kunskapsbas/")
    page.set_input_files("#id_files", str(path))
    page.locator("form.upload-form button[type=submit]").click()
    page.wait_for_url("**/kunskapsbas/")
    assert "sam-rutin.txt: uppladdad" in page.inner_text("main")


def open_register(page: Page, base: str) -> None:
    page.goto(f"{base}/ws/{SLUG}/")
    page.get_by_role("link", name="Laglista", exact=True).first.click()
    page.wait_for_url(f"**/ws/{SLUG}/laglista/")


def create_register(page: Page) -> None:
    assert page.locator("#register-empty").is_visible()
    page.click("#register-create")
    page.wait_for_selector("#item-add")


def add_item(page: Page, *, search: str, group: str, reason: str) -> None:
    page.click("#item-add")
    page.wait_for_url("**/poster/ny/")
    page.fill("#id_q", search)
    page.get_by_role("button", name="Sök", exact=True).click()
    page.wait_for_url("**/poster/ny/?q=*")
    options = page.locator("#id_legal_document option")
    page.select_option("#id_legal_document", value=options.nth(1).get_attribute("value"))
    page.fill("#id_new_group", group)
    page.fill("#id_reason", reason)
    page.select_option("#id_responsible", label="nina")
    page.get_by_role("button", name="Lägg till", exact=True).click()
    page.wait_for_selector("#item-title")


def assess_item(page: Page, *, status_label: str, how: str) -> None:
    page.click("#item-edit > summary")
    page.select_option("#item-edit-form #id_status", label=status_label)
    page.fill("#item-edit-form #id_how_we_comply", how)
    page.locator("#item-edit-form button[type=submit]").click()
    page.wait_for_selector("text=Posten är sparad.")


def add_requirement(page: Page, *, title: str, section: str) -> None:
    page.click("#requirement-add > summary")
    page.fill("#id_krav-title", title)
    page.fill("#id_krav-section_ref", section)
    page.check("#id_krav-needs_evidence")
    page.locator("#requirement-add-form button[type=submit]").click()
    page.wait_for_selector("text=är tillagd.")


def attach_file_as_evidence(page: Page, *, file_title: str) -> None:
    requirement = page.locator("article.requirement").first
    requirement.locator("details.add-form > summary").click()
    requirement.locator("select[name$='-user_file']").select_option(label=file_title)
    requirement.get_by_role("button", name="Lägg till bevis").click()
    page.wait_for_selector("text=Beviset är tillagt.")
    assert file_title in page.locator("article.requirement").first.inner_text()


def change_status_inline(page: Page, item_pk: int, value: str) -> None:
    """The overview's per-row status select (htmx swaps the row)."""
    row = page.locator(f"#post-{item_pk}")
    with page.expect_response(lambda r: r.url.endswith(f"/poster/{item_pk}/status/")):
        row.locator("select[name=status]").select_option(value)
    page.locator(f"#post-{item_pk} select[name=status] option[value={value}][selected]").wait_for(state="attached")


def start_review(page: Page, base: str, *, title: str) -> None:
    page.goto(f"{base}/ws/{SLUG}/laglista/kontroller/")
    page.click("#review-start")
    page.fill("#id_title", title)
    page.fill("#id_due_date", "2026-12-31")
    page.get_by_role("button", name="Starta kontrollen").click()
    page.wait_for_selector("text=är startad.")


def rate_entry(page: Page, index: int, *, rating_label: str, justification: str, with_evidence: bool = False) -> None:
    entry = page.locator("article.review-entry").nth(index)
    entry.locator("select[name$='-rating']").select_option(label=rating_label)
    entry.locator("textarea[name$='-justification']").fill(justification)
    if with_evidence:
        entry.locator("input[type=checkbox][name$='-evidence']").first.check()
    entry.get_by_role("button", name="Signera").click()
    page.wait_for_selector("text=är bedömd och signerad.")


def close_review(page: Page) -> None:
    page.click("#review-close")
    page.wait_for_selector("text=är avslutad och fryst.")


def import_excel_list(page: Page, base: str, tmp_path: Path, *, rows: list[tuple[str, str, str]]) -> None:
    """Another service's list: an .xlsx of number, title and group; previewed, then confirmed."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["SFS-nummer", "Titel", "Grupp"])
    for row in rows:
        sheet.append(list(row))
    path = tmp_path / "laglista.xlsx"
    book.save(path)
    open_register(page, base)
    page.click("#register-import")
    page.set_input_files("#import-file", str(path))
    page.get_by_role("button", name="Förhandsgranska").click()
    page.wait_for_selector("text=Inget har lagts till än.")
    page.get_by_role("button", name="Importera valda rader").click()
    page.wait_for_url(f"**/ws/{SLUG}/laglista/")
    assert "Importen är klar" in page.inner_text("main")


def download(page: Page, selector: str, folder: Path) -> bytes:
    with page.expect_download() as info:
        page.click(selector)
    path = folder / info.value.suggested_filename
    info.value.save_as(str(path))
    return path.read_bytes()


# --- The journey ------------------------------------------------------------------------------------------


def test_a_new_user_runs_the_register_to_a_closed_review(live_server: LiveServer, browser: Browser, artifacts: Path,
                                                         newcomer: tuple[User, Workspace], tmp_path: Path) -> None:
    user, ws = newcomer
    base = live_server.url
    opened = open_page(browser, base, "nina", timeout_ms=30_000)
    page = opened.page
    fill_in_profile(page, base)
    assert compliance_selectors.workspace_profile_get(ws).employee_count == 60
    upload_knowledge_file(page, base, tmp_path)
    user_file = UserFile.objects.get(workspace=ws)

    open_register(page, base)
    create_register(page)
    # Suggestions and templates have their own browser test (test_suggestions_browser.py).
    import_excel_list(page, base, tmp_path, rows=[("1977:1160", "Arbetsmiljölag", "Arbetsmiljö")])
    assert RegisterItem.objects.filter(workspace=ws, legal_document__sfs_number="1977:1160",
                                       origin="import").count() == 1
    add_item(page, search="1977:1160", group="Arbetsmiljö", reason="Vi har 60 anställda.")
    aml = RegisterItem.objects.get(workspace=ws, legal_document__sfs_number="1977:1160")
    assert page.locator("#document-link").get_attribute("href") == "/lag/1977:1160"
    assess_item(page, status_label="uppfylls delvis", how="Rutin SAM-01, riskbedömning varje år.")
    add_requirement(page, title="Undersöka och bedöma risker", section="3 kap. 2 a §")
    attach_file_as_evidence(page, file_title=user_file.title)
    assert Evidence.objects.get(requirement__item=aml).user_file == user_file

    open_register(page, base)
    add_item(page, search="Dataskydd", group="Dataskydd", reason="Vi behandlar personuppgifter om anställda.")
    gdpr = RegisterItem.objects.get(workspace=ws, legal_document__sfs_number="(EU) 2016/679")
    open_register(page, base)
    change_status_inline(page, gdpr.pk, "compliant")
    gdpr.refresh_from_db()
    assert gdpr.status == "compliant"
    page.reload()  # the figures and the chart count the inline change too
    page.locator("[data-register-chart][data-chart-ready=true]").wait_for(state="attached")
    page.screenshot(path=str(artifacts / "register-overview.png"), full_page=True)

    start_review(page, base, title="Lagefterlevnadskontroll 2026")
    review = Review.objects.get(workspace=ws)
    entries = page.locator("article.review-entry")
    assert entries.count() == 2
    aml_index = 0 if "Arbetsmiljölag" in entries.nth(0).inner_text() else 1
    rate_entry(page, aml_index, rating_label="uppfylls inte", with_evidence=True,
               justification="Riskbedömningen för lagret saknas.")
    action = Action.objects.get(review_entry__review=review)
    assert page.locator(f"#atgard-{action.pk}").is_visible()
    # Closing with an unsigned entry is refused.
    page.click("#review-close")
    assert "1 poster är inte bedömda än" in page.inner_text("#close-error")
    rate_entry(page, 1 - aml_index, rating_label="uppfylls", justification="Registerförteckning finns.")
    close_review(page)
    review.refresh_from_db()
    assert review.is_closed
    assert "Signera" not in page.inner_text("main")
    assert review.entries.exclude(frozen_title="").count() == 2
    page.screenshot(path=str(artifacts / "register-review.png"), full_page=True)
    review_pdf = download(page, "#review-export-pdf", tmp_path)
    review_text = "\n".join(p.extract_text() for p in PdfReader(io.BytesIO(review_pdf)).pages)
    assert "Nya AB" in review_text and "uppfylls inte" in review_text
    review_xlsx = openpyxl.load_workbook(io.BytesIO(download(page, "#review-export-xlsx", tmp_path)))
    assert any("Riskbedömningen för lagret saknas." in str(cell.value)
               for sheet in review_xlsx for row in sheet.iter_rows() for cell in row)
    open_register(page, base)
    register_pdf = download(page, "#export-pdf", tmp_path)
    assert "Arbetsmiljölag" in "\n".join(p.extract_text() for p in PdfReader(io.BytesIO(register_pdf)).pages)
    register_xlsx = openpyxl.load_workbook(io.BytesIO(download(page, "#export-xlsx", tmp_path)))
    assert any("1977:1160" in str(cell.value) for sheet in register_xlsx for row in sheet.iter_rows() for cell in row)
    rows = list(csv.reader(io.StringIO(download(page, "#export-csv", tmp_path).decode("utf-8-sig")), delimiter=";"))
    assert len(rows) >= 3

    page.goto(f"{base}/ws/{SLUG}/laglista/atgarder/")
    assert action.title in page.inner_text("main")

    page.goto(f"{base}/ws/{SLUG}/laglista/poster/{aml.pk}/")
    page.click("#history-link")
    page.wait_for_url("**/historik/")
    history = page.inner_text("#historik")
    assert "uppfylls delvis" in history and "uppfylls inte" in history and "nina" in history
    assert page.locator("del", has_text="ej bedömd").count() >= 1
    page.screenshot(path=str(artifacts / "register-history.png"), full_page=True)
    assert opened.csp_blocked == []
    page.close()
