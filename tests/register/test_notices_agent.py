"""The assistant knows what changed: a source from a statute amended in the last twelve months says which act
changed it and when, on its card (date_label) and in the context block; a repealed one says it is repealed.
Each test passes its own "today"; the one that needs a notice's date fixes the clock."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path

import pytest
import time_machine
from django.contrib.auth.models import User
from pytest_django import Settings

from agent.answering import chat
from agent.answering.change_answers import change_answer, is_change_question, is_coming_question
from agent.answering.context_assembly import assemble_context
from agent.retrieval.dating import date_sources
from agent.retrieval.sources import RetrievedChunk
from compliance.clock import STOCKHOLM
from compliance.models import LegalDocument, Workspace
from compliance.services import LegalDocumentData, legal_document_upsert
from register.models import ChangeNotice
from register.notices.services import notice_answer
from tests.law.sfs_records_fixtures import OLD_TEXT, provforetag_statute, record
from tests.register.notices_fixtures import sync_records, workspace_with

pytestmark = pytest.mark.django_db


@pytest.fixture
def statute(clean_queue: None, settings: Settings, tmp_path: Path) -> LegalDocument:
    settings.SFS_VECTORS_PATH = str(tmp_path / "none.npz")
    doc = provforetag_statute()
    return doc


def chunk(doc: LegalDocument, citation: str, n: int = 1) -> RetrievedChunk:
    return RetrievedChunk(chunk_id=n, source_type="LEGAL_DOCUMENT", source_id=doc.pk, document_number=doc.sfs_number,
                          document_title=doc.title, header=f"{doc.title} > {citation}", path=str(n), ordinal=n,
                          citation=citation, text=f"{citation} Text.", token_count=5, score=0.9,
                          content_type="SFS_LAW")


def test_a_recently_amended_section_says_which_act_changed_it_on_the_card_and_in_the_context(statute: LegalDocument,
                                                                                             tmp_path: Path) -> None:
    sync_records(tmp_path, [record("2099:1")])
    amended, untouched = chunk(statute, "2 §", 1), chunk(statute, "1 §", 2)

    date_sources([amended, untouched], None, date(2099, 12, 1))

    assert amended.date_label.startswith("ändrad genom SFS 2099:10, i kraft 2099-07-01, ändring införd t.o.m. SFS 2099:11")
    # 1 § kept its wording: the card says the statute changed, by its latest act (still to come).
    assert untouched.date_label.startswith("författningen ändrad genom SFS 2099:11, träder i kraft 2100-07-01")
    context = assemble_context([amended, untouched]).text
    assert "Lag (2099:1) om provföretag > 2 § (ändrad genom SFS 2099:10, i kraft 2099-07-01)" in context


def test_an_amendment_older_than_twelve_months_is_not_mentioned(statute: LegalDocument, tmp_path: Path) -> None:
    sync_records(tmp_path, [record("2099:1")])
    amended = chunk(statute, "2 §")
    date_sources([amended], None, date(2101, 8, 1))
    assert "ändrad genom" not in amended.date_label
    assert amended.date_label.startswith("ändring införd t.o.m. SFS 2099:11")
    assert "ändrad genom" not in assemble_context([amended]).text


def test_a_statute_never_updated_from_the_official_records_says_nothing_new(statute: LegalDocument) -> None:
    plain = chunk(statute, "2 §")
    date_sources([plain], None, date(2099, 12, 1))
    assert plain.date_label.startswith("ändring införd t.o.m. SFS 2099:5") and "ändrad genom" not in plain.date_label


def test_a_repealed_statute_says_by_which_act(statute: LegalDocument, tmp_path: Path) -> None:
    sync_records(tmp_path, [record("2099:1", repealed_on="2100-01-01T00:00:00", repealed_by="SFS 2099:99")])
    repealed = chunk(statute, "2 §")
    date_sources([repealed], None, date(2100, 2, 1))
    assert repealed.date_label.startswith("upphävd genom SFS 2099:99, den 2100-01-01")
    assert "(upphävd genom SFS 2099:99, den 2100-01-01)" in assemble_context([repealed]).text


def alice_and_charlie_noticed(statute: LegalDocument, tmp_path: Path,
                              settings: Settings) -> tuple[Workspace, User, ChangeNotice]:
    """Offline (no model): Alice's laglista holds the statute, Charlie's another; the record changes both."""
    settings.OPENAI_API_KEY = ""
    settings.OPENAI_BASE_URL = ""
    ws, alice, _ = workspace_with("Alices AB", owner_name="alice", documents=[statute])
    other = legal_document_upsert(LegalDocumentData(sfs_number="2099:2", title="Lag (2099:2) om annat",
                                                    full_text=OLD_TEXT, amended_through="SFS 2099:5"),
                                  process=False).document
    workspace_with("Charlies AB", owner_name="charlie", documents=[other])
    sync_records(tmp_path, [record("2099:1"), record("2099:2", title="Lag (2099:2) om annat")])
    return ws, alice, ChangeNotice.objects.get(workspace=ws)


def test_which_changes_have_we_not_assessed_is_answered_from_the_notices_offline(statute: LegalDocument, tmp_path: Path,
                                                                                 settings: Settings) -> None:
    ws, alice, notice = alice_and_charlie_noticed(statute, tmp_path, settings)
    conversation = chat.conversation_create(workspace=ws, user=alice)

    message = chat.answer(conversation, alice, "Vilka ändringar har vi inte bedömt?")

    assert message.answer_mode == "direct" and message.sources == []
    assert message.content.startswith("Ni har 1 lagändring som inte är bedömd:")
    assert "Lag (2099:1) om provföretag: ändrad genom 2 författningar t.o.m. SFS 2099:11" in message.content
    assert f"/ws/alices-ab/lagandringar/{notice.pk}/" in message.content
    assert "2099:2" not in message.content  # charlie's notice is his own

    notice_answer(notice=notice, user=alice, affects_us="no")
    assert chat.answer(conversation, alice, "Vilka ändringar har vi inte bedömt?").content.startswith(
        "Alla lagändringar som berör er är bedömda.")
    listed = chat.answer(conversation, alice, "Vad har ändrats i lagar som berör oss?").content
    assert "Lag (2099:1) om provföretag" in listed and "bedömd: påverkar oss nej" in listed


def test_a_question_about_the_law_at_large_is_answered_from_the_laglista_and_says_so(
        statute: LegalDocument, tmp_path: Path, settings: Settings) -> None:
    ws, alice, _ = alice_and_charlie_noticed(statute, tmp_path, settings)

    answer = chat.answer(chat.conversation_create(workspace=ws, user=alice), alice, "Vilka lagar har ändrats?")

    assert answer.answer_mode == "direct"
    assert answer.content.startswith("Lagrum bevakar ändringarna i författningarna på er laglista. Ändringar som "
                                     "berör er laglista:")
    assert "Lag (2099:1) om provföretag" in answer.content and "2099:2" not in answer.content
    assert is_change_question("Har några nya författningar kommit i år?")
    # An adjective, or a question about the law's subject, is retrieval's.
    assert not is_change_question("Vad säger lagarna om ändrad arbetstid?")
    assert not is_change_question("Vilka lagar gäller för ändring av anställningsavtal?")


def test_a_question_about_one_statutes_changes_is_not_the_laglistas() -> None:
    """It names a § (or a statute): agent.answering.statute_change_answers answers it from that statute's changes."""
    assert is_change_question("Vilka lagändringar har vi kvar att bedöma?")
    assert is_change_question("Vad har ändrats i lagar som berör oss sedan i våras?")
    assert not is_change_question("Vad har ändrats i 3 kap. 2 § arbetsmiljölagen?")
    assert not is_change_question("Hur ändrar vi vår rutin för brandskydd?")
    assert not is_change_question("Vad säger lagen om ändring av anställningsavtal?")


@pytest.mark.clock
def test_changes_since_a_season_are_those_in_force_or_noticed_since_then(statute: LegalDocument,
                                                                         tmp_path: Path) -> None:
    with time_machine.travel(datetime(2026, 11, 25, 9, 0, tzinfo=STOCKHOLM)):
        ws, _, _ = workspace_with("Alices AB", owner_name="alice", documents=[statute])
        sync_records(tmp_path, [record("2099:1")])
        today = date(2026, 11, 25)

        since_spring = change_answer("Vad har ändrats i lagar som berör oss sedan i våras?", ws, today=today)
        summer = change_answer("Vad har ändrats i lagar som berör oss i somras?", ws, today=today)

    assert since_spring.startswith("Ändringar som berör er laglista 2026-03-01–2026-11-25:")
    assert "Lag (2099:1) om provföretag" in since_spring
    assert summer.startswith("Inga ändringar i författningarna på er laglista har noterats 2026-06-01–2026-08-31.")


def test_what_enters_into_force_ahead_is_answered_from_the_laglista_in_the_pages_words(
        statute: LegalDocument, tmp_path: Path, settings: Settings) -> None:
    """The record brings 2 § and 5 § from 2099-07-01 (2099:10) and a new 6 § on 2100-07-01 (2099:11). Asked on
    2099-12-01 what enters into force ahead or next year, Alice hears of 6 §; once it has come, of nothing; Charlie's
    statute (another workspace's laglista) is never named; a question about a subject's coming rules is left to
    retrieval."""
    ws, alice, notice = alice_and_charlie_noticed(statute, tmp_path, settings)
    today = date(2099, 12, 1)

    ahead = change_answer("Vad träder i kraft framöver som berör oss?", ws, today=today)
    next_year = change_answer("Vilka lagändringar börjar gälla för oss nästa år?", ws, today=today)
    later = change_answer("Vad träder i kraft framöver som berör oss?", ws, today=date(2100, 8, 1))

    assert ahead.startswith("Det här träder i kraft framöver i författningarna på er laglista")
    assert (f"- 2100-07-01 Lag (2099:1) om provföretag: 6 § (lydelse enligt SFS 2099:11). "
            f"[Öppna](/ws/alices-ab/lagandringar/{notice.pk}/)") in ahead
    assert "2099:2" not in ahead and ahead.count("\n- ") == 1  # 2 § and 5 § came into force in July
    assert next_year.startswith("Det här träder i kraft 2100-01-01–2100-12-31") and "6 §" in next_year
    assert later.startswith("Inget i författningarna på er laglista träder i kraft efter i dag")
    assert is_coming_question("Vilka kommande lagändringar berör oss?", today)
    assert is_coming_question("Vad börjar gälla för oss nästa år?", today)
    assert not is_coming_question("När träder de nya reglerna om visselblåsning i kraft för oss?", today)
    assert not is_coming_question("Hur ska vi arbeta med arbetsmiljön framöver?", today)
    assert not is_coming_question("Vad träder i kraft framöver i 3 kap. 2 § arbetsmiljölagen?", today)

    # Through the chat, offline: a direct answer, no sources.
    conversation = chat.conversation_create(workspace=ws, user=alice)
    with time_machine.travel(datetime(2099, 12, 1, 9, 0, tzinfo=STOCKHOLM)):
        message = chat.answer(conversation, alice, "Vilka ändringar träder i kraft snart för oss?")
    assert message.answer_mode == "direct" and message.sources == []
    assert "6 § (lydelse enligt SFS 2099:11)" in message.content
