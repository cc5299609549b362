"""After "Rensa kunskapsbasen" nothing of the workspace's own files and assessments is searched, counted or served
from the retrieval cache; statutes and other workspaces are found as before. Real statutes, vectors and Postgres."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User

from agent.answering.prepare import PreparedContext, prepare_context
from agent.retrieval.cache import get_retrieval_cache
from agent.retrieval.hybrid import RetrievalOptions, retrieve_context
from agent.retrieval.keyword_search import keyword_query
from chunks.embedding import active_model_name, get_provider, passage_text
from chunks.models import ContentChunk
from compliance.models import Assessment, LegalDocument, Membership, UserFile, Workspace, content_hash
from compliance.services import knowledge_clear
from tests.helpers import make_user

pytestmark = pytest.mark.django_db

FILE_TEXT = "Vår rutin för skyddsombud och riskbedömning på lagret i Borlänge."
ASSESSMENT_TEXT = "Utrymningsplanen för lager B uppdateras varje kvartal av fastighetsansvarig."
QUESTION = "Vad gäller för skyddsombud och riskbedömning på lagret i Borlänge?"


def add_chunk(workspace: Workspace, text: str, header: str, **source: Any) -> ContentChunk:
    return ContentChunk.objects.create(
        workspace=workspace, document_title=header.split(" > ")[0], header=header, path="00000.00000", ordinal=0,
        citation="", text=text, token_count=20, content_hash=content_hash(text),
        embedding=get_provider().embed_passages([passage_text(header, text)])[0], embedding_model=active_model_name(),
        **source)


def add_file(workspace: Workspace, title: str, text: str) -> ContentChunk:
    f = UserFile.objects.create(workspace=workspace, title=title, original_name=title, file="x", status="done")
    return add_chunk(workspace, text, f"{title} > Sida 1", source_type="USER_FILE", user_file=f)


def add_assessment(workspace: Workspace, title: str, text: str) -> ContentChunk:
    a = Assessment.objects.create(workspace=workspace, title=title, notes=text, status="done")
    return add_chunk(workspace, text, f"Bedömning: {title}", source_type="ASSESSMENT", assessment=a)


def found(text: str, workspace: Workspace, user: User, mode: str = "hybrid") -> set[int]:
    options = RetrievalOptions(mode=mode, use_references=False)
    return {c.chunk_id for c in retrieve_context(text, workspace, user=user, options=options).chunks}


def ask(workspace: Workspace, user: User) -> PreparedContext:
    # A fresh workspace row, as every request reads it: its knowledge version keys the cache.
    return prepare_context([{"role": "user", "content": QUESTION}], Workspace.objects.get(pk=workspace.pk), user)


def test_cleared_sources_are_never_found_counted_or_served_from_the_cache(loaded: list[LegalDocument]) -> None:
    get_retrieval_cache().clear()
    alice, charlie = make_user("alice"), make_user("charlie")
    ws = Workspace.objects.create(name="Alices AB", slug="alices-ab")
    other = Workspace.objects.create(name="Charlies AB", slug="charlies-ab")
    Membership.objects.create(user=alice, workspace=ws, role="owner")
    Membership.objects.create(user=charlie, workspace=other, role="owner")
    empty_statistics = keyword_query(QUESTION, [ws.pk])

    file_chunk = add_file(ws, "Rutin.pdf", FILE_TEXT)
    assessment_chunk = add_assessment(ws, "Utrymning", ASSESSMENT_TEXT)
    charlies_chunk = add_file(other, "Charlies rutin.pdf", FILE_TEXT)
    for mode in ("hybrid", "vector", "keyword"):
        assert file_chunk.pk in found(FILE_TEXT, ws, alice, mode)
        assert assessment_chunk.pk in found(ASSESSMENT_TEXT, ws, alice, mode)
    first, cached = ask(ws, alice), ask(ws, alice)
    assert file_chunk.pk in {c["chunk_id"] for c in first.citations}
    assert cached.metrics["cache_hit"]
    assert keyword_query(QUESTION, [ws.pk]) != empty_statistics  # the own file's words count

    result = knowledge_clear(workspace=ws)
    assert (result.files, result.assessments) == (1, 1)

    for mode in ("hybrid", "vector", "keyword"):
        assert not found(FILE_TEXT, ws, alice, mode) & {file_chunk.pk, assessment_chunk.pk}
        assert not found(ASSESSMENT_TEXT, ws, alice, mode) & {file_chunk.pk, assessment_chunk.pk}
    after = ask(ws, alice)
    assert not after.metrics["cache_hit"]
    assert not {c["chunk_id"] for c in after.citations} & {file_chunk.pk, assessment_chunk.pk}
    assert keyword_query(QUESTION, [ws.pk]) == empty_statistics
    # Statutes are shared and stay; another workspace's identical file is still its own.
    statute = retrieve_context("Vad säger 3 kap. 2 a § arbetsmiljölagen?", ws, user=alice).chunks[0]
    assert (statute.document_number, statute.citation) == ("1977:1160", "3 kap. 2 a §")
    assert charlies_chunk.pk in found(FILE_TEXT, other, charlie)
