"""Hybrid retrieval against real statutes, real vectors and a real Postgres."""

from __future__ import annotations

from datetime import date

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.core.cache import caches
from django.db import connection
from django.http import Http404
from django.utils import timezone
from pytest_django import Settings

from agent.retrieval import keyword_search
from agent.retrieval.chunk_queries import filter_sql, search_params
from agent.retrieval.hybrid import RetrievalInputError, RetrievalOptions, one_version_per_section, retrieve_context
from agent.retrieval.keyword_search import compound_parts, keyword_cte, keyword_params, keyword_query
from agent.retrieval.query_vector_cache import query_vectors
from agent.retrieval.sources import RetrievedChunk
from chunks import selectors
from chunks.embedding import active_model_name
from chunks.models import ContentChunk
from compliance.models import LegalDocument, Membership, UserFile, Workspace, content_hash
from compliance.selectors import AccessScope
from tests.helpers import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def people(loaded: list[LegalDocument]) -> tuple[User, User, Workspace, Workspace]:
    alice, charlie = make_user("alice"), make_user("charlie")
    ws = Workspace.objects.create(name="Alices AB", slug="alices-ab")
    other = Workspace.objects.create(name="Charlies AB", slug="charlies-ab")
    Membership.objects.create(user=alice, workspace=ws, role="owner")
    Membership.objects.create(user=charlie, workspace=other, role="owner")
    return alice, charlie, ws, other


def add_file_chunk(ws: Workspace, text: str, *, private: bool = False, deleted: bool = False,
                   title: str = "Policy.pdf") -> ContentChunk:
    f = UserFile.objects.create(workspace=ws, title=title, original_name=title, file="x", is_private=private,
                                deleted_at=timezone.now() if deleted else None, status="done")
    return ContentChunk.objects.create(
        source_type="USER_FILE", user_file=f, workspace=ws, document_title=title, header=f"{title} > Sida 1",
        path="00001", ordinal=0, citation="Sida 1", page=1, text=text, token_count=20, content_hash=content_hash(text),
    )


def test_a_cited_section_comes_first(people: tuple[User, User, Workspace, Workspace]) -> None:
    alice, _, ws, _ = people
    result = retrieve_context("Vad säger 3 kap. 2 a § arbetsmiljölagen?", ws, user=alice)
    first = result.chunks[0]
    assert (first.document_number, first.citation) == ("1977:1160", "3 kap. 2 a §")
    assert first.reference_match
    assert "1977:1160 3 kap. 2 a §" in result.references


def test_colon_form_and_abbreviation(people: tuple[User, User, Workspace, Workspace]) -> None:
    alice, _, ws, _ = people
    result = retrieve_context("Vad innebär AML 3:2 a för arbetsgivaren?", ws, user=alice)
    assert (result.chunks[0].document_number, result.chunks[0].citation) == ("1977:1160", "3 kap. 2 a §")


def test_a_named_statute_is_searched_first(people: tuple[User, User, Workspace, Workspace]) -> None:
    alice, _, ws, _ = people
    result = retrieve_context("Vilka regler gäller för turordning enligt LAS?", ws, user=alice)
    top = result.chunks[:5]
    assert all(c.document_number == "1982:80" for c in top)
    assert any(c.citation == "22 §" for c in result.chunks[:10])


def test_hybrid_finds_paraphrased_questions(people: tuple[User, User, Workspace, Workspace]) -> None:
    alice, _, ws, _ = people
    result = retrieve_context("Hur länge måste man ha jobbat för att få företrädesrätt till återanställning?",
                              ws, user=alice)
    assert "25 §" in [c.citation for c in result.chunks[:10] if c.document_number == "1982:80"]


def test_results_are_fused_by_standardised_scores(people: tuple[User, User, Workspace, Workspace]) -> None:
    alice, _, ws, _ = people
    result = retrieve_context("arbetsgivarens skyldighet att undersöka risker i verksamheten", ws, user=alice,
                              options=RetrievalOptions(use_references=False))
    chunks = result.chunks
    assert chunks and all(0 < c.score < 1 for c in chunks)
    assert [c.score for c in chunks] == sorted((c.score for c in chunks), reverse=True)
    assert any(c.extra["vector_rank"] and c.extra["keyword_rank"] for c in chunks)
    # The mix is monotone in both scores: a source better on both counts never ranks below another.
    both = [c for c in chunks if c.vector_similarity is not None and c.keyword_rank is not None]
    for i, a in enumerate(both):
        for b in both[i + 1:]:
            assert not (b.vector_similarity > a.vector_similarity and b.keyword_rank > a.keyword_rank)


def test_results_are_fused_by_rank_when_rrf_is_chosen(people: tuple[User, User, Workspace, Workspace],
                                                      settings: Settings) -> None:
    settings.RETRIEVAL_FUSION = "rrf"
    # The fusion alone: the citation prior's factor is tested in tests/chunks/test_statute_book_search.py.
    settings.RETRIEVAL_CITATION_PRIOR = 0.0
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
def test_single_modes(people: tuple[User, User, Workspace, Workspace], mode: str) -> None:
    alice, _, ws, _ = people
    result = retrieve_context("skyddsombud", ws, user=alice, options=RetrievalOptions(mode=mode, use_references=False))
    assert result.mode == mode and result.chunks
    for chunk in result.chunks:
        assert (chunk.vector_similarity is None) == (mode == "keyword")
        assert (chunk.keyword_rank is None) == (mode == "vector")


def test_scope_hides_private_deleted_and_foreign_files(people: tuple[User, User, Workspace, Workspace]) -> None:
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


def test_outsider_cannot_search_a_workspace(people: tuple[User, User, Workspace, Workspace]) -> None:
    _, charlie, ws, _ = people
    with pytest.raises(Http404):
        retrieve_context("skyddsombud", ws, user=charlie)


def test_filters(people: tuple[User, User, Workspace, Workspace]) -> None:
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

    old = retrieve_context("skyddsombud", ws, user=alice,
                           options=RetrievalOptions(date_to=date(1980, 1, 1), source_types=["LEGAL_DOCUMENT"]))
    assert old.chunks and {c.document_number for c in old.chunks} == {"1977:1160"}


def test_embedder_failure_falls_back_to_full_text(people: tuple[User, User, Workspace, Workspace],
                                                  settings: Settings) -> None:
    alice, _, ws, _ = people
    settings.EMBEDDING_BACKEND = "openai"
    settings.EMBEDDING_MODEL = "text-embedding-3-small"
    settings.EMBEDDING_BASE_URL = "http://127.0.0.1:9/v1"  # nothing listens on the discard port
    query_vectors.clear()
    result = retrieve_context("skyddsombud och skyddskommitté", ws, user=alice)
    assert result.degraded and result.mode == "keyword"
    assert "ordsökning" in result.notice
    assert result.chunks and all(c.keyword_rank is not None or c.reference_match for c in result.chunks)


def test_identical_queries_are_embedded_once(people: tuple[User, User, Workspace, Workspace]) -> None:
    alice, _, ws, _ = people
    query_vectors.clear()
    first = retrieve_context("rätt till ledighet för fackligt arbete", ws, user=alice)
    second = retrieve_context("rätt till ledighet för fackligt arbete", ws, user=alice)
    assert first.timings_ms["embed_cached"] is False and second.timings_ms["embed_cached"] is True


def test_a_query_vector_is_shared_across_processes(people: tuple[User, User, Workspace, Workspace]) -> None:
    alice, _, ws, _ = people
    query_vectors.clear()
    first = retrieve_context("rätt till ledighet för fackligt arbete", ws, user=alice)
    # Another gunicorn worker: nothing in its own memory, the shared cache has the vector.
    query_vectors.clear_local()
    second = retrieve_context("rätt till ledighet för fackligt arbete", ws, user=alice)
    assert first.timings_ms["embed_cached"] is False and second.timings_ms["embed_cached"] is True
    assert [c.chunk_id for c in second.chunks] == [c.chunk_id for c in first.chunks]
    # Stored compactly: float32 bytes, not a pickled array.
    stored = caches["default"].get(query_vectors.shared_key(active_model_name(), "rätt till ledighet för fackligt arbete"))
    assert isinstance(stored, bytes) and len(stored) == settings.EMBEDDING_DIMENSIONS * 4


def test_a_broken_shared_cache_still_answers(people: tuple[User, User, Workspace, Workspace],
                                             settings: Settings) -> None:
    alice, _, ws, _ = people
    query_vectors.clear()
    # Nothing listens on the discard port: every cache call fails.
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                                   "LOCATION": "redis://127.0.0.1:9/0"}}
    query_vectors.clear()
    result = retrieve_context("rätt till ledighet för fackligt arbete", ws, user=alice)
    assert result.mode == "hybrid" and not result.degraded and result.chunks
    assert result.timings_ms["embed_cached"] is False


def test_the_shared_query_vector_cache_can_be_turned_off(people: tuple[User, User, Workspace, Workspace],
                                                         settings: Settings) -> None:
    alice, _, ws, _ = people
    settings.QUERY_VECTOR_CACHE_TTL_SECONDS = 0
    query_vectors.clear()
    retrieve_context("rätt till ledighet för fackligt arbete", ws, user=alice)
    query_vectors.clear_local()
    again = retrieve_context("rätt till ledighet för fackligt arbete", ws, user=alice)
    assert again.timings_ms["embed_cached"] is False


@pytest.mark.parametrize("query", ["", "   ", "\x00\x01"])
def test_empty_queries_get_a_clear_error(people: tuple[User, User, Workspace, Workspace], query: str) -> None:
    alice, _, ws, _ = people
    with pytest.raises(RetrievalInputError) as exc:
        retrieve_context(query, ws, user=alice)
    assert exc.value.code == "empty_query" and "tom" in exc.value.message


@pytest.mark.parametrize("query", [
    "🙂🙂🙂", "'; DROP TABLE chunks_contentchunk; --", "arbetsmiljö " * 10000, "a\x00b\x07c § kap.",
    "!!! ??? & | ! <-> :*", "SFS 9999:9999 99 kap. 99 §", "((((((((", "Ö" * 5000,
])
def test_any_text_returns_a_result(people: tuple[User, User, Workspace, Workspace], query: str) -> None:
    alice, _, ws, _ = people
    result = retrieve_context(query, ws, user=alice)
    assert isinstance(result.chunks, list)
    assert ContentChunk.objects.filter(legal_document__sfs_number="1977:1160").exists()


def test_bad_mode_is_a_clear_error(people: tuple[User, User, Workspace, Workspace]) -> None:
    alice, _, ws, _ = people
    with pytest.raises(RetrievalInputError):
        retrieve_context("x", ws, user=alice, options=RetrievalOptions(mode="magic"))


def test_a_word_searched_before_the_upload_is_processed_is_found_once_it_is(people: tuple[User, User, Workspace, Workspace]) -> None:
    alice, _, ws, _ = people
    options = RetrievalOptions(mode="keyword", rerank=False)
    assert retrieve_context("kvartalsgenomgångsprotokollet", ws, user=alice, options=options).chunks == []

    chunk = add_file_chunk(ws, "Kvartalsgenomgångsprotokollet förs av närmaste chef.")

    hits = retrieve_context("kvartalsgenomgångsprotokollet", ws, user=alice, options=options).chunks
    assert [c.chunk_id for c in hits] == [chunk.pk]  # no cached "matches nothing" for the new word


def _weights(text: str, ws_ids: list[int]) -> dict[str, float]:
    q = keyword_query(text, ws_ids)
    return dict(zip(q.terms, q.weights))


def test_bm25_weighs_a_rare_term_above_a_common_one(people: tuple[User, User, Workspace, Workspace]) -> None:
    alice, _, ws, _ = people
    weights = _weights("arbetsgivaren skyddskommitté", [ws.pk])
    assert weights["skyddskommitté"] > 2 * weights["arbetsgiv"]
    # Numbers and chapter words are left to the reference search.
    assert set(_weights("Vad säger SFS 1977:1160 3 kap. om arbetsgivaren?", [ws.pk])) == {"arbetsgiv", "säg"}
    result = retrieve_context("arbetsgivaren skyddskommitté", ws, user=alice,
                              options=RetrievalOptions(mode="keyword", use_references=False, top_k=3))
    assert all("skyddskommitté" in c.text.lower() for c in result.chunks)


def test_keyword_statistics_follow_chunk_inserts_and_deletes(people: tuple[User, User, Workspace, Workspace]) -> None:
    def shared(term: str) -> tuple[int, int, int, int]:
        with connection.cursor() as cursor:
            cursor.execute("SELECT (SELECT df FROM chunks_termstat WHERE lexeme = %s), "
                           "(SELECT n_docs FROM chunks_corpusstat), "
                           "(SELECT count(*) FROM chunks_contentchunk WHERE workspace_id IS NULL AND retrievable), "
                           "(SELECT count(*) FROM chunks_contentchunk WHERE workspace_id IS NULL AND retrievable "
                           " AND search_vector @@ to_tsquery('swedish', %s))", [term, term])
            return cursor.fetchone()

    def consistent() -> tuple[int, int]:
        df, n_docs, chunks, matching = shared("skyddsombud")
        assert (df, n_docs) == (matching, chunks)
        return df, n_docs

    df, n_docs = consistent()
    assert df > 0
    _, _, ws, _ = people
    add_file_chunk(ws, "Skyddsombud och skyddsombud.")  # workspace text never enters the shared statistics
    assert consistent() == (df, n_docs)
    las = ContentChunk.objects.filter(document_number="1982:80", retrievable=True)
    section = las.exclude(text__icontains="skyddsombud").first()
    section.text += " Skyddsombud."  # an indexing update is a removal plus an addition
    section.save()
    assert consistent() == (df + 1, n_docs)
    removed = las.count()
    las.delete()
    assert consistent()[1] == n_docs - removed
    ContentChunk.objects.filter(document_number="1977:1160").update(retrievable=False)
    assert consistent() == (0, 0)


def test_keyword_statistics_are_per_workspace_scope(people: tuple[User, User, Workspace, Workspace]) -> None:
    """A private, deleted or other workspace's file never moves a workspace's weights or ranking."""
    alice, _, ws, other = people
    query = "skyddsombud arbetsgivaren ska anmäla"
    options = RetrievalOptions(mode="keyword", use_references=False)
    before_w = _weights(query, [ws.pk])
    before = [c.chunk_id for c in retrieve_context(query, ws, user=alice, options=options).chunks]
    for i in range(30):
        add_file_chunk(other, f"Skyddsombud skyddsombud anmäla {i}.", title=f"c{i}.pdf")
        add_file_chunk(ws, f"Skyddsombud skyddsombud anmäla privat {i}.", private=True, title=f"p{i}.pdf")
        add_file_chunk(ws, f"Skyddsombud skyddsombud anmäla raderad {i}.", deleted=True, title=f"d{i}.pdf")
    assert _weights(query, [ws.pk]) == before_w
    assert [c.chunk_id for c in retrieve_context(query, ws, user=alice, options=options).chunks] == before
    # The asking workspace's own visible files do count: the statistic is scoped, not frozen.
    for i in range(30):
        add_file_chunk(ws, f"Skyddsombud skyddsombud anmäla synlig {i}.", title=f"v{i}.pdf")
    assert _weights(query, [ws.pk])["skyddsombud"] < before_w["skyddsombud"]
    assert _weights(query, [other.pk])["skyddsombud"] < before_w["skyddsombud"]


def test_repealed_stubs_stay_on_the_statute_page_but_are_never_retrieved(people: tuple[User, User, Workspace, Workspace]) -> None:
    alice, _, ws, _ = people
    stub = ContentChunk.objects.get(document_number="1982:80", citation="6 a §")
    assert stub.text.startswith("6 a § Har upphävts") and not stub.retrievable
    assert ContentChunk.objects.filter(document_number="1977:1160", citation="7 kap. 9 §", retrievable=False).exists()
    for mode in ("keyword", "vector", "hybrid"):
        for query in ("Har upphävts genom lag", "Vad säger 6 a § LAS?", "upphävts lag 2006:439"):
            result = retrieve_context(query, ws, user=alice, options=RetrievalOptions(mode=mode, top_k=50))
            assert stub.pk not in {c.chunk_id for c in result.chunks}
            assert not any(c.text.split("§", 1)[-1].strip().lower().startswith("har upphävts") for c in result.chunks)

    doc = stub.legal_document
    assert stub.pk in {c.pk for c in selectors.legal_document_chunks(doc)}  # what the statute page shows


def test_a_compound_in_the_question_finds_sections_by_its_parts(people: tuple[User, User, Workspace, Workspace],
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """No statute writes "arbetsmiljöansvar"; arbetsmiljölagen speaks of ansvar and arbetsmiljö apart."""
    alice, _, ws, _ = people
    assert compound_parts("Vem har arbetsmiljöansvar?") == ["ansv", "arbetsmiljö"]
    assert compound_parts("arbetsgivaren") == []  # a word the statutes use whole stays whole
    options = RetrievalOptions(mode="keyword", use_references=False, top_k=5)
    result = retrieve_context("arbetsmiljöansvar", ws, user=alice, options=options)
    assert result.chunks and all(c.document_number == "1977:1160" for c in result.chunks)
    assert "arbetsmiljö" in (result.chunks[0].header + result.chunks[0].text).lower()
    monkeypatch.setattr(keyword_search, "SPLIT_COMPOUNDS", False)
    assert retrieve_context("arbetsmiljöansvar", ws, user=alice, options=options).chunks == []  # whole, it is nowhere


def test_a_named_statute_ranks_its_sections_up_without_excluding_others(people: tuple[User, User, Workspace, Workspace]) -> None:
    alice, _, ws, _ = people
    # Ranking, not relevance: the threshold would cut both lists to their strongest sources.
    options = RetrievalOptions(mode="keyword", top_k=10, min_relevance=0)
    plain = retrieve_context("skyddsombud och uppsägning", ws, user=alice, options=options).chunks
    named = retrieve_context("skyddsombud och uppsägning enligt LAS", ws, user=alice, options=options).chunks
    share = lambda chunks: sum(c.document_number == "1982:80" for c in chunks)
    assert named[0].document_number == "1982:80"
    assert share(named) > share(plain)
    assert any(c.document_number == "1977:1160" for c in named)  # a prior, not a fence


def test_two_temporal_versions_of_a_section_take_one_slot() -> None:
    def chunk(cid: int, path: str, citation: str, header: str) -> RetrievedChunk:
        return RetrievedChunk(chunk_id=cid, source_type="LEGAL_DOCUMENT", source_id=7, document_number="2010:110",
                              document_title="Socialförsäkringsbalk (2010:110)", header=header, path=path, ordinal=cid,
                              citation=citation, text="…", token_count=10)

    ranked = [
        chunk(1, "00120.00000", "5 kap. 9 §", "Socialförsäkringsbalk (2010:110) > 5 kap. > 9 § (upphör att gälla 2025-01-01)"),
        chunk(2, "00121.00000", "5 kap. 9 §", "Socialförsäkringsbalk (2010:110) > 5 kap. > 9 § (träder i kraft 2025-01-01)"),
        chunk(3, "00120.00001", "5 kap. 9 §", "Socialförsäkringsbalk (2010:110) > 5 kap. > 9 § (upphör att gälla 2025-01-01)"),
        chunk(4, "00122.00000", "5 kap. 10 §", "Socialförsäkringsbalk (2010:110) > 5 kap. > 10 §"),
    ]
    assert [c.chunk_id for c in one_version_per_section(ranked)] == [1, 3, 4]  # a split section keeps its parts


def _keyword_top(query: str, ws: Workspace, options: RetrievalOptions, *, few_chunks: bool) -> list[tuple[int, float]]:
    params = search_params(AccessScope(workspace_id=ws.pk, user_id=0, role="owner"), 20)
    where = filter_sql(options, params)
    params.update(keyword_params(keyword_query(query, [ws.pk])))
    with connection.cursor() as cursor:
        cursor.execute(f"WITH {keyword_cte(where, filtered=True, few_chunks=few_chunks)} "
                       "SELECT id, rank FROM kw ORDER BY rnk", params)
        return [(cid, round(rank, 9)) for cid, rank in cursor.fetchall()]


def test_the_chunk_by_chunk_form_within_a_named_statute_scores_like_the_term_by_term_form(people: tuple[User, User, Workspace, Workspace]) -> None:
    _, _, ws, other = people
    # Another workspace's chunk in the statute's words must stay out of both forms.
    add_file_chunk(other, "Skyddsombud och skyddskommitté i arbetsmiljölagen gäller hos oss.")
    query = "skyddsombud skyddskommitté arbetsgivaren arbetsmiljö"
    for sfs in (["1977:1160"], ["1977:1160", "1982:80"]):
        options = RetrievalOptions(sfs_numbers=sfs)
        by_chunk = _keyword_top(query, ws, options, few_chunks=True)
        assert len(by_chunk) > 5
        assert by_chunk == _keyword_top(query, ws, options, few_chunks=False)
        numbers = dict(ContentChunk.objects.filter(id__in=[cid for cid, _ in by_chunk])
                       .values_list("id", "document_number"))
        assert set(numbers.values()) <= set(sfs)
