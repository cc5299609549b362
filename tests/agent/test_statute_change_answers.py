"""A question about what changed in a statute it names is answered from the changes the knowledge base has read,
not from the statute's text: the amending acts, their days and the units each changed.

Our statute (2099:1) synced through `sync_sfs` with a record of our own: 2099:10 (in force 2099-07-01) amends 2 §,
repeals 3 §, renumbers 4 § and adds 5 §; 2099:11 adds 6 § from 2100-07-01. Plan- och bygglagen with its real 2026
record shows the same on the law itself. Each test passes its own "today"."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from pytest_django import Settings

from agent.answering import chat
from agent.answering.statute_change_answers import AskedStatute, statute_change_answer, statutes_asked_about
from compliance.models import LegalDocument, Membership, Workspace
from compliance.services import LegalDocumentData, legal_document_upsert
from law.models import StatuteChange
from law.statute_directory import statute_directory_invalidate
from tests.helpers import make_user
from tests.law.sfs_records_fixtures import provforetag_statute, record
from tests.register.notices_fixtures import PBL, load_corpus_statute, official_record, sync_records

pytestmark = pytest.mark.django_db

BEFORE = date(2099, 3, 1)  # both acts still to come
BETWEEN = date(2099, 12, 1)  # 2099:10 in force, 2099:11 to come


@pytest.fixture
def statute(clean_queue: None, settings: Settings, tmp_path: Path) -> Iterator[LegalDocument]:
    settings.SFS_VECTORS_PATH = str(tmp_path / "none.npz")
    settings.OPENAI_API_KEY = ""
    settings.OPENAI_BASE_URL = ""
    doc = provforetag_statute()
    statute_directory_invalidate()
    yield doc
    statute_directory_invalidate()


@pytest.fixture
def synced(statute: LegalDocument, tmp_path: Path) -> LegalDocument:
    sync_records(tmp_path, [record("2099:1")])
    return statute


def test_what_changed_in_a_named_statute_lists_its_amending_acts_and_units(synced: LegalDocument) -> None:
    text = statute_change_answer("Vad har ändrats i lagen (2099:1)?", today=BETWEEN)

    assert text.startswith("**Lag (2099:1) om provföretag**\n\nÄndringar som den gällande lydelsen har "
                           "(ändringar t.o.m. SFS 2099:11):")
    assert "- SFS 2099:10, i kraft 2099-07-01: " in text
    assert "2 § ändrad" in text and "3 § upphävd" in text and "4 § → 4 a §" in text and "5 § ny" in text
    assert "- SFS 2099:11, träder i kraft 2100-07-01: 1 ändring (6 § ny)." in text
    assert "[Alla ändringar, ord för ord](/lag/2099:1#andringar)" in text
    assert text.endswith("_Regeringskansliets rättsdatabaser är inlästa t.o.m. 2100-01-01. "
                         "Det är författningstexten som gäller._")
    # Before either act's day both are to come.
    assert "- SFS 2099:10, träder i kraft 2099-07-01: " in statute_change_answer("Har lagen (2099:1) ändrats?",
                                                                                  today=BEFORE)


def test_a_cited_unit_gets_its_own_changes_only(synced: LegalDocument) -> None:
    amended = statute_change_answer("Har 2 § lagen (2099:1) ändrats?", today=BETWEEN)
    untouched = statute_change_answer("När ändrades 1 § lagen (2099:1)?", today=BETWEEN)

    assert "Ändringar av 2 § som den gällande lydelsen har" in amended
    assert "- SFS 2099:10, i kraft 2099-07-01: 1 ändring (2 § ändrad)." in amended
    assert "5 § ny" not in amended and "- SFS 2099:11" not in amended
    assert ("Kunskapsbasen har ingen ändring av 1 § efter lydelsen med ändringar t.o.m. SFS 2099:11. "
            "[Öppna författningen](/lag/2099:1)") in untouched


def test_a_period_keeps_the_acts_in_force_in_it_and_names_the_latest_otherwise(synced: LegalDocument) -> None:
    this_year = statute_change_answer("Vilka ändringar i lagen (2099:1) har kommit i år?", today=BETWEEN)
    earlier = statute_change_answer("Har lagen (2099:1) ändrats 2098?", today=BETWEEN)

    assert "Ändringar i kraft i år (2099-01-01–2099-12-31)" in this_year
    assert "- SFS 2099:10, i kraft 2099-07-01" in this_year and "- SFS 2099:11" not in this_year
    assert "Ingen ändring har trätt i kraft 2098 (2098-01-01–2098-12-31). Senast: SFS 2099:11" in earlier


def test_a_statute_without_read_changes_says_which_version_it_has(statute: LegalDocument) -> None:
    text = statute_change_answer("Vad har ändrats i lagen (2099:1)?", today=BETWEEN)

    assert ("Kunskapsbasen har ingen ändring av författningen efter lydelsen med ändringar t.o.m. SFS 2099:5."
            in text)
    # No record read at all: the answer says the knowledge base has the bundled text alone.
    assert text.endswith("_Kunskapsbasen har författningarna som de löd våren 2024; inga senare uppgifter från "
                         "rättsdatabaserna är inlästa. Det är författningstexten som gäller._")


def test_a_repealed_statute_says_by_which_act(statute: LegalDocument, tmp_path: Path) -> None:
    sync_records(tmp_path, [record("2099:1", repealed_on="2100-01-01T00:00:00", repealed_by="SFS 2099:99")])
    text = statute_change_answer("Har lagen (2099:1) ändrats?", today=BETWEEN)
    assert text.startswith("**Lag (2099:1) om provföretag**\n\nUpphävd genom SFS 2099:99, den 2100-01-01.\n\n")


def test_an_agency_regulations_changes_are_not_claimed(statute: LegalDocument) -> None:
    legal_document_upsert(LegalDocumentData(sfs_number="AFS 2099:1", title="Föreskrifter om prov",
                                            full_text="1 § Arbetsgivaren ska prova.", source="AFS-2099-1.pdf",
                                            content_type=LegalDocument.ContentType.AGENCY_REGULATION,
                                            agency="Arbetsmiljöverket", series="AFS"), process=False)
    statute_directory_invalidate()

    text = statute_change_answer("Har AFS 2099:1 ändrats?", today=BETWEEN)

    assert "Kunskapsbasen läser inte in ändringar av myndigheters föreskrifter: den har texten från AFS-2099-1.pdf" \
        in text
    assert "ingen ändring" not in text and "rättsdatabaser" not in text


def test_a_question_about_the_statutes_subject_is_left_to_retrieval(synced: LegalDocument) -> None:
    assert statutes_asked_about("Vad har ändrats i lagen (2099:1)?") == [AskedStatute("2099:1")]
    assert statutes_asked_about("Vad är nytt i lagen (2099:1)?") == [AskedStatute("2099:1")]
    assert statutes_asked_about("Vilka ändringar har gjorts i 2 § och 5 § lagen (2099:1)?") == [
        AskedStatute("2099:1", ("2 §", "5 §"))]
    assert statutes_asked_about("Vad i lagen (2099:1) träder i kraft nästa år?") == [AskedStatute("2099:1")]
    # A word of the statute's subject between the change word and the statute: a question about the rule.
    assert statutes_asked_about("När träder reglerna om rapport i lagen (2099:1) i kraft?") == []
    assert statutes_asked_about("Vad säger lagen (2099:1) om när ett företag börjar?") == []
    assert statutes_asked_about("Vad säger lagen (2099:1) om ändrad rapportering?") == []
    assert statutes_asked_about("Vad gäller enligt lagen (2099:1) om registret ändrats?") == []
    assert statutes_asked_about("Vad säger lagen (2099:1) om nytt register?") == []
    # No statute named: the laglista's own changes (agent.answering.change_answers).
    assert statutes_asked_about("Vad har ändrats i lagar som berör oss?") == []
    assert statute_change_answer("Vad har ändrats i lagen (2099:7)?", today=BETWEEN) is None  # not held


def test_the_chat_answers_it_directly_with_or_without_sources(synced: LegalDocument) -> None:
    alice = make_user("alice")
    ws = Workspace.objects.create(name="Alices AB", slug="alices-ab")
    Membership.objects.create(user=alice, workspace=ws, role="owner")
    conversation = chat.conversation_create(workspace=ws, user=alice)

    message = chat.answer(conversation, alice, "Vad har ändrats i lagen (2099:1) om provföretag?")

    assert message.answer_mode == "direct" and message.sources == []
    assert message.content.startswith("**Lag (2099:1) om provföretag**\n\nÄndringar som den gällande lydelsen har")
    assert "SFS 2099:10" in message.content and "SFS 2099:11" in message.content
    # The conversation's last question makes a follow-up naming a § of it a question about changes too.
    follow_up = chat.answer(conversation, alice, "Och 2 § lagen (2099:1)?")
    assert follow_up.answer_mode == "direct" and "1 ändring (2 § ändrad)" in follow_up.content


def test_a_follow_up_naming_another_statute_asks_about_its_changes(synced: LegalDocument, tmp_path: Path) -> None:
    provforetag_statute("2099:2")
    sync_records(tmp_path, [record("2099:2")], name="second.jsonl")
    statute_directory_invalidate()
    first = "Vad har ändrats i lagen (2099:1) i år?"

    follow_up = statute_change_answer("Och i lagen (2099:2)?", today=BETWEEN, previous=first)

    assert follow_up.startswith("**Lag (2099:2) om provföretag**\n\nÄndringar i kraft i år (2099-01-01–2099-12-31)")
    assert "- SFS 2099:10, i kraft 2099-07-01" in follow_up
    # Not a follow-up of a change question, or not a follow-up at all: retrieval's.
    assert statute_change_answer("Och i lagen (2099:2)?", today=BETWEEN,
                                 previous="Vad säger lagen (2099:1) om register?") is None
    assert statute_change_answer("Vad säger lagen (2099:2) om tillsyn?", today=BETWEEN, previous=first) is None


def test_what_changed_in_plan_och_bygglagen_comes_from_its_real_record(clean_queue: None, settings: Settings,
                                                                         tmp_path: Path) -> None:
    settings.SFS_VECTORS_PATH = str(tmp_path / "none.npz")
    doc = load_corpus_statute(PBL)
    sync_records(tmp_path, [official_record(PBL)])
    statute_directory_invalidate()
    try:
        text = statute_change_answer("Vad har ändrats i plan- och bygglagen?", today=date(2026, 1, 15))
        this_year = statute_change_answer("Har plan- och bygglagen ändrats i år?", today=date(2026, 1, 15))
    finally:
        statute_directory_invalidate()

    units = StatuteChange.objects.filter(document=doc, amending_sfs="2025:974").count()
    assert units > 100
    assert f"- SFS 2025:974, i kraft 2025-12-01: {units} ändringar (" in text
    assert re.search(r"och \d+ till\)\.", text)  # a long act lists its first units and counts the rest
    assert "i kraft 2026-01-01" in this_year and "2025:974" not in this_year
