"""The Lagändringar pages, the e-mail setting and the API: every view checks ownership (another workspace's
notice is a 404, in the page and in the API), readers read, bad input gets one clear error."""

from __future__ import annotations

import csv
import io
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from openpyxl import load_workbook
from pytest_django import Settings

from compliance.models import LegalDocument, Membership, Workspace
from compliance.services import LegalDocumentData, legal_document_upsert
from register.models import ChangeNotice, ImpactAssessment, NoticeRead, NoticeSubscription, RegisterItem
from register.notices.selectors import coming_into_force, notice_list
from register.notices.services import notice_answer, notices_create_for_versions
from tests.law.sfs_records_fixtures import NEW_TEXT, OLD_TEXT, provforetag_statute, record
from tests.register.notices_fixtures import (
    add_requirement,
    member,
    statute_with_new_version,
    sync_records,
    workspace_with,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup(clean_queue: None, settings: Settings, tmp_path: Path) -> dict[str, Any]:
    """Two workspaces holding the same statute, each with its notice of the same amendment."""
    settings.SFS_VECTORS_PATH = str(tmp_path / "none.npz")
    doc = provforetag_statute()
    alice_ws, alice, (alice_item,) = workspace_with("Alices AB", owner_name="alice", documents=[doc])
    charlie_ws, charlie, _ = workspace_with("Charlies AB", owner_name="charlie", documents=[doc])
    sync_records(tmp_path, [record("2099:1")])
    return {
        "doc": doc, "alice_ws": alice_ws, "alice": alice, "item": alice_item,
        "notice": ChangeNotice.objects.get(workspace=alice_ws),
        "charlie_ws": charlie_ws, "charlie": charlie,
        "charlies_notice": ChangeNotice.objects.get(workspace=charlie_ws),
    }


def page_urls(ws: Workspace, notice: ChangeNotice) -> list[tuple[str, str]]:
    return [
        ("get", reverse("notice_list", args=[ws.slug])),
        ("get", reverse("notice_detail", args=[ws.slug, notice.pk])),
        ("post", reverse("notice_answer", args=[ws.slug, notice.pk])),
        ("post", reverse("notice_unread", args=[ws.slug, notice.pk])),
        ("post", reverse("notice_summary", args=[ws.slug, notice.pk])),
        ("post", reverse("notice_subscription_save", args=[ws.slug])),
        ("get", reverse("notice_report", args=[ws.slug, "xlsx"])),
    ]


def api_urls(ws: Workspace, notice: ChangeNotice) -> list[tuple[str, str]]:
    return [
        ("get", reverse("api-notices", args=[ws.slug])),
        ("get", reverse("api-notice-count", args=[ws.slug])),
        ("get", reverse("api-notice-report", args=[ws.slug, "csv"])),
        ("get", reverse("api-notice-coming", args=[ws.slug])),
        ("get", reverse("api-notice", args=[ws.slug, notice.pk])),
        ("post", reverse("api-notice-answer", args=[ws.slug, notice.pk])),
        ("post", reverse("api-notice-read", args=[ws.slug, notice.pk])),
        ("delete", reverse("api-notice-read", args=[ws.slug, notice.pk])),
    ]


def test_it_checks_ownership(setup: dict[str, Any], client: Client) -> None:
    """charlie is a member of his own workspace only: alice's workspace and notice are not found, and
    alice's workspace with charlie's notice id is not found either."""
    client.force_login(setup["charlie"])
    for method, url in page_urls(setup["alice_ws"], setup["notice"]) + page_urls(setup["alice_ws"],
                                                                                   setup["charlies_notice"]):
        response = getattr(client, method)(url, {"affects_us": "no", "frequency": "off"})
        assert response.status_code == 404, url
    for method, url in api_urls(setup["alice_ws"], setup["notice"]):
        response = client.get(url) if method == "get" else getattr(client, method)(
            url, {"affects_us": "no"}, content_type="application/json")
        assert response.status_code == 404, url
        assert response.json()["error"]["code"] == "not_found"
    client.force_login(setup["alice"])
    for method, url in [u for u in page_urls(setup["alice_ws"], setup["charlies_notice"]) if "lagandringar/" in u[1]
                        and str(setup["charlies_notice"].pk) in u[1]]:
        assert getattr(client, method)(url, {"affects_us": "no"}).status_code == 404, url
    for method, url in [u for u in api_urls(setup["alice_ws"], setup["charlies_notice"])
                        if f"/{setup['charlies_notice'].pk}/" in u[1]]:
        response = client.get(url) if method == "get" else getattr(client, method)(
            url, {"affects_us": "no"}, content_type="application/json")
        assert response.status_code == 404, url
    assert not ImpactAssessment.objects.exists()
    assert not NoticeSubscription.objects.filter(user=setup["charlie"], workspace=setup["alice_ws"]).exists()
    assert not NoticeRead.objects.filter(notice=setup["notice"]).exists()  # charlie read nothing of alice's


def test_it_requires_login(setup: dict[str, Any], client: Client) -> None:
    for method, url in page_urls(setup["alice_ws"], setup["notice"]):
        response = getattr(client, method)(url)
        assert response.status_code == 302 and "/logga-in/" in response["Location"], url


def test_the_list_filters_unread_unanswered_and_answered(setup: dict[str, Any], client: Client) -> None:
    client.force_login(setup["alice"])
    notice, ws = setup["notice"], setup["alice_ws"]
    url = reverse("notice_list", args=[ws.slug])
    assert f'data-notice="{notice.pk}"' in client.get(url + "?status=olasta").content.decode()
    client.get(reverse("notice_detail", args=[ws.slug, notice.pk]))  # opening it reads it
    assert f'data-notice="{notice.pk}"' not in client.get(url + "?status=olasta").content.decode()
    assert f'data-notice="{notice.pk}"' in client.get(url + "?status=obesvarade").content.decode()
    assert f'data-notice="{notice.pk}"' not in client.get(url + "?status=besvarade").content.decode()
    assert f'data-notice="{setup["charlies_notice"].pk}"' not in client.get(url).content.decode()
    assert f'data-notice="{notice.pk}"' in client.get(url + "?typ=amended").content.decode()
    assert "Inga lagändringar med det urvalet" in client.get(url + "?typ=repealed").content.decode()


def test_the_list_names_each_notices_document_without_reading_its_texts(setup: dict[str, Any], client: Client) -> None:
    """A statute's text and each of its versions' are megabytes; a notice's row names the document."""
    ws, notice = setup["alice_ws"], setup["notice"]
    listed = next(n for n in notice_list(ws, setup["alice"]) if n.pk == notice.pk)
    assert set(LegalDocument.TEXT_FIELDS) <= listed.legal_document.get_deferred_fields()
    assert "full_text" in listed.version.get_deferred_fields()
    client.force_login(setup["alice"])
    assert listed.legal_document.title in client.get(reverse("notice_list", args=[ws.slug])).content.decode()


def test_the_list_gives_the_laglistas_own_documents_first_then_laws_it_leaves_out_then_suggestions(
        setup: dict[str, Any], client: Client) -> None:
    ws, own = setup["alice_ws"], setup["notice"]

    # Made after the own one, so newest-first alone would put them above it.
    suggested_doc, suggested_version = statute_with_new_version("2099:31")
    suggested = ChangeNotice.objects.create(workspace=ws, legal_document=suggested_doc, version=suggested_version,
                                            kind=ChangeNotice.Kind.NEW)
    cited_doc, cited_version = statute_with_new_version("2099:30")
    cited = ChangeNotice.objects.create(workspace=ws, legal_document=cited_doc, version=cited_version,
                                        kind=ChangeNotice.Kind.AMENDED)

    assert list(notice_list(ws, setup["alice"])) == [own, cited, suggested]
    client.force_login(setup["alice"])
    page = client.get(reverse("notice_list", args=[ws.slug])).content.decode()
    assert page.index("Lag (2099:1) om provföretag") < page.index("Lag (2099:30) om prov") \
        < page.index("Lag (2099:31) om prov")
    listed = client.get(reverse("api-notices", args=[ws.slug])).json()["results"]
    assert [row["id"] for row in listed] == [own.pk, cited.pk, suggested.pk]


def test_the_api_lists_shows_counts_and_answers(setup: dict[str, Any], client: Client) -> None:
    client.force_login(setup["alice"])
    ws, notice = setup["alice_ws"], setup["notice"]

    listed = client.get(reverse("api-notices", args=[ws.slug]) + "?status=obesvarade").json()
    assert [row["id"] for row in listed["results"]] == [notice.pk]
    assert listed["results"][0]["sfs_number"] == "2099:1" and listed["results"][0]["amended_through"] == "SFS 2099:11"
    assert client.get(reverse("api-notice-count", args=[ws.slug])).json() == {"unanswered": 1, "unread": 1}
    detail = client.get(reverse("api-notice", args=[ws.slug, notice.pk])).json()
    amended = next(c for c in detail["changes"] if c["citation"] == "2 §")
    assert {"op": "added", "text": "ett digitalt "} in amended["diff"][0]

    bad = client.post(reverse("api-notice-answer", args=[ws.slug, notice.pk]), {"affects_us": "kanske"},
                      content_type="application/json")
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid"
    assert "affects_us" in bad.json()["error"]["details"]
    foreign = client.post(reverse("api-notice-answer", args=[ws.slug, notice.pk]),
                          {"affects_us": "yes", "action_title": "x", "action_owner": setup["charlie"].pk},
                          content_type="application/json")
    assert foreign.status_code == 400 and "action_owner" in foreign.json()["error"]["details"]

    answered = client.post(reverse("api-notice-answer", args=[ws.slug, notice.pk]),
                           {"affects_us": "no", "comment": "Gäller inte oss."}, content_type="application/json")
    assert answered.status_code == 200
    assert answered.json()["impact"]["affects_us"] == "no" and answered.json()["impact"]["answered_by"] == "alice"
    assert client.get(reverse("api-notice-count", args=[ws.slug])).json() == {"unanswered": 0, "unread": 0}
    assert client.get(reverse("api-notices", args=[ws.slug]) + "?status=nej").status_code == 400


def test_readers_get_403_in_the_api(setup: dict[str, Any], client: Client) -> None:
    reader = member(setup["alice_ws"], "lasare", Membership.Role.VIEWER)
    client.force_login(reader)
    ws, notice = setup["alice_ws"], setup["notice"]
    assert client.get(reverse("api-notice", args=[ws.slug, notice.pk])).status_code == 200
    response = client.post(reverse("api-notice-answer", args=[ws.slug, notice.pk]), {"affects_us": "no"},
                           content_type="application/json")
    assert response.status_code == 403 and response.json()["error"]["code"] == "permission_denied"
    assert not ImpactAssessment.objects.exists()


def test_the_settings_page_has_the_email_setting_and_saves_it_per_member(setup: dict[str, Any], client: Client) -> None:
    ws = setup["alice_ws"]
    reader = member(ws, "lasare", Membership.Role.VIEWER)
    client.force_login(reader)
    page = client.get(reverse("workspace_settings", args=[ws.slug])).content.decode()
    assert 'id="lagbevakning"' in page and 'value="weekly" selected' in page

    response = client.post(reverse("notice_subscription_save", args=[ws.slug]),
                           {"frequency": "daily", "changes": "on"})
    assert response.status_code == 302
    subscription = NoticeSubscription.objects.get(user=reader, workspace=ws)
    assert (subscription.frequency, subscription.changes, subscription.new_statutes) == ("daily", True, False)
    assert 'value="daily" selected' in client.get(reverse("workspace_settings", args=[ws.slug])).content.decode()
    bad = client.post(reverse("notice_subscription_save", args=[ws.slug]), {"frequency": "hourly"}, follow=True)
    assert "Välj av, dagligen eller veckovis." in bad.content.decode()
    assert NoticeSubscription.objects.get(user=reader, workspace=ws).frequency == "daily"
    # alice's own setting is untouched.
    assert not NoticeSubscription.objects.filter(user=setup["alice"]).exists()


def test_answering_one_of_two_pending_notices_keeps_the_flag(setup: dict[str, Any], tmp_path: Path) -> None:
    """The item stays "ändrad – behöver bedömas" until every notice of its document is answered."""
    ws, doc = setup["alice_ws"], setup["doc"]
    sync_records(tmp_path, [record("2099:1", andring="t.o.m. SFS 2099:12",
                                   text="1 § Denna lag gäller för alla bolag. Lag (2099:12).")], name="second.jsonl")
    first, second = ChangeNotice.objects.filter(workspace=ws).order_by("pk")
    notice_answer(notice=first, user=setup["alice"], affects_us="no")
    setup["item"].refresh_from_db()
    assert setup["item"].needs_reassessment is True
    notice_answer(notice=second, user=setup["alice"], affects_us="unknown")
    setup["item"].refresh_from_db()
    assert setup["item"].needs_reassessment is False
    assert LegalDocument.objects.get(pk=doc.pk).amended_through == "SFS 2099:12"
    assert notices_create_for_versions().total == 0


def test_a_version_whose_sections_the_diff_finds_unchanged_is_still_noticed(setup: dict[str, Any], client: Client,
                                                                            tmp_path: Path) -> None:
    """A missed amendment is the worse error: a new version is noticed even when no § differs (here only its
    transitional provisions changed), and the page says where to look."""
    ws = setup["alice_ws"]
    current = LegalDocument.objects.get(pk=setup["doc"].pk).full_text  # the text the fixture's sync made current
    text = current.replace("\n\n", "\r\n\r\n") + "\r\n\r\n2099:12\r\n\r\n1. Denna lag träder i kraft den 1 januari 2100."
    sync_records(tmp_path, [record("2099:1", andring="t.o.m. SFS 2099:12", text=text)], name="overgang.jsonl")
    notice = ChangeNotice.objects.filter(workspace=ws).order_by("-pk").first()
    assert notice.version.amended_through == "SFS 2099:12" and notice.change_count == 0
    client.force_login(setup["alice"])
    page = client.get(reverse("notice_detail", args=[ws.slug, notice.pk])).content.decode()
    assert "Jämförelsen hittade ingen ändrad paragraf" in page


def _report_rows(response: Any) -> list[dict[str, str]]:
    assert response.status_code == 200, response.content[:300]
    return list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"))))


@pytest.mark.clock  # the page and the file read today
def test_the_report_gives_the_periods_notices_with_their_answers_in_three_formats(setup: dict[str, Any],
                                                                                   client: Client) -> None:
    ws, notice, alice = setup["alice_ws"], setup["notice"], setup["alice"]
    notice_answer(notice=notice, user=alice, affects_us="yes", what_to_do="Uppdatera rutinen för provföretag.",
                  action_title="Ny rutin", action_owner=alice, action_due_date=date(2027, 1, 31))
    # Noted at 00:30 on 1 April in Stockholm, 31 March in UTC: the report counts Stockholm's days.
    ChangeNotice.objects.filter(pk=notice.pk).update(created_at=datetime(2026, 3, 31, 22, 30, tzinfo=UTC))
    client.force_login(alice)
    url = reverse("notice_report", args=[ws.slug, "csv"])

    rows = _report_rows(client.get(url, {"fran": "2026-04-01", "till": "2026-04-30"}))
    assert len(rows) == 1  # charlie's notice of the same change is charlie's
    row = rows[0]
    assert (row["datum"], row["beteckning"], row["typ"], row["typ_text"]) == ("2026-04-01", "2099:1", "amended",
                                                                              "ändrad")
    assert row["andring"] == "ändrad genom 2 författningar t.o.m. SFS 2099:11, den senaste gäller från 2100-07-01"
    assert row["pa_laglistan"] == "ja"
    assert row["paverkar_oss"] == "ja" and row["vad_behover_goras"] == "Uppdatera rutinen för provföretag."
    assert row["bedomd_av"] == "alice" and row["atgard"] == "Ny rutin – ansvarig alice, klar senast 2027-01-31, öppen"
    assert _report_rows(client.get(url, {"till": "2026-03-31"})) == []
    assert len(_report_rows(client.get(url))) == 1  # no period: everything

    workbook = client.get(reverse("notice_report", args=[ws.slug, "xlsx"]), {"fran": "2026-04-01"})
    assert workbook["Content-Disposition"].startswith('attachment; filename="lagbevakning-alices-ab-')
    sheet = load_workbook(io.BytesIO(workbook.content)).active
    values = [[cell.value for cell in line] for line in sheet.iter_rows()]
    assert ["Period: från 2026-04-01"] == [v[0] for v in values if v[0] and str(v[0]).startswith("Period")]
    assert any("Sammanställning: Lagändringar 1, Besvarade 1, Obesvarade 0, Påverkar oss: ja 1" in str(v[0])
               for v in values)
    heading = values.index(next(v for v in values if v[0] == "Datum"))
    assert values[heading + 1][1:4] == ["Lag (2099:1) om provföretag", "2099:1", "ändrad"]
    pdf = client.get(reverse("notice_report", args=[ws.slug, "pdf"]))
    assert pdf["Content-Type"] == "application/pdf" and pdf.content.startswith(b"%PDF")

    # Any member may take the report, as they may read the list.
    client.force_login(member(ws, "revisor", Membership.Role.VIEWER))
    assert len(_report_rows(client.get(url))) == 1


def test_a_bad_period_gets_a_swedish_error_on_the_page_and_a_structured_one_in_the_api(setup: dict[str, Any],
                                                                                      client: Client) -> None:
    ws = setup["alice_ws"]
    client.force_login(setup["alice"])
    page = client.get(reverse("notice_list", args=[ws.slug])).content.decode()
    assert 'id="rapport"' in page and 'id="report-xlsx"' in page and 'name="fran"' in page
    url = reverse("notice_report", args=[ws.slug, "xlsx"])
    for query, message in [({"fran": "2026-13-01"}, "Ange startdatumet som ÅÅÅÅ-MM-DD."),
                           ({"fran": "2026-05-01", "till": "2026-04-01"}, "Slutdatumet ligger före startdatumet.")]:
        response = client.get(url, query, follow=True)
        assert response.redirect_chain == [(reverse("notice_list", args=[ws.slug]) + "#rapport", 302)]
        assert f'<li class="error">{message}</li>' in response.content.decode()
    assert client.get(reverse("notice_report", args=[ws.slug, "docx"])).status_code == 404

    api = reverse("api-notice-report", args=[ws.slug, "csv"])
    reversed_ = client.get(api, {"since": "2026-05-01", "until": "2026-04-01"})
    assert reversed_.status_code == 400 and reversed_.json()["error"]["code"] == "period_reversed"
    assert reversed_.json()["error"]["message"] == "Slutdatumet ligger före startdatumet."
    bad = client.get(api, {"since": "igår"})
    assert bad.status_code == 400 and "since" in bad.json()["error"]["details"]
    assert len(_report_rows(client.get(api, {"since": "2020-01-01"}))) == 1


@pytest.mark.clock  # the page and the file read today
def test_what_enters_into_force_later_is_listed_soonest_first_with_the_kravpunkter_it_touches(
        setup: dict[str, Any], client: Client, tmp_path: Path) -> None:
    """The record's 2099:10 changes 2 § and 5 § and ends 3 § from 1 July 2099 (its transitional provisions; the
    renumbered 4 a § names no act, so no day), and 2099:11 brings a new 6 § on 1 July 2100."""
    ws, notice, item = setup["alice_ws"], setup["notice"], setup["item"]
    add_requirement(item, "5 §", "Årlig rapport")
    before = coming_into_force(ws, today=date(2099, 6, 30))
    assert [(c.in_force, c.act, c.units, c.ending, c.relevant, c.notice_id) for c in before] == [
        (date(2099, 7, 1), "SFS 2099:10", ("2 §", "5 §"), ("3 §",), ("5 §",), notice.pk),
        (date(2100, 7, 1), "SFS 2099:11", ("6 §",), (), (), notice.pk)]
    assert [c.in_force for c in coming_into_force(ws, today=date(2099, 7, 1))] == [date(2100, 7, 1)]
    assert coming_into_force(ws, today=date(2100, 7, 1)) == []
    # Charlie's laglista holds the same statute without his kravpunkt; his rows name his own notice.
    assert [c.notice_id for c in coming_into_force(setup["charlie_ws"], today=date(2099, 6, 30))] == [
        setup["charlies_notice"].pk] * 2

    # A repeal from a day to come is listed on that day, with its notice.
    sync_records(tmp_path, [record("2099:1", repealed_on="2101-01-01T00:00:00", repealed_by="SFS 2100:99",
                                   updated="2100-02-01T10:00:00")], name="repeal.jsonl")
    repeal_notice = ChangeNotice.objects.get(workspace=ws, kind=ChangeNotice.Kind.REPEALED)
    assert [(c.in_force, c.act, c.repeal, c.notice_id) for c in coming_into_force(ws, today=date(2100, 7, 1))] == [
        (date(2101, 1, 1), "SFS 2100:99", True, repeal_notice.pk)]

    # The page and the API show what is still to come on the day they are asked: 6 § until 1 July 2100.
    client.force_login(setup["alice"])
    page = client.get(reverse("notice_list", args=[ws.slug])).content.decode()
    assert 'id="framover"' in page and "Träder i kraft framöver" in page
    assert "6 § (lydelse enligt SFS 2099:11)" in page and "upphävs genom SFS 2100:99" in page
    body = client.get(reverse("api-notice-coming", args=[ws.slug])).json()["results"]
    assert {"in_force": "2100-07-01", "sfs_number": "2099:1", "title": "Lag (2099:1) om provföretag",
            "act": "SFS 2099:11", "repeal": False, "units": ["6 §"], "ending_units": [], "relevant_units": [],
            "notice_id": notice.pk} in body

    # A newer version without the coming 6 § (the amendment was withdrawn) takes it off the list.
    withdrawn = NEW_TEXT.replace(
        "\r\n\r\n6 § /Träder i kraft I:2100-07-01/ Rapporten ska lämnas digitalt. Lag (2099:11).", "")
    assert withdrawn != NEW_TEXT
    sync_records(tmp_path, [record("2099:1", text=withdrawn, andring="t.o.m. SFS 2099:12",
                                   updated="2100-03-01T10:00:00")], name="withdrawn.jsonl")
    assert [c.in_force for c in coming_into_force(ws, today=date(2099, 6, 30))] == [date(2099, 7, 1),
                                                                                   date(2101, 1, 1)]


@pytest.mark.clock  # the page and the file read today
def test_a_long_list_of_coming_units_is_cut_on_the_page(setup: dict[str, Any], client: Client, tmp_path: Path) -> None:
    doc = legal_document_upsert(LegalDocumentData(sfs_number="2099:3", title="Lag (2099:3) om långa listor",
                                                  full_text=OLD_TEXT, amended_through="SFS 2099:5"),
                                process=False).document
    ws = setup["alice_ws"]
    RegisterItem.objects.create(register=setup["item"].register, workspace=ws, legal_document=doc)
    coming = "\r\n\r\n".join(f"{n} § /Träder i kraft I:2100-07-01/ Regel {n}. Lag (2099:11)." for n in range(1, 15))
    sync_records(tmp_path, [record("2099:3", text=coming, title="Lag (2099:3) om långa listor")], name="long.jsonl")
    (long_list,) = [c for c in coming_into_force(ws, today=date(2099, 6, 30)) if c.document == doc]
    assert long_list.units == tuple(f"{n} §" for n in range(1, 15))

    client.force_login(setup["alice"])
    page = client.get(reverse("notice_list", args=[ws.slug])).content.decode()
    line = page[page.index('data-coming="2099:3"'):]
    line = line[:line.index("</li>")]
    assert "1 §, 2 §" in line and "12 § och 2 till (lydelse enligt SFS 2099:11)" in line and "13 §" not in line
