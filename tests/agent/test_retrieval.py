"""Hybrid retrieval against real statutes, real vectors and a real Postgres."""

from __future__ import annotations

import pytest
from django.conf import settings

from agent.query_analysis import analyse_query
from agent.retrieval import (
    RetrievalInputError,
    RetrievalOptions,
    keyword_terms,
    query_vectors,
    retrieve_context,
    term_frequencies,
)
from agent.retrieval import (
    _keyword_query as keyword_query,
)
from chunks.models import ContentChunk
from compliance.models import Membership, UserFile, Workspace, content_hash
from tests.helpers import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def people(loaded):
    alice, charlie = make_user("alice"), make_user("charlie")
    ws = Workspace.objects.create(name="Alices AB", slug="alices-ab")
    other = Workspace.objects.create(name="Charlies AB", slug="charlies-ab")
    Membership.objects.create(user=alice, workspace=ws, role="owner")
    Membership.objects.create(user=charlie, workspace=other, role="owner")
    return alice, charlie, ws, other


def add_file_chunk(ws, text, *, private=False, deleted=False, title="Policy.pdf"):
    from django.utils import timezone

    f = UserFile.objects.create(workspace=ws, title=title, original_name=title, file="x", is_private=private,
                                deleted_at=timezone.now() if deleted else None, status="done")
    return ContentChunk.objects.create(
        source_type="USER_FILE", user_file=f, workspace=ws, document_title=title, header=f"{title} > Sida 1",
        path="00001", ordinal=0, citation="Sida 1", page=1, text=text, token_count=20, content_hash=content_hash(text),
    )


def test_a_cited_section_comes_first(people):
    alice, _, ws, _ = people
    result = retrieve_context("Vad säger 3 kap. 2 a § arbetsmiljölagen?", ws, user=alice)
    first = result.chunks[0]
    assert (first.document_number, first.citation) == ("1977:1160", "3 kap. 2 a §")
    assert first.reference_match
    assert "1977:1160 3 kap. 2 a §" in result.references


def test_colon_form_and_abbreviation(people):
    alice, _, ws, _ = people
    result = retrieve_context("Vad innebär AML 3:2 a för arbetsgivaren?", ws, user=alice)
    assert (result.chunks[0].document_number, result.chunks[0].citation) == ("1977:1160", "3 kap. 2 a §")


def test_a_named_statute_is_searched_first(people):
    alice, _, ws, _ = people
    result = retrieve_context("Vilka regler gäller för turordning enligt LAS?", ws, user=alice)
    top = result.chunks[:5]
    assert all(c.document_number == "1982:80" for c in top)
    assert any(c.citation == "22 §" for c in result.chunks[:10])


def test_hybrid_finds_paraphrased_questions(people):
    alice, _, ws, _ = people
    result = retrieve_context("Hur länge måste man ha jobbat för att få företrädesrätt till återanställning?",
                              ws, user=alice)
    assert "25 §" in [c.citation for c in result.chunks[:10] if c.document_number == "1982:80"]


def test_results_are_fused_and_ordered(people):
    alice, _, ws, _ = people
    result = retrieve_context("arbetsgivarens skyldighet att undersöka risker i verksamheten", ws, user=alice,
                              options=RetrievalOptions(use_references=False))
    scores = [c.score for c in result.chunks]
    assert scores == sorted(scores, reverse=True)
    k = settings.RETRIEVAL_RRF_K
    for chunk in result.chunks:
        vr, kr = chunk.extra["vector_rank"], chunk.extra["keyword_rank"]
        expected = (1 / (k + vr) if vr else 0) + (1 / (k + kr) if kr else 0)
        assert chunk.score == pytest.approx(expected)
    assert any(c.extra["vector_rank"] and c.extra["keyword_rank"] for c in result.chunks)


@pytest.mark.parametrize("mode", ["vector", "keyword"])
def test_single_modes(people, mode):
    alice, _, ws, _ = people
    result = retrieve_context("skyddsombud", ws, user=alice, options=RetrievalOptions(mode=mode, use_references=False))
    assert result.mode == mode and result.chunks
    for chunk in result.chunks:
        assert (chunk.vector_similarity is None) == (mode == "keyword")
        assert (chunk.keyword_rank is None) == (mode == "vector")


def test_scope_hides_private_deleted_and_foreign_files(people):
    alice, charlie, ws, other = people
    visible = add_file_chunk(ws, "Vår rutin för zebrasäkerhet på lagret.")
    add_file_chunk(ws, "Privat: zebrasäkerhet och löner.", private=True)
    add_file_chunk(ws, "Raderad: zebrasäkerhet i gamla lokalen.", deleted=True)
    foreign = add_file_chunk(other, "Charlies zebrasäkerhet är hemlig.")
    ids = {c.chunk_id for c in retrieve_context("zebrasäkerhet", ws, user=alice).chunks}
    assert visible.pk in ids
    assert ids.isdisjoint(set(ContentChunk.objects.filter(user_file__is_private=True).values_list("id", flat=True)))
    assert foreign.pk not in ids
    assert all(c.workspace_id in (None, ws.pk) for c in retrieve_context("zebrasäkerhet", ws, user=alice).chunks)
    charlie_ids = {c.chunk_id for c in retrieve_context("zebrasäkerhet", other, user=charlie).chunks}
    assert foreign.pk in charlie_ids and visible.pk not in charlie_ids


def test_outsider_cannot_search_a_workspace(people):
    from django.http import Http404

    _, charlie, ws, _ = people
    with pytest.raises(Http404):
        retrieve_context("skyddsombud", ws, user=charlie)


def test_filters(people):
    alice, _, ws, _ = people
    add_file_chunk(ws, "Skyddsombud i vår verksamhet utses av facket.")
    only_files = retrieve_context("skyddsombud", ws, user=alice, options=RetrievalOptions(source_types=["USER_FILE"]))
    assert only_files.chunks and {c.source_type for c in only_files.chunks} == {"USER_FILE"}
    las = retrieve_context("skyddsombud", ws, user=alice, options=RetrievalOptions(sfs_numbers=["1982:80"]))
    assert {c.document_number for c in las.chunks} <= {"1982:80"}
    ordinances = retrieve_context("skyddsombud", ws, user=alice,
                                  options=RetrievalOptions(content_types=["SFS_ORDINANCE"], source_types=["LEGAL_DOCUMENT"]))
    assert ordinances.chunks == []
    laws = retrieve_context("skyddsombud", ws, user=alice, options=RetrievalOptions(content_types=["SFS_LAW"]))
    assert laws.chunks and {c.source_type for c in laws.chunks} == {"LEGAL_DOCUMENT"}  # no user file slips through
    top3 = retrieve_context("skyddsombud", ws, user=alice, options=RetrievalOptions(top_k=3))
    assert len(top3.chunks) == 3
    strict = retrieve_context("skyddsombud", ws, user=alice, options=RetrievalOptions(min_score=0.03, use_references=False))
    assert all(c.score >= 0.03 for c in strict.chunks)
    from datetime import date

    old = retrieve_context("skyddsombud", ws, user=alice,
                           options=RetrievalOptions(date_to=date(1980, 1, 1), source_types=["LEGAL_DOCUMENT"]))
    assert old.chunks and {c.document_number for c in old.chunks} == {"1977:1160"}


def test_embedder_failure_falls_back_to_full_text(people, settings):
    alice, _, ws, _ = people
    settings.EMBEDDING_BACKEND = "openai"
    settings.EMBEDDING_MODEL = "text-embedding-3-small"
    settings.EMBEDDING_BASE_URL = "http://127.0.0.1:9/v1"  # nothing listens on the discard port
    query_vectors.clear()
    result = retrieve_context("skyddsombud och skyddskommitté", ws, user=alice)
    assert result.degraded and result.mode == "keyword"
    assert "ordsökning" in result.notice
    assert result.chunks and all(c.keyword_rank is not None or c.reference_match for c in result.chunks)


def test_identical_queries_are_embedded_once(people):
    alice, _, ws, _ = people
    query_vectors.clear()
    first = retrieve_context("rätt till ledighet för fackligt arbete", ws, user=alice)
    second = retrieve_context("rätt till ledighet för fackligt arbete", ws, user=alice)
    assert first.timings_ms["embed_cached"] is False and second.timings_ms["embed_cached"] is True


@pytest.mark.parametrize("query", ["", "   ", "\x00\x01"])
def test_empty_queries_get_a_clear_error(people, query):
    alice, _, ws, _ = people
    with pytest.raises(RetrievalInputError) as exc:
        retrieve_context(query, ws, user=alice)
    assert exc.value.code == "empty_query" and "tom" in exc.value.message


@pytest.mark.parametrize("query", [
    "🙂🙂🙂", "'; DROP TABLE chunks_contentchunk; --", "arbetsmiljö " * 10000, "a\x00b\x07c § kap.",
    "!!! ??? & | ! <-> :*", "SFS 9999:9999 99 kap. 99 §", "((((((((", "Ö" * 5000,
])
def test_any_text_returns_a_result(people, query):
    alice, _, ws, _ = people
    result = retrieve_context(query, ws, user=alice)
    assert isinstance(result.chunks, list)
    assert ContentChunk.objects.filter(legal_document__sfs_number="1977:1160").exists()


def test_bad_mode_is_a_clear_error(people):
    alice, _, ws, _ = people
    with pytest.raises(RetrievalInputError):
        retrieve_context("x", ws, user=alice, options=RetrievalOptions(mode="magic"))


def test_a_word_searched_before_the_upload_is_processed_is_found_once_it_is(people):
    alice, _, ws, _ = people
    options = RetrievalOptions(mode="keyword", rerank=False)
    assert retrieve_context("kvartalsgenomgångsprotokollet", ws, user=alice, options=options).chunks == []

    chunk = add_file_chunk(ws, "Kvartalsgenomgångsprotokollet förs av närmaste chef.")

    hits = retrieve_context("kvartalsgenomgångsprotokollet", ws, user=alice, options=options).chunks
    assert [c.chunk_id for c in hits] == [chunk.pk]  # no cached "matches nothing" for the new word


def test_common_words_are_left_out_of_the_keyword_query(people, settings):
    def _keyword_query(text):
        return keyword_query(keyword_terms(analyse_query(text)))

    term_frequencies.clear()
    settings.RETRIEVAL_COMMON_TERM_ROWS = 10  # "arbetsgivaren" matches far more sections than that
    assert _keyword_query("arbetsgivaren skyddskommitté") == "skyddskommitté"
    assert _keyword_query("arbetsgivaren arbetstagaren") == "arbetsgivaren arbetstagaren"  # AND when all are common
    settings.RETRIEVAL_COMMON_TERM_ROWS = 100000
    term_frequencies.clear()
    assert _keyword_query("Vad säger SFS 1977:1160 3 kap. om arbetsgivaren?") == "arbetsgivaren"
