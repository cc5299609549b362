"""Dates in answers: the § version in force in the question's period, own sources favoured by their
date and by recency, and the dates every source card shows. Real statutes, real uploaded files."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from agent.answering import chat
from agent.answering.prepare import prepare_context
from agent.retrieval.cache import get_retrieval_cache
from agent.retrieval.dating import date_sources
from agent.retrieval.hybrid import RetrievalOptions, retrieve_context
from agent.retrieval.query_analysis import analyse_query
from agent.retrieval.sources import RetrievedChunk
from chunks.services import chunk_document, embed_chunk_batch
from compliance import services
from compliance.models import LegalDocument, UserFile, Workspace
from law.statute_directory import statute_directory, statute_directory_invalidate
from tests.corpus import load_statutes
from tests.helpers import make_user

pytestmark = [pytest.mark.django_db, pytest.mark.clock]

PARENTAL_LEAVE = "1995:584"  # 3 § has two versions: one expires and one enters into force on 2024-07-01


@pytest.fixture
def setup(team: dict[str, Any]) -> tuple[User, Workspace]:
    get_retrieval_cache().clear()
    alice, ws = team["alice"], team["ws"]
    return alice, ws


def upload(ws: Workspace, user: User, name: str, text: str, uploaded_on: date) -> UserFile:
    f = services.user_file_upload(workspace=ws, user=user,
                                  uploaded=SimpleUploadedFile(name, text.encode(), content_type="text/plain"))
    UserFile.objects.filter(pk=f.pk).update(created_at=timezone.make_aware(
        timezone.datetime.combine(uploaded_on, timezone.datetime.min.time())))
    embed_chunk_batch(chunk_document("USER_FILE", f.pk).to_embed)
    return f


def section_3_versions(question: str, ws: Workspace, user: User) -> list[str]:
    statute_directory_invalidate()
    analysis = analyse_query(question, directory=statute_directory())
    result = retrieve_context(question, ws, user=user, analysis=analysis,
                              options=RetrievalOptions(mode="keyword"))
    return [c.header for c in result.chunks if c.document_number == PARENTAL_LEAVE and c.citation == "3 §"]


def test_a_period_picks_the_version_of_a_section_in_force_then(setup: tuple[User, Workspace]) -> None:
    alice, ws = setup
    load_statutes(PARENTAL_LEAVE, embed=False)
    try:
        before = section_3_versions("Vad sade 3 § lagen (1995:584) i mars 2024?", ws, alice)
        after = section_3_versions("Vad säger 3 § lagen (1995:584) sedan augusti 2024?", ws, alice)
        assert len(before) == 1 and "upphör att gälla 2024-07-01" in before[0]
        assert len(after) == 1 and "träder i kraft 2024-07-01" in after[0]
    finally:
        LegalDocument.objects.filter(sfs_number=PARENTAL_LEAVE).delete()
        statute_directory_invalidate()


def test_own_documents_in_the_period_and_newer_ones_rank_higher(setup: tuple[User, Workspace]) -> None:
    alice, ws = setup
    text = "Rutin för zebrasäkerhet på lagret: skyddsombudet går en runda varje fredag."
    old = upload(ws, alice, "zebra-2022.txt", text + " Version från förr.", date(2022, 3, 10))
    new = upload(ws, alice, "zebra-2024.txt", text + " Version från nu.", date(2024, 3, 12))

    def file_order(question: str) -> tuple[list[int], list[dict]]:
        get_retrieval_cache().clear()
        prepared = prepare_context([{"role": "user", "content": question}], ws, alice)
        rows = sorted((c for c in prepared.citations if c["source_type"] == "USER_FILE"), key=lambda c: -c["score"])
        return [c["source_id"] for c in rows], rows

    order, rows = file_order("Hur fungerar vår rutin för zebrasäkerhet på lagret i mars 2022?")
    assert order[0] == old.pk
    assert {c["source_id"]: c["date_label"] for c in rows} == {old.pk: "uppladdad 2022-03-10, version 1",
                                                                new.pk: "uppladdad 2024-03-12, version 1"}
    order, _ = file_order("Hur fungerar vår rutin för zebrasäkerhet på lagret sedan 2024?")
    assert order[0] == new.pk


def test_recency_breaks_ties_between_own_sources() -> None:
    def chunk(cid: int, source_id: int) -> RetrievedChunk:
        return RetrievedChunk(chunk_id=cid, source_type="USER_FILE", source_id=source_id, document_number="",
                              document_title="f", header="f", path="0", ordinal=0, citation="", text="t",
                              token_count=1, score=0.5)

    alice = make_user("alice")
    ws = Workspace.objects.create(name="Alices AB", slug="alices-ab")
    files = []
    for day in (date(2021, 1, 1), date(2024, 1, 1), date(2023, 1, 1)):
        f = UserFile.objects.create(workspace=ws, title="f", original_name="f.txt", file="x", uploaded_by=alice)
        UserFile.objects.filter(pk=f.pk).update(created_at=timezone.make_aware(
            timezone.datetime.combine(day, timezone.datetime.min.time())))
        files.append(f.pk)
    ranked = date_sources([chunk(i, pk) for i, pk in enumerate(files)], None, date(2024, 5, 15))
    assert [c.source_id for c in ranked] == [files[1], files[2], files[0]]
    assert all(c.score == 0.5 for c in ranked)  # no period: nothing is boosted


def test_cards_show_dates_for_statutes_and_files(setup: tuple[User, Workspace], client: Client) -> None:
    alice, ws = setup
    LegalDocument.objects.filter(sfs_number="1977:1160").update(amended_through="SFS 2023:349")
    f = upload(ws, alice, "skyddsombud.txt", "Vår rutin: skyddsombudet deltar i varje riskbedömning på lagret.",
               timezone.localdate() - timedelta(days=3))
    conversation = chat.conversation_create(workspace=ws, user=alice)
    message = chat.answer(conversation, alice, "Vad säger 6 kap. arbetsmiljölagen om skyddsombud och vår rutin?")
    statute = [s for s in message.sources if s["document_number"] == "1977:1160"]
    assert statute and all(s["date_label"].startswith("ändring införd t.o.m. SFS 2023:349, i kraft")
                           for s in statute)
    own = [s for s in message.sources if s["source_id"] == f.pk and s["source_type"] == "USER_FILE"]
    assert own and own[0]["date_label"] == f"uppladdad {(timezone.localdate() - timedelta(days=3)).isoformat()}, version 1"
    client.force_login(alice)
    page = client.get(reverse("conversation", args=[ws.slug, conversation.pk])).content.decode()
    assert "ändring införd t.o.m. SFS 2023:349" in page and own[0]["date_label"] in page
    api = client.get(f"/api/v1/workspaces/{ws.slug}/conversations/{conversation.pk}/").json()
    assert any(s.get("date_label") == own[0]["date_label"] for m in api["messages"] for s in m["sources"])
