"""Lagbevakning in a real browser: plan- och bygglagen's official 2026 record is imported over the 2024 text
of a workspace's laglista; the member sees the count in the header, opens the notice from Lagändringar, reads
the changed §§ as word diffs (those touching the item's kravpunkter first), answers with an impact assessment
and an action, finds the answer in the item's history, and downloads the period's report holding it."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from django.contrib.auth.models import User
from pytest_django import Settings
from pytest_django.live_server_helper import LiveServer

from compliance.models import Workspace
from register.models import Action, ChangeNotice, ImpactAssessment, RegisterItem
from tests.chunks.conftest import clean_queue  # noqa: F401  (the import queues chunking: nothing outlives the test)
from tests.e2e.browsing import log_in
from tests.register.notices_fixtures import (
    PBL,
    add_requirement,
    load_corpus_statute,
    official_record,
    sync_records,
    workspace_with,
)

if TYPE_CHECKING:  # for annotations only: Playwright is imported when a browser test starts
    from playwright.sync_api import Browser

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def byggbolaget(clean_queue: None, settings: Settings,  # noqa: F811  (the fixture imported above, asked for by name)
                tmp_path: Path) -> tuple[Workspace, User, RegisterItem]:
    settings.OPENAI_API_KEY = ""
    settings.OPENAI_BASE_URL = ""
    settings.SFS_VECTORS_PATH = str(tmp_path / "none.npz")  # the statute is not chunked here: no vectors needed
    pbl = load_corpus_statute(PBL)
    ws, owner, (item,) = workspace_with("Byggbolaget", owner_name="bygg", documents=[pbl])
    add_requirement(item, "16 kap. 8–9 §§", "Föreskrifter om byggnadsverk")
    sync_records(tmp_path, [official_record(PBL)])
    return ws, owner, item


def test_a_member_answers_a_change_notice_in_the_browser_and_it_is_in_the_items_history(live_server: LiveServer,
                                                                                        browser: Browser,
                                                                                        artifacts: Path,
                                                                                        byggbolaget: tuple[Workspace, User, RegisterItem]) -> None:
    ws, owner, item = byggbolaget
    notice = ChangeNotice.objects.get(workspace=ws)
    page = browser.new_page()
    log_in(page, live_server.url, "bygg")

    page.goto(f"{live_server.url}/ws/{ws.slug}/")
    assert page.inner_text("nav .notice-count") == "1"  # the member's own unread notice
    page.get_by_role("link", name="Lagändringar").first.click()
    page.wait_for_url(f"**/ws/{ws.slug}/lagandringar/")
    page.click(f'li[data-notice="{notice.pk}"] h2 a')
    page.wait_for_url(f"**/lagandringar/{notice.pk}/")

    changes = page.inner_text("#andringar")
    assert changes.index("16 kap. 8 §") < changes.index("1 kap. 3 §")  # the §§ touching the kravpunkter first
    # Then the changed §§ the kravpunkt's §§ cite (16 kap. 8 § grants a power "med stöd av 9 kap. 55 §"), each with
    # the kravpunkt citing it.
    cited = page.locator(".unit-change", has=page.locator(".cited-by-requirements")).first
    assert cited.locator("h4").inner_text().startswith("9 kap. 55 §")
    assert cited.locator(".cited-by-requirements").inner_text() == (
        "Hänvisas till i 16 kap. 8 §, som er kravpunkt ”Föreskrifter om byggnadsverk” gäller.")
    assert changes.index("Hänvisas till i 16 kap. 8 §") < changes.index("1 kap. 3 §")
    assert page.locator("#andringar ins").count() > 0 and page.locator("#andringar del").count() > 0
    page.screenshot(path=str(artifacts / "notice-detail.png"), full_page=True)

    page.check('input[name="affects_us"][value="yes"]')
    page.fill("#id_what_to_do", "Uppdatera rutinen för bygglov.")
    page.fill("#id_action_title", "Ny rutin för bygglov")
    page.select_option("#id_action_owner", str(owner.pk))
    page.fill("#id_action_due_date", "2026-03-31")
    page.fill("#id_comment", "Gäller 16 kap.")
    page.get_by_role("button", name="Spara bedömningen").click()
    page.wait_for_load_state()

    impact = ImpactAssessment.objects.get(notice=notice)
    assert (impact.affects_us, impact.answered_by_id, impact.comment) == ("yes", owner.pk, "Gäller 16 kap.")
    action = Action.objects.get(pk=impact.action_id)
    assert (action.title, action.owner_id, str(action.due_date), action.item_id) == (
        "Ny rutin för bygglov", owner.pk, "2026-03-31", item.pk)

    page.goto(f"{live_server.url}/ws/{ws.slug}/laglista/poster/{item.pk}/historik/")
    history = page.inner_text("#historik")
    assert "Uppdatera rutinen för bygglov." in history and "bygg" in history
    assert "Ny rutin för bygglov" in history
    page.screenshot(path=str(artifacts / "notice-answered-history.png"), full_page=True)

    # The period's report, for the auditor: a period ending before it starts is refused in Swedish, a right one
    # downloads the notice with its answer and its action.
    page.goto(f"{live_server.url}/ws/{ws.slug}/lagandringar/")
    page.fill("#id_fran", "2020-02-01")
    page.fill("#id_till", "2020-01-01")
    page.click("#report-csv")
    page.wait_for_url("**/lagandringar/#rapport")
    assert "Slutdatumet ligger före startdatumet." in page.inner_text(".messages")
    page.fill("#id_fran", "2020-01-01")
    page.fill("#id_till", "")
    with page.expect_download() as info:
        page.click("#report-csv")
    path = artifacts / info.value.suggested_filename
    info.value.save_as(str(path))
    assert path.name.startswith("lagbevakning-byggbolaget-") and path.suffix == ".csv"
    (row,) = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8-sig"))))
    assert (row["beteckning"], row["paverkar_oss"], row["vad_behover_goras"]) == (
        PBL, "ja", "Uppdatera rutinen för bygglov.")
    assert row["atgard"].startswith("Ny rutin för bygglov – ansvarig bygg, klar senast 2026-03-31")
    page.close()
