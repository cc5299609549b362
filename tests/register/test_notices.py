"""Lagbevakning end to end with the real sync: plan- och bygglagen's 2026 record applied over its 2024 text
makes exactly one notice for the workspace whose laglista holds it, with the §§ touching its kravpunkter
first; importing again notifies nobody; a workspace without the statute hears nothing; the answer is in the
item's audit trail. Repeals propose the replacing act; new statutes are suggested by subject."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from pytest_django import Settings

from compliance.models import LegalDocument, Membership, Workspace
from compliance.services import LegalDocumentData, legal_document_upsert
from law.book_citations import book_citations
from law.models import StatuteChange, StatuteVersion
from register.models import (
    Action,
    ChangeNotice,
    ImpactAssessment,
    ItemOrigin,
    NoticeRead,
    RegisterItem,
    SuggestionDecision,
)
from register.notices.selectors import notice_detail
from register.notices.services import notice_answer, notices_create_for_versions
from register.notices.subjects import statute_subjects
from register.notices.wording import notice_line, notice_subject_text
from register.selectors import audit_trail
from register.services import document_decline
from tests.law.sfs_records_fixtures import OLD_TEXT, record
from tests.register.notices_fixtures import (
    PBL,
    add_requirement,
    load_corpus_statute,
    member,
    official_record,
    statute_with_text,
    sync_records,
    workspace_with,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def pbl(clean_queue: None, settings: Settings, tmp_path: Path) -> LegalDocument:
    settings.SFS_VECTORS_PATH = str(tmp_path / "none.npz")
    return load_corpus_statute(PBL)


@pytest.fixture
def bygg(pbl: LegalDocument) -> tuple[Workspace, User, RegisterItem]:
    """Byggbolaget's laglista holds plan- och bygglagen, with one kravpunkt on §§ the 2026 record changes
    (16 kap. 8–9 §§) and one on a § it leaves alone (8 kap. 4 §)."""
    ws, owner, (item,) = workspace_with("Byggbolaget", owner_name="bygg", documents=[pbl])
    add_requirement(item, "8 kap. 4 §", "Byggnadsverkets tekniska egenskaper")
    add_requirement(item, "16 kap. 8–9 §§", "Föreskrifter om byggnadsverk")
    return ws, owner, item


def test_the_real_amendment_makes_one_notice_with_the_touched_sections_first(bygg: tuple[Workspace, User, RegisterItem],
                                                                             pbl: LegalDocument,
                                                                             tmp_path: Path) -> None:
    ws, owner, item = bygg
    # Another workspace, whose laglista does not hold the statute, hears nothing.
    other_ws, _, _ = workspace_with("Kontoret", owner_name="kontor", documents=[])

    out = sync_records(tmp_path, [official_record(PBL)])

    assert "1 nya versioner" in out and "1 lagändringsnotiser (1 ändrade, 0 upphävda, 0 nya)" in out
    notice = ChangeNotice.objects.get()
    version = StatuteVersion.objects.get(document=pbl, is_current=True)
    assert (notice.workspace, notice.item, notice.legal_document, notice.version, notice.kind) == (
        ws, item, pbl, version, ChangeNotice.Kind.AMENDED)
    assert version.amended_through == "SFS 2025:1079"
    assert notice.change_count == StatuteChange.objects.filter(to_version=version).count() == 211
    assert notice.relevant_units == ["16 kap. 8 §", "16 kap. 8 a §", "16 kap. 9 §"]
    detail = notice_detail(notice)
    assert [view.change.citation for view in detail.changes[:3]] == notice.relevant_units
    assert all(view.relevant for view in detail.changes[:3]) and not any(v.relevant for v in detail.changes[3:])
    assert len(detail.changes) == 211
    item.refresh_from_db()
    assert item.needs_reassessment is True
    assert not ChangeNotice.objects.filter(workspace=other_ws).exists()
    # The item's history says it was flagged, and that the notice came.
    trail = list(audit_trail(ws, item=item))
    assert any(entry.changes_dict.get("needs_reassessment") == [False, True] for entry in trail)
    assert any(entry.content_type.model == "changenotice" for entry in trail)


def test_importing_again_changes_nothing_and_notifies_nobody_twice(bygg: tuple[Workspace, User, RegisterItem],
                                                                   tmp_path: Path) -> None:
    sync_records(tmp_path, [official_record(PBL)])
    notice = ChangeNotice.objects.get()

    out = sync_records(tmp_path, [official_record(PBL)], name="again.jsonl")

    assert "1 oförändrade" in out and "0 lagändringsnotiser" in out
    assert list(ChangeNotice.objects.values_list("pk", flat=True)) == [notice.pk]
    # The hourly scan finds nothing left to do either.
    assert notices_create_for_versions().total == 0


def test_a_document_put_on_the_register_after_the_change_gets_no_notice(pbl: LegalDocument, tmp_path: Path) -> None:
    sync_records(tmp_path, [official_record(PBL)])
    workspace_with("Sent AB", owner_name="sen", documents=[pbl])
    assert notices_create_for_versions().total == 0
    assert not ChangeNotice.objects.exists()


def test_a_member_answers_in_the_browser_and_the_answer_is_in_the_items_history(bygg: tuple[Workspace, User, RegisterItem],
                                                                                client: Client, tmp_path: Path) -> None:
    ws, owner, item = bygg
    sync_records(tmp_path, [official_record(PBL)])
    notice = ChangeNotice.objects.get()
    client.force_login(owner)

    page = client.get(reverse("notice_detail", args=[ws.slug, notice.pk])).content.decode()
    assert "Ändrade paragrafer" in page and "berör era kravpunkter" in page
    assert page.index("16 kap. 8 §") < page.index("1 kap. 3 §")  # the touched §§ first
    assert "<ins>" in page and "<del>" in page  # word diffs, the statute page's partial

    response = client.post(reverse("notice_answer", args=[ws.slug, notice.pk]), {
        "affects_us": "yes", "what_to_do": "Uppdatera rutinen för bygglov.", "action_title": "Ny rutin för bygglov",
        "action_owner": owner.pk, "action_due_date": "2026-03-31", "comment": "Gäller 16 kap."})

    assert response.status_code == 302
    notice.refresh_from_db()
    impact = ImpactAssessment.objects.get(notice=notice)
    assert (impact.affects_us, impact.answered_by, impact.what_to_do) == ("yes", owner, "Uppdatera rutinen för bygglov.")
    assert impact.action.title == "Ny rutin för bygglov" and impact.action.owner == owner
    assert str(impact.action.due_date) == "2026-03-31" and impact.action.item == item
    assert notice.answered_at is not None
    item.refresh_from_db()
    assert item.needs_reassessment is False
    trail = list(audit_trail(ws, item=item))
    answer = next(entry for entry in trail if entry.content_type.model == "impactassessment")
    assert answer.actor == owner and answer.changes_dict["affects_us"][1] == "yes"
    assert any(entry.content_type.model == "action" and entry.actor == owner for entry in trail)
    listed = client.get(reverse("notice_list", args=[ws.slug]) + "?status=besvarade").content.decode()
    assert f'data-notice="{notice.pk}"' in listed and "Påverkar oss: <strong>ja</strong>" in listed
    assert f'data-notice="{notice.pk}"' not in client.get(
        reverse("notice_list", args=[ws.slug]) + "?status=obesvarade").content.decode()


def test_answering_again_updates_the_one_answer_and_the_trail_says_what_changed(bygg: tuple[Workspace, User, RegisterItem],
                                                                                tmp_path: Path) -> None:
    ws, owner, item = bygg
    sync_records(tmp_path, [official_record(PBL)])
    notice = ChangeNotice.objects.get()
    notice_answer(notice=notice, user=owner, affects_us="unknown", comment="Vi läser in oss.")
    notice_answer(notice=notice, user=owner, affects_us="yes", what_to_do="Se över bygglovsrutinen.",
                  comment="Vi läser in oss.")

    impact = ImpactAssessment.objects.get(notice=notice)
    assert (impact.affects_us, impact.what_to_do, impact.comment) == ("yes", "Se över bygglovsrutinen.",
                                                                       "Vi läser in oss.")
    updates = [entry for entry in audit_trail(ws, item=item)
               if entry.content_type.model == "impactassessment" and entry.action == entry.Action.UPDATE]
    assert len(updates) == 1
    assert updates[0].changes_dict["affects_us"] == ["unknown", "yes"] and "comment" not in updates[0].changes_dict


def test_bad_answers_get_a_swedish_error(bygg: tuple[Workspace, User, RegisterItem], client: Client,
                                         tmp_path: Path) -> None:
    ws, owner, _ = bygg
    sync_records(tmp_path, [official_record(PBL)])
    notice = ChangeNotice.objects.get()
    client.force_login(owner)
    url = reverse("notice_answer", args=[ws.slug, notice.pk])

    missing = client.post(url, {"what_to_do": "x"})
    assert missing.status_code == 400 and "Ange om ändringen påverkar er." in missing.content.decode()
    outsider = member(workspace_with("Annat", owner_name="annan", documents=[])[0], "annans", Membership.Role.EDITOR)
    foreign_owner = client.post(url, {"affects_us": "yes", "action_title": "x", "action_owner": outsider.pk})
    assert foreign_owner.status_code == 400 and "Välj ett giltigt alternativ" in foreign_owner.content.decode()
    no_title = client.post(url, {"affects_us": "yes", "action_owner": owner.pk})
    assert no_title.status_code == 400 and "Beskriv åtgärden" in no_title.content.decode()
    assert not ImpactAssessment.objects.exists() and not Action.objects.exists()


def test_readers_and_revisors_read_but_do_not_answer(bygg: tuple[Workspace, User, RegisterItem], client: Client,
                                                     tmp_path: Path) -> None:
    ws, _, _ = bygg
    sync_records(tmp_path, [official_record(PBL)])
    notice = ChangeNotice.objects.get()
    for role in (Membership.Role.VIEWER, Membership.Role.AUDITOR):
        client.force_login(member(ws, f"user-{role}", role))
        page = client.get(reverse("notice_detail", args=[ws.slug, notice.pk]))
        assert page.status_code == 200 and "Inte bedömd än." in page.content.decode()
        assert 'name="affects_us"' not in page.content.decode()
        assert client.post(reverse("notice_answer", args=[ws.slug, notice.pk]),
                           {"affects_us": "no"}).status_code == 403
    assert not ImpactAssessment.objects.exists()
    # Opening it made it read for each of them (their own state), not for the owner who has not.
    assert sorted(NoticeRead.objects.filter(notice=notice).values_list("user__username", flat=True)) == [
        f"user-{Membership.Role.AUDITOR}", f"user-{Membership.Role.VIEWER}"]


def test_the_header_counts_the_members_own_unread_notices_in_one_query(bygg: tuple[Workspace, User, RegisterItem],
                                                                       client: Client, tmp_path: Path) -> None:
    ws, owner, _ = bygg
    editor = member(ws, "redaktor", Membership.Role.EDITOR)
    sync_records(tmp_path, [official_record(PBL)])
    notice = ChangeNotice.objects.get()
    client.force_login(owner)
    with CaptureQueriesContext(connection) as queries:
        page = client.get(reverse("workspace_settings", args=[ws.slug])).content.decode()
    assert 'title="Olästa lagändringar (1 obesvarade)">1</span>' in page
    assert sum("register_changenotice" in q["sql"] for q in queries.captured_queries) == 1

    client.get(reverse("notice_detail", args=[ws.slug, notice.pk]))  # the owner opens it
    assert "notice-count" not in client.get(reverse("workspace_settings", args=[ws.slug])).content.decode()
    client.force_login(editor)  # still unread for the editor
    assert 'title="Olästa lagändringar (1 obesvarade)">1</span>' in client.get(
        reverse("workspace_settings", args=[ws.slug])).content.decode()
    notice.answered_at = notice.created_at
    notice.save(update_fields=["answered_at"])
    assert "notice-count" not in client.get(reverse("workspace_settings", args=[ws.slug])).content.decode()


def test_a_repeal_notice_proposes_the_replacing_act(clean_queue: None, client: Client, settings: Settings,
                                                    tmp_path: Path) -> None:
    settings.SFS_VECTORS_PATH = str(tmp_path / "none.npz")
    old = statute_with_text("2099:1", "Lag (2099:1) om provföretag", OLD_TEXT, amended_through="SFS 2099:5")
    new = statute_with_text("2099:99", "Lag (2099:99) om nya prov", "1 § Ny lag.")
    ws, owner, (item,) = workspace_with("Provbolaget", owner_name="prov", documents=[old])

    out = sync_records(tmp_path, [record("2099:1", repealed_on="2100-01-01T00:00:00", repealed_by="SFS 2099:99")])

    assert "1 upphävda" in out
    notice = ChangeNotice.objects.get()
    assert (notice.kind, notice.item, notice.replaced_by, notice.replacement) == (
        ChangeNotice.Kind.REPEALED, item, "SFS 2099:99", new)
    item.refresh_from_db()
    assert item.needs_reassessment
    client.force_login(owner)
    page = client.get(reverse("notice_detail", args=[ws.slug, notice.pk])).content.decode()
    assert "Upphävd genom SFS 2099:99, den 2100-01-01" in page and "Lag (2099:99) om nya prov" in page
    client.post(reverse("notice_answer", args=[ws.slug, notice.pk]), {"affects_us": "yes", "add_to_register": "on"})
    added = RegisterItem.objects.get(workspace=ws, legal_document=new)
    assert added.origin == ItemOrigin.CHANGE


def test_a_new_statute_is_suggested_to_workspaces_whose_laglista_has_its_subject(clean_queue: None, settings: Settings,
                                                                                 tmp_path: Path) -> None:
    settings.SFS_VECTORS_PATH = str(tmp_path / "none.npz")
    settings.SFS_CORPUS_SNAPSHOT = date(2099, 1, 1)
    base = legal_document_upsert(LegalDocumentData(sfs_number="2099:2", title="Lag (2099:2) om bygg",
                                                   full_text="1 § Bygg.", category="plan, bygg och fastighet"),
                                 process=False).document
    other = legal_document_upsert(LegalDocumentData(sfs_number="2099:4", title="Lag (2099:4) om skatt",
                                                    full_text="1 § Skatt.", category="redovisning, bolag, skatt"),
                                  process=False).document
    builders, owner, _ = workspace_with("Byggarna", owner_name="byggare", documents=[base])
    accountants, _, _ = workspace_with("Revisorerna", owner_name="revisor", documents=[other])
    text = "1 § Denna förordning kompletterar lagen (2099:2) om bygg.\r\n\r\n2 § Den gäller alla byggherrar."

    out = sync_records(tmp_path, [record("2099:3", text=text, andring=None, title="Förordning (2099:3) om byggherrar")])

    assert "1 nya författningar" in out and "1 nya)" in out
    notice = ChangeNotice.objects.get()
    assert (notice.workspace, notice.kind, notice.item, notice.legal_document.sfs_number) == (
        builders, ChangeNotice.Kind.NEW, None, "2099:3")
    assert statute_subjects(text) == {"plan, bygg och fastighet"}
    assert not ChangeNotice.objects.filter(workspace=accountants).exists()
    result = notice_answer(notice=notice, user=owner, affects_us="yes", add_to_register=True)
    assert result.added_item.legal_document == LegalDocument.objects.get(sfs_number="2099:3")
    notice.refresh_from_db()
    assert notice.item == result.added_item and notice.is_answered


def test_a_statute_the_book_cites_everywhere_gives_a_new_statute_no_subject(clean_queue: None, settings: Settings,
                                                                           client: Client, tmp_path: Path) -> None:
    """Förvaltningslagen and offentlighets- och sekretesslagen are cited by 8 % and 5.5 % of the statute book (for
    appeals and secrecy): a new grant ordinance citing only them is not about a laglista holding them. One citing
    statutes the book cites rarely, on the laglista's subject, is, and the notice says which: the one on the list,
    and the one only sharing its subject."""
    settings.SFS_VECTORS_PATH = str(tmp_path / "none.npz")
    settings.SFS_CORPUS_SNAPSHOT = date(2099, 1, 1)
    process = "offentlighet, sekretess, förvaltning och process"
    loaded = {number: legal_document_upsert(LegalDocumentData(sfs_number=number, title=title, full_text="1 § Text.",
                                                              category=process), process=False).document
              for number, title in (("2017:900", "Förvaltningslag (2017:900)"),
                                    ("2009:400", "Offentlighets- och sekretesslag (2009:400)"),
                                    ("2010:1932", "Delgivningslag (2010:1932)"),
                                    ("1971:291", "Förvaltningsprocesslag (1971:291)"))}
    ws, owner, _ = workspace_with("Myndigheten", owner_name="myndighet",
                                  documents=[loaded["2017:900"], loaded["2009:400"], loaded["2010:1932"]])
    book = book_citations()
    assert book.statutes > 4000 and book.share("2017:900") > 0.05 and book.share("2009:400") > 0.05
    assert 0 < book.share("2010:1932") <= settings.NOTICE_SUBJECT_MAX_CITING_SHARE
    assert 0 < book.share("1971:291") <= settings.NOTICE_SUBJECT_MAX_CITING_SHARE
    grant = ("1 § Bidrag lämnas enligt denna förordning.\r\n\r\n2 § Ett beslut får överklagas enligt 40 § "
             "förvaltningslagen (2017:900). Sekretess gäller enligt offentlighets- och sekretesslagen (2009:400).")
    service = ("1 § Beslut enligt denna förordning delges enligt delgivningslagen (2010:1932) och överklagas enligt "
               "förvaltningsprocesslagen (1971:291) och förvaltningslagen (2017:900).")

    sync_records(tmp_path, [record("2099:3", text=grant, andring=None, title="Förordning (2099:3) om bidrag"),
                            record("2099:4", text=service, andring=None, title="Förordning (2099:4) om delgivning")])

    assert statute_subjects(grant) == set() and statute_subjects(service) == {process}
    (notice,) = ChangeNotice.objects.filter(workspace=ws)
    assert (notice.legal_document.sfs_number, notice.kind) == ("2099:4", ChangeNotice.Kind.NEW)
    assert notice.subject_documents == [
        {"number": "2010:1932", "title": "Delgivningslag (2010:1932)", "category": process, "listed": True},
        {"number": "1971:291", "title": "Förvaltningsprocesslag (1971:291)", "category": process, "listed": False}]
    why = (f"hänvisar till Delgivningslag (2010:1932) på er laglista och till Förvaltningsprocesslag (1971:291) "
           f"inom ämnet ”{process}”")
    assert notice_subject_text(notice) == why and notice_line(notice).endswith(why)
    client.force_login(owner)
    assert f"Ny författning som kan gälla er: den {why}." in client.get(
        reverse("notice_list", args=[ws.slug])).content.decode()
    assert f"En ny författning vars ämne finns på er laglista: den {why}." in client.get(
        reverse("notice_detail", args=[ws.slug, notice.pk])).content.decode()
    (listed,) = client.get(reverse("api-notices", args=[ws.slug])).json()["results"]
    assert listed["subject_documents"] == notice.subject_documents


def test_a_declined_suggestion_is_remembered_and_a_decided_document_not_suggested(clean_queue: None, settings: Settings,
                                                                                  tmp_path: Path) -> None:
    settings.SFS_VECTORS_PATH = str(tmp_path / "none.npz")
    settings.SFS_CORPUS_SNAPSHOT = date(2099, 1, 1)
    base = legal_document_upsert(LegalDocumentData(sfs_number="2099:2", title="Lag (2099:2) om bygg",
                                                   full_text="1 § Bygg.", category="plan, bygg och fastighet"),
                                 process=False).document
    first, owner, _ = workspace_with("Första", owner_name="forsta", documents=[base])
    second, other_owner, _ = workspace_with("Andra", owner_name="andra", documents=[base])
    text = "1 § Denna förordning kompletterar lagen (2099:2) om bygg."
    new_doc = legal_document_upsert(LegalDocumentData(sfs_number="2099:3", title="Förordning (2099:3) om bygg",
                                                      full_text=text), process=False).document
    # The second workspace declined the document among the register's suggestions before it was imported.
    document_decline(workspace=second, user=other_owner, legal_document=new_doc)
    StatuteVersion.objects.create(document=new_doc, full_text=text, content_hash="x", origin="FILE", is_current=True)

    assert notices_create_for_versions().new == 1
    notice = ChangeNotice.objects.get()
    assert notice.workspace == first
    notice_answer(notice=notice, user=owner, affects_us="no")
    assert SuggestionDecision.objects.get(workspace=first, legal_document=new_doc).decision == "rejected"
    assert not RegisterItem.objects.filter(legal_document=new_doc).exists()
