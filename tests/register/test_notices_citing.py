"""A change notice names the changed units a kravpunkt's §§ cite without naming them, with the kravpunkter citing
them: plan- och bygglagen's real 2026 record over its 2024 text (210 changed §§), and kravpunkter on §§ it leaves
alone whose text points into what it changed: 8 kap. 4 § ("med stöd av 16 kap. 2 §") in the statute itself, and
10 kap. 9 § plan- och byggförordningen ("8 kap. 9 § första stycket … plan- och bygglagen") in another document on
the same laglista. Another workspace's kravpunkter never show in a notice."""

from __future__ import annotations

import io
import json
from datetime import date, timedelta
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from pytest_django import Settings

from agent.answering.change_answers import change_answer
from chunks.services import chunk_document
from compliance.clock import STOCKHOLM
from compliance.models import LegalDocument, Workspace
from law.legal_refs import StatuteDirectory
from law.models import StatuteChange
from register.models import ChangeNotice, RegisterItem, Requirement
from register.notices.citing import CitationReader, document_units, requirements_citing
from register.notices.digests import digests_send
from register.notices.selectors import notice_detail
from register.notices.services import (
    notice_answer,
    notice_subscription_save,
    notices_create_for_versions,
    notices_refresh_units,
)
from register.notices.wording import notice_off_list_text
from register.services import RegisterError
from tests.helpers import chunked_statute
from tests.law.sfs_records_fixtures import OLD_TEXT, record
from tests.register.notices_fixtures import (
    PBL,
    add_requirement,
    load_corpus_statute,
    official_record,
    statute_with_text,
    sync_records,
    workspace_with,
)

pytestmark = pytest.mark.django_db

PBF = "2011:338"


@pytest.fixture
def statutes(clean_queue: None, settings: Settings, tmp_path: Path) -> tuple[LegalDocument, LegalDocument]:
    settings.SFS_VECTORS_PATH = str(tmp_path / "none.npz")
    return load_corpus_statute(PBL), load_corpus_statute(PBF)


@pytest.fixture
def bygg(statutes: tuple[LegalDocument, LegalDocument]) -> tuple[Workspace, User, list[RegisterItem]]:
    """Byggbolaget's laglista holds both: a kravpunkt on a § the record changes (16 kap. 8 §), one on a § it leaves
    alone that cites a changed § of the same law (8 kap. 4 §), and one on the förordning's 10 kap. 9 §."""
    ws, owner, items = workspace_with("Byggbolaget", owner_name="bygg", documents=list(statutes))
    add_requirement(items[0], "16 kap. 8 §", "Föreskrifter om byggnadsverk")
    add_requirement(items[0], "8 kap. 4 §", "Byggnadsverkets tekniska egenskaper")
    add_requirement(items[1], "10 kap. 9 §", "Boverkets föreskrifter om egenskapskraven")
    return ws, owner, items


def test_the_notice_names_the_changed_units_the_kravpunkters_sections_cite(
        bygg: tuple[Workspace, User, list[RegisterItem]], tmp_path: Path) -> None:
    ws, _, items = bygg
    # Another workspace holds the law with a kravpunkt on 3 kap. 20 § ("enligt 16 §"): its notice names 3 kap.
    # 16 §, and neither notice names the other workspace's kravpunkter.
    other, _, (other_item,) = workspace_with("Kommunen", owner_name="kommun", documents=[bygg[2][0].legal_document])
    other_requirement = add_requirement(other_item, "3 kap. 20 §", "Granskningsyttrande")

    sync_records(tmp_path, [official_record(PBL)])

    notice = ChangeNotice.objects.get(workspace=ws)
    direct = Requirement.objects.get(item=items[0], section_ref="16 kap. 8 §")
    in_law = Requirement.objects.get(item=items[0], section_ref="8 kap. 4 §")
    in_ordinance = Requirement.objects.get(item=items[1])
    changed = set(StatuteChange.objects.filter(to_version=notice.version).values_list("citation", flat=True))
    assert {"16 kap. 8 §", "16 kap. 2 §", "8 kap. 9 §", "9 kap. 55 §", "3 kap. 16 §"} <= changed
    assert "8 kap. 4 §" not in changed and "3 kap. 20 §" not in changed
    assert notice.relevant_units == ["16 kap. 8 §"]
    # The touched 16 kap. 8 § leans on a changed § of its own too (9 kap. 55 §).
    assert notice.cited_units == [
        {"unit": "8 kap. 9 §",
         "citing": [{"requirement": in_ordinance.pk, "document": PBF, "citation": "10 kap. 9 §"}]},
        {"unit": "9 kap. 55 §", "citing": [{"requirement": direct.pk, "document": PBL, "citation": "16 kap. 8 §"}]},
        {"unit": "16 kap. 2 §", "citing": [{"requirement": in_law.pk, "document": PBL, "citation": "8 kap. 4 §"}]},
    ]
    theirs = ChangeNotice.objects.get(workspace=other)
    assert theirs.cited_units == [{"unit": "3 kap. 16 §", "citing": [
        {"requirement": other_requirement.pk, "document": PBL, "citation": "3 kap. 20 §"}]}]

    # The touched § first, then the cited ones with the kravpunkter citing them, then the rest in order.
    detail = notice_detail(notice)
    assert [view.change.citation for view in detail.changes[:4]] == [
        "16 kap. 8 §", "8 kap. 9 §", "9 kap. 55 §", "16 kap. 2 §"]
    assert detail.changes[0].relevant and not detail.changes[0].cited_by
    assert [(c.requirement, c.label) for c in detail.changes[1].cited_by] == [
        (in_ordinance, "10 kap. 9 § Plan- och byggförordning (2011:338)")]
    assert [(c.requirement, c.label) for c in detail.changes[3].cited_by] == [(in_law, "8 kap. 4 §")]
    assert not any(view.relevant or view.cited_by for view in detail.changes[4:])


def test_the_page_the_api_and_the_digest_say_which_kravpunkt_cites_a_changed_unit(
        bygg: tuple[Workspace, User, list[RegisterItem]], client: Client, tmp_path: Path) -> None:
    ws, owner, _ = bygg
    notice_subscription_save(workspace=ws, user=owner, frequency="daily")
    sync_records(tmp_path, [official_record(PBL)])
    notice = ChangeNotice.objects.get(workspace=ws)
    client.force_login(owner)

    page = client.get(reverse("notice_detail", args=[ws.slug, notice.pk])).content.decode()
    assert "hänvisas till från era kravpunkter" in page
    assert "Hänvisas till i 8 kap. 4 §, som er kravpunkt ”Byggnadsverkets tekniska egenskaper” gäller." in page
    assert page.index("16 kap. 8 §") < page.index("Hänvisas till i 10 kap. 9 §") < page.index("1 kap. 3 §")
    listed = client.get(reverse("notice_list", args=[ws.slug])).content.decode()
    assert ("varav 16 kap. 8 § berör era kravpunkter och 8 kap. 9 §, 9 kap. 55 §, 16 kap. 2 § hänvisas till "
            "från dem.") in listed

    body = client.get(reverse("api-notice", args=[ws.slug, notice.pk])).json()
    assert body["cited_units"] == ["8 kap. 9 §", "9 kap. 55 §", "16 kap. 2 §"]
    cited = next(change for change in body["changes"] if change["citation"] == "16 kap. 2 §")
    requirement = Requirement.objects.get(section_ref="8 kap. 4 §")
    assert cited["relevant"] is False and cited["cited_by"] == [
        {"requirement_id": requirement.pk, "title": "Byggnadsverkets tekniska egenskaper", "section_ref": "8 kap. 4 §",
         "citing": "8 kap. 4 §"}]

    # The assistant's answer about the workspace's changes says so too.
    answer = change_answer("Vilka ändringar har vi inte bedömt?", ws, today=date(2026, 12, 4))
    assert ("berör era kravpunkter: 16 kap. 8 §; hänvisas till från era kravpunkter: 8 kap. 9 §, 9 kap. 55 §, "
            "16 kap. 2 §") in answer

    # A kravpunkt deleted since the notice was made is not named (the notice keeps what it knew then).
    requirement.delete()
    body = client.get(reverse("api-notice", args=[ws.slug, notice.pk])).json()
    assert next(c for c in body["changes"] if c["citation"] == "16 kap. 2 §")["cited_by"] == []

    # The digest of the day after, at noon in Stockholm (when it is due), whatever the hour the test runs.
    mail.outbox.clear()
    digests_send(now=timezone.localtime(notice.created_at, STOCKHOLM).replace(hour=12) + timedelta(days=1))
    (message,) = mail.outbox
    assert ("berör era kravpunkter: 16 kap. 8 §; hänvisas till från era kravpunkter: 8 kap. 9 §, 9 kap. 55 §, "
            "16 kap. 2 §") in message.body


def test_notices_made_before_cited_units_existed_are_filled_once_and_answered_ones_kept(
        bygg: tuple[Workspace, User, list[RegisterItem]], tmp_path: Path) -> None:
    ws, _, items = bygg
    other, other_owner, (other_item,) = workspace_with("Kommunen", owner_name="kommun",
                                                       documents=[items[0].legal_document])
    add_requirement(other_item, "3 kap. 20 §", "Granskningsyttrande")
    sync_records(tmp_path, [official_record(PBL)])
    ours, theirs = ChangeNotice.objects.get(workspace=ws), ChangeNotice.objects.get(workspace=other)
    made_then = ours.cited_units
    assert [cited["unit"] for cited in made_then] == ["8 kap. 9 §", "9 kap. 55 §", "16 kap. 2 §"]
    assert theirs.cited_units
    # Kommunen answered its notice before the field existed: what it answered stays as it was.
    notice_answer(notice=theirs, user=other_owner, affects_us="no")
    ChangeNotice.objects.update(cited_units=[])

    out = io.StringIO()
    call_command("notices_fill", "--workspace", ws.slug, stdout=out)
    assert out.getvalue().strip().startswith("1 lagändringar fick hänvisade enheter;")
    ours.refresh_from_db()
    theirs.refresh_from_db()
    assert ours.cited_units == made_then
    assert theirs.cited_units == []
    # Again, over every workspace: nothing left to change.
    call_command("notices_fill", stdout=out)
    assert "\n0 lagändringar fick hänvisade enheter;" in out.getvalue()
    with pytest.raises(CommandError, match="Arbetsytan finns inte: saknas"):
        call_command("notices_fill", "--workspace", "saknas")


def test_a_unit_a_kravpunkt_names_is_touched_not_cited(statutes: tuple[LegalDocument, LegalDocument]) -> None:
    """8 kap. 2 § cites 16 kap. 2 §: with a kravpunkt on 16 kap. 2 § as well, the unit is a direct touch only. A
    kravpunkt on a whole chapter reads every § of it; one on an article reads nothing."""
    pbl, _ = statutes
    ws, _, (item,) = workspace_with("Ett AB", owner_name="ett", documents=[pbl])
    chapter = add_requirement(item, "3 kap.", "Detaljplan")
    add_requirement(item, "8 kap. 2 §", "Krav på byggnadsverk")
    add_requirement(item, "artikel 5", "Ingen paragraf")
    reader = CitationReader(StatuteDirectory([(PBL, pbl.title, [], []), (PBF, "Plan- och byggförordning", [], [])]))

    cited = requirements_citing(reader, ws.pk, PBL, ["3 kap. 16 §", "16 kap. 2 §"], direct=["16 kap. 2 §"])

    # 3 kap. 16 § is cited by the chapter's own §§ (3 kap. 7 §, 18 a §, 20 § …), each once.
    assert [unit["unit"] for unit in cited] == ["3 kap. 16 §"]
    citing = [entry["citation"] for entry in cited[0]["citing"]]
    assert {"3 kap. 7 §", "3 kap. 18 a §", "3 kap. 20 §", "3 kap. 22 §"} <= set(citing)
    assert len(citing) == len(set(citing)) and "3 kap. 16 §" not in citing
    assert {entry["requirement"] for entry in cited[0]["citing"]} == {chapter.pk}
    # A regulation's units come from its parsed structure; a statute's from its text.
    unit = next(unit for unit in document_units(pbl) if unit.citation == "8 kap. 4 §")
    assert (unit.chapter, unit.section) == ("8", "4") and "16 kap. 2 §" in unit.text
    regulation = LegalDocument(sfs_number="AFS 2099:1", title="Föreskrift", full_text="", structure=[
        {"kind": "paragraf", "citation": "3 §", "chapter": "", "section": "3", "text": "3 § Enligt 2 § gäller …"},
        {"kind": "inledning", "citation": "", "chapter": "", "section": "", "text": "Inledning"}])
    assert [(u.citation, u.text) for u in document_units(regulation)] == [("3 §", "3 § Enligt 2 § gäller …")]


def test_the_notice_names_the_laglistas_documents_citing_a_changed_unit_kravpunkt_or_not(
        statutes: tuple[LegalDocument, LegalDocument], client: Client, tmp_path: Path) -> None:
    """A laglista holding the law and its förordning, without a single kravpunkt: the förordning's 10 kap. 9 §
    ("… 8 kap. 9 § första stycket … plan- och bygglagen") is named under the changed 8 kap. 9 §, as the
    förordning's text is now. A laglista without the förordning hears nothing of it."""
    pbl, pbf = statutes
    chunk_document("LEGAL_DOCUMENT", pbf.pk)
    ws, owner, _ = workspace_with("Byggbolaget", owner_name="bygg", documents=[pbl, pbf])
    only_law, other, _ = workspace_with("Kommunen", owner_name="kommun", documents=[pbl])
    sync_records(tmp_path, [official_record(PBL)])
    notice = ChangeNotice.objects.get(workspace=ws)
    assert notice.relevant_units == [] and notice.cited_units == []

    detail = notice_detail(notice)
    view = next(view for view in detail.changes if view.change.citation == "8 kap. 9 §")
    assert not view.relevant and not view.cited_by
    assert (PBF, "10 kap. 9 §", pbf.title) in [(unit.number, unit.citation, unit.title) for unit in view.from_register]
    named = [view for view in detail.changes if view.from_register]
    assert detail.changes[:len(named)] == named  # they come first, in document order
    assert all(unit.number == PBF for view in named for unit in view.from_register)
    assert not any(view.from_register for view in notice_detail(ChangeNotice.objects.get(workspace=only_law)).changes)

    client.force_login(owner)
    page = client.get(reverse("notice_detail", args=[ws.slug, notice.pk])).content.decode()
    assert "hänvisas till från er laglista" in page
    assert '<a href="/lag/2011:338#10kap9">10 kap. 9 § Plan- och byggförordning (2011:338)</a>' in page
    body = client.get(reverse("api-notice", args=[ws.slug, notice.pk])).json()
    cited = next(change for change in body["changes"] if change["citation"] == "8 kap. 9 §")
    assert {"sfs_number": PBF, "citation": "10 kap. 9 §", "title": pbf.title} in cited["cited_from_register"]
    client.force_login(other)
    theirs = ChangeNotice.objects.get(workspace=only_law)
    assert "er laglista:" not in client.get(reverse("notice_detail", args=[only_law.slug, theirs.pk])).content.decode()


def test_a_law_the_laglista_leaves_out_but_its_documents_cite_is_watched_too(
        statutes: tuple[LegalDocument, LegalDocument], client: Client, tmp_path: Path) -> None:
    """A laglista holding the förordning but not its law hears of the law's change, because the förordning's §§
    cite changed §§ of it; one holding both hears once, one holding neither nothing, and one that put the förordning
    on its list after the change nothing. Answering can put the law on the laglista."""
    pbl, pbf = statutes
    chunk_document("LEGAL_DOCUMENT", pbf.pk)
    ws, owner, (pbf_item,) = workspace_with("Byggbolaget", owner_name="bygg", documents=[pbf])
    requirement = add_requirement(pbf_item, "10 kap. 9 §", "Boverkets föreskrifter om egenskapskraven")
    both, _, _ = workspace_with("Kommunen", owner_name="kommun", documents=[pbl, pbf])
    neither, _, _ = workspace_with("Kontoret", owner_name="kontor", documents=[])
    out = sync_records(tmp_path, [official_record(PBL)])
    late, _, _ = workspace_with("Sent AB", owner_name="sen", documents=[pbf])

    assert "2 lagändringsnotiser (2 ändrade, 0 upphävda, 0 nya)" in out
    notice = ChangeNotice.objects.get(workspace=ws)
    assert (notice.kind, notice.legal_document, notice.item, notice.relevant_units) == (
        ChangeNotice.Kind.AMENDED, pbl, None, [])
    # Its kravpunkt on the förordning's 10 kap. 9 § cites the law's changed 8 kap. 9 §, as for a listed law.
    assert notice.cited_units == [{"unit": "8 kap. 9 §", "citing": [
        {"requirement": requirement.pk, "document": PBF, "citation": "10 kap. 9 §"}]}]
    assert notice.change_count == StatuteChange.objects.filter(to_version=notice.version).count()
    assert ChangeNotice.objects.get(workspace=both).item.legal_document == pbl
    assert not ChangeNotice.objects.filter(workspace__in=[neither, late]).exists()
    assert notices_create_for_versions().total == 0  # the hourly scan finds nothing left to do
    pbf_item.refresh_from_db()
    assert pbf_item.needs_reassessment is False  # the förordning itself did not change

    detail = notice_detail(notice)
    assert detail.leaning == (pbf,)
    view = next(view for view in detail.changes if view.change.citation == "8 kap. 9 §")
    assert (PBF, "10 kap. 9 §") in [(unit.number, unit.citation) for unit in view.from_register]
    client.force_login(owner)
    page = client.get(reverse("notice_detail", args=[ws.slug, notice.pk])).content.decode()
    assert ('Författningen finns inte på er laglista, men <a href="/lag/2011:338">Plan- och byggförordning '
            '(2011:338)</a> på den hänvisar till paragrafer som ändrats') in page
    assert 'name="add_to_register"' in page
    listed = client.get(reverse("notice_list", args=[ws.slug])).content.decode()
    # The list names the listed document that brings it, as the API does.
    assert notice.leaning_documents == [{"number": PBF, "title": "Plan- och byggförordning (2011:338)"}]
    assert "Finns inte på er laglista, men Plan- och byggförordning (2011:338) på den hänvisar till den." in listed
    api = client.get(reverse("api-notice", args=[ws.slug, notice.pk])).json()
    assert api["leaning_documents"] == [{"number": PBF, "title": "Plan- och byggförordning (2011:338)"}]

    response = client.post(reverse("notice_answer", args=[ws.slug, notice.pk]),
                           {"affects_us": "yes", "add_to_register": "on"})
    assert response.status_code == 302
    notice.refresh_from_db()
    added = RegisterItem.objects.get(workspace=ws, legal_document=pbl)
    assert notice.item == added and notice.answered_at is not None
    # On the laglista now: answering again cannot add it twice.
    with pytest.raises(RegisterError) as raised:
        notice_answer(notice=notice, user=owner, affects_us="yes", add_to_register=True)
    assert raised.value.code == "already_on_register"


def test_a_repealed_law_a_listed_regulation_rests_on_or_cites_is_noticed(clean_queue: None, client: Client,
                                                                           settings: Settings, tmp_path: Path) -> None:
    """A föreskrift issued under a förordning (its legal basis) and a law whose § cites it: a laglista holding either
    hears of the förordning's repeal, named with the listed document and the replacing act; one holding the
    förordning itself hears as before, and one holding an unrelated document hears nothing."""
    settings.SFS_VECTORS_PATH = str(tmp_path / "none.npz")
    old = statute_with_text("2099:1", "Förordning (2099:1) om provföretag", OLD_TEXT, amended_through="SFS 2099:5")
    replacing = statute_with_text("2099:99", "Förordning (2099:99) om prov", "1 § Ny förordning.")
    regulation = LegalDocument.objects.create(
        sfs_number="PROVFS 2099:3", title="Provverkets föreskrifter om provföretag", full_text="1 § Föreskrift.",
        content_type=LegalDocument.ContentType.AGENCY_REGULATION, legal_basis="7 § förordningen (2099:1)",
        legal_basis_sfs=["2099:1"])
    citing = chunked_statute("2099:50", "Lag (2099:50) om tillsyn",
                             "1 § Tillsynen omfattar det som anges i 2 § förordningen (2099:1) om provföretag.")
    unrelated = chunked_statute("2099:60", "Lag (2099:60) om annat", "1 § Annat.")
    resting_ws, owner, _ = workspace_with("Provbolaget", owner_name="prov", documents=[regulation])
    citing_ws, _, _ = workspace_with("Tillsyn AB", owner_name="tillsyn", documents=[citing])
    holding_ws, _, (holding_item,) = workspace_with("Förordningen AB", owner_name="ford", documents=[old])
    other_ws, _, _ = workspace_with("Annat AB", owner_name="annat", documents=[unrelated])
    chunk_document("LEGAL_DOCUMENT", old.pk)

    out = sync_records(tmp_path, [record("2099:1", title="Förordning (2099:1) om provföretag",
                                         repealed_on="2100-01-01T00:00:00", repealed_by="SFS 2099:99")])

    assert "3 upphävda" in out
    for ws in (resting_ws, citing_ws):
        notice = ChangeNotice.objects.get(workspace=ws)
        assert (notice.kind, notice.legal_document, notice.item, notice.replaced_by, notice.replacement) == (
            ChangeNotice.Kind.REPEALED, old, None, "SFS 2099:99", replacing)
    assert ChangeNotice.objects.get(workspace=holding_ws).item == holding_item
    assert not ChangeNotice.objects.filter(workspace=other_ws).exists()
    assert notices_create_for_versions().total == 0

    notice = ChangeNotice.objects.get(workspace=resting_ws)
    assert notice_detail(notice).leaning == (regulation,)
    assert notice_detail(ChangeNotice.objects.get(workspace=citing_ws)).leaning == (citing,)
    # Each workspace's notice keeps its own listed document as the reason, in the digest's and the list's words.
    assert notice.leaning_documents == [{"number": regulation.sfs_number, "title": regulation.title}]
    assert notice_off_list_text(ChangeNotice.objects.get(workspace=citing_ws)) == (
        f"finns inte på er laglista, men {citing.title} på den vilar på eller hänvisar till den")
    client.force_login(owner)
    page = client.get(reverse("notice_detail", args=[resting_ws.slug, notice.pk])).content.decode()
    assert ('Författningen finns inte på er laglista, men <a href="/lag/PROVFS_2099:3">Provverkets föreskrifter om '
            'provföretag</a> på den vilar på eller hänvisar till den.') in page
    assert "Förordning (2099:99) om prov" in page
    # Answering can put the replacing act on the laglista.
    client.post(reverse("notice_answer", args=[resting_ws.slug, notice.pk]),
                {"affects_us": "yes", "add_to_register": "on"})
    assert RegisterItem.objects.filter(workspace=resting_ws, legal_document=replacing).exists()


def test_bench_notices_times_the_scan_and_makes_no_notice(statutes: tuple[LegalDocument, LegalDocument],
                                                          tmp_path: Path) -> None:
    """Each round of the scan makes the due notice and rolls it back; the pages of the notices there are are timed.
    The figures are printed, not asserted."""
    pbl, pbf = statutes
    chunk_document("LEGAL_DOCUMENT", pbf.pk)
    workspace_with("Byggbolaget", owner_name="bygg", documents=[pbf])
    sync_records(tmp_path, [official_record(PBL)])
    out = io.StringIO()
    call_command("bench_notices", "--json", "--rounds", "2", stdout=out)
    report = json.loads(out.getvalue())
    assert report["database"]["notices"] == 1 and report["database"]["applied_versions"] == 1
    assert [scan["amended"] for scan in report["scan"]] == [0, 0]  # nothing is due
    assert report["detail"]["n"] == 1 and report["detail_changes_max"] == 211
    assert report["detail_cited_from_register_max"] > 0
    # The one workspace holding a notice: its coming changes and its report in each format.
    assert report["coming"]["n"] == 1 and report["report"]["n"] == 1 and report["report_rows_max"] == 1
    assert {fmt: times["n"] for fmt, times in report["report_files"].items()} == {"xlsx": 1, "pdf": 1, "csv": 1}
    # Its one member's digest, built and written: the notice is unanswered and no digest has been sent.
    assert report["digest"]["n"] == 1 and report["digest_members_max"] == 1 and report["digests_built"] == 1

    ChangeNotice.objects.all().delete()
    out = io.StringIO()
    call_command("bench_notices", "--json", "--rounds", "2", stdout=out)
    report = json.loads(out.getvalue())
    assert [scan["amended"] for scan in report["scan"]] == [1, 1]  # made in each round, and rolled back
    assert not ChangeNotice.objects.exists() and report["detail"] == {"n": 0} and report["report"] == {"n": 0}
    with pytest.raises(CommandError):
        call_command("bench_notices", "--rounds", "0", stdout=io.StringIO())


def test_an_amended_section_a_listed_regulations_legal_basis_names_is_noticed(clean_queue: None, settings: Settings,
                                                                               tmp_path: Path) -> None:
    """A föreskrift issued "med stöd av 2 § lagen (2099:1)" hears when the record changes 2 §; one issued under its
    1 §, which the record leaves as it was, hears nothing."""
    settings.SFS_VECTORS_PATH = str(tmp_path / "none.npz")
    law = statute_with_text("2099:1", "Lag (2099:1) om provföretag", OLD_TEXT, amended_through="SFS 2099:5")

    def regulation(number: str, basis: str) -> LegalDocument:
        return LegalDocument.objects.create(
            sfs_number=number, title=f"Provverkets föreskrifter {number}", full_text="1 § Föreskrift.",
            content_type=LegalDocument.ContentType.AGENCY_REGULATION, legal_basis=basis, legal_basis_sfs=["2099:1"])

    under_changed = regulation("PROVFS 2099:1", "2 § lagen (2099:1) om provföretag")
    under_unchanged = regulation("PROVFS 2099:2", "1 § lagen (2099:1) om provföretag")
    told, _, _ = workspace_with("Registret AB", owner_name="reg", documents=[under_changed])
    untold, _, _ = workspace_with("Omfattning AB", owner_name="omf", documents=[under_unchanged])

    sync_records(tmp_path, [record("2099:1")])

    notice = ChangeNotice.objects.get(workspace=told)
    assert (notice.kind, notice.legal_document, notice.item) == (ChangeNotice.Kind.AMENDED, law, None)
    assert "2 §" in set(StatuteChange.objects.filter(to_version=notice.version).values_list("citation", flat=True))
    assert notice_detail(notice).leaning == (under_changed,)
    assert not ChangeNotice.objects.filter(workspace=untold).exists()


def test_notices_made_before_leaning_documents_existed_name_them_once_filled(
        clean_queue: None, settings: Settings, tmp_path: Path) -> None:
    """An amendment and a repeal of laws two laglistor leave out but whose listed documents bring them: emptied as a
    notice made before the field existed, `notices_fill` names the listed documents again, in the digest's words,
    leaves an answered notice and a listed law's notice as they were, and a second run changes nothing."""
    settings.SFS_VECTORS_PATH = str(tmp_path / "none.npz")
    law = statute_with_text("2099:1", "Lag (2099:1) om provföretag", OLD_TEXT, amended_through="SFS 2099:5")
    old = statute_with_text("2099:2", "Förordning (2099:2) om prov", OLD_TEXT, amended_through="SFS 2099:5")
    under_law = LegalDocument.objects.create(
        sfs_number="PROVFS 2099:1", title="Provverkets föreskrifter om register", full_text="1 § Föreskrift.",
        content_type=LegalDocument.ContentType.AGENCY_REGULATION, legal_basis="2 § lagen (2099:1) om provföretag",
        legal_basis_sfs=["2099:1"])
    under_old = LegalDocument.objects.create(
        sfs_number="PROVFS 2099:2", title="Provverkets föreskrifter om tillsyn", full_text="1 § Föreskrift.",
        content_type=LegalDocument.ContentType.AGENCY_REGULATION, legal_basis="3 § förordningen (2099:2) om prov",
        legal_basis_sfs=["2099:2"])
    ws, _, _ = workspace_with("Provbolaget", owner_name="prov", documents=[under_law, under_old])
    answering, answerer, _ = workspace_with("Svar AB", owner_name="svar", documents=[under_law])
    holding, _, _ = workspace_with("Lagen AB", owner_name="lag", documents=[law])
    sync_records(tmp_path, [record("2099:1"),
                            record("2099:2", title="Förordning (2099:2) om prov", repealed_on="2100-01-01T00:00:00",
                                   repealed_by="SFS 2099:99")])
    amended = ChangeNotice.objects.get(workspace=ws, kind=ChangeNotice.Kind.AMENDED)
    repealed = ChangeNotice.objects.get(workspace=ws, kind=ChangeNotice.Kind.REPEALED)
    assert (amended.legal_document, repealed.legal_document) == (law, old)
    answered = ChangeNotice.objects.get(workspace=answering)
    made_then = {notice.pk: notice.leaning_documents for notice in (amended, repealed, answered)}
    assert made_then[amended.pk] == [{"number": "PROVFS 2099:1", "title": "Provverkets föreskrifter om register"}]
    assert made_then[repealed.pk] == [{"number": "PROVFS 2099:2", "title": "Provverkets föreskrifter om tillsyn"}]
    assert ChangeNotice.objects.get(workspace=holding).item is not None
    notice_answer(notice=answered, user=answerer, affects_us="no")
    ChangeNotice.objects.update(leaning_documents=[])
    assert notice_off_list_text(ChangeNotice.objects.get(pk=amended.pk)) == (
        "finns inte på er laglista, men andra författningar på den hänvisar till den")

    out = io.StringIO()
    call_command("notices_fill", stdout=out)
    assert out.getvalue().strip() == ("0 lagändringar fick hänvisade enheter; 2 notiser om författningar utanför "
                                      "laglistan fick de dokument på listan som hänvisar till dem.")
    for notice in (amended, repealed):
        notice.refresh_from_db()
        assert notice.leaning_documents == made_then[notice.pk]
    assert notice_off_list_text(amended) == (
        "finns inte på er laglista, men Provverkets föreskrifter om register på den hänvisar till den")
    assert ChangeNotice.objects.get(pk=answered.pk).leaning_documents == []
    assert ChangeNotice.objects.get(workspace=holding).leaning_documents == []
    # Again: nothing left to change.
    call_command("notices_fill", "--workspace", ws.slug, stdout=out)
    assert out.getvalue().strip().endswith("0 notiser om författningar utanför laglistan fick de dokument på listan "
                                           "som hänvisar till dem.")
    # Rebuilding the version's changed units names them too, as a notice made now would.
    ChangeNotice.objects.filter(pk=amended.pk).update(leaning_documents=[])
    assert notices_refresh_units(version_ids=[amended.version_id]) == 1
    amended.refresh_from_db()
    assert amended.leaning_documents == made_then[amended.pk]
