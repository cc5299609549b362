"""The relevance threshold: unrelated questions get no sources, related ones keep theirs.

Real statutes (Arbetsmiljölagen, LAS), real vectors; the questions are our own.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from pytest_django import Settings

from agent.answering.answer import extractive_answer
from agent.answering.prepare import prepare_context
from agent.answering.prompts import NO_SOURCES_ANSWER
from agent.retrieval.hybrid import RetrievalOptions, _relevant, retrieve_context
from agent.retrieval.keyword_search import KeywordQuery
from agent.retrieval.sources import RetrievedChunk
from chunks.keyword_index import K1
from compliance.models import LegalDocument, Workspace
from tests.helpers import alice_owning_a_workspace

pytestmark = pytest.mark.django_db

UNRELATED = [
    "Vad kostar en pizza i Malmö?",
    "Hur bakar man surdegsbröd?",
    "Vem vann fotbolls-VM 1958?",
    "What is the capital of Canada?",
    "hmm",
]
RELATED = [
    ("När ska det finnas en skyddskommitté?", ("1977:1160", "6 kap. 8 §")),
    ("Hur lång uppsägningstid har den som varit anställd länge?", ("1982:80", "11 §")),
    ("Måste arbetsgivaren ha sakliga skäl för att säga upp någon?", ("1982:80", "7 §")),
]


def statute_source(*, vector_similarity: float | None = None, keyword_rank: float | None = None) -> RetrievedChunk:
    """One ranked statute § as the relevance gate sees it: its similarity and its BM25 score, nothing else."""
    return RetrievedChunk(chunk_id=1, source_type="LEGAL_DOCUMENT", source_id=1, document_number="2099:5",
                          document_title="", header="", path="1", ordinal=1, citation="1 §", text="", token_count=1,
                          vector_similarity=vector_similarity, keyword_rank=keyword_rank)


@pytest.fixture
def member(loaded: list[LegalDocument]) -> tuple[User, Workspace]:
    return alice_owning_a_workspace()


@pytest.mark.parametrize("question", UNRELATED)
def test_an_unrelated_question_gets_no_sources(member: tuple[User, Workspace], question: str) -> None:
    user, ws = member
    result = retrieve_context(question, ws, user=user)
    assert result.chunks == []
    assert result.excluded_by_threshold > 0


@pytest.mark.parametrize("question", UNRELATED[:2])
def test_without_the_threshold_the_same_question_gets_sources(member: tuple[User, Workspace], question: str) -> None:
    user, ws = member
    assert retrieve_context(question, ws, user=user, options=RetrievalOptions(min_relevance=0)).chunks


@pytest.mark.parametrize("question,gold", RELATED)
def test_a_related_question_keeps_its_source(member: tuple[User, Workspace], question: str,
                                             gold: tuple[str, str]) -> None:
    user, ws = member
    result = retrieve_context(question, ws, user=user)
    assert gold in {(c.document_number, c.citation) for c in result.chunks}


def test_a_cited_section_passes_whatever_its_similarity(member: tuple[User, Workspace]) -> None:
    user, ws = member
    result = retrieve_context("pizza 3 kap. 2 a § arbetsmiljölagen", ws, user=user)
    assert [(c.document_number, c.citation) for c in result.chunks if c.reference_match] == [("1977:1160", "3 kap. 2 a §")]


def test_keyword_mode_judges_by_the_share_of_the_question_matched(member: tuple[User, Workspace]) -> None:
    user, ws = member
    keyword = RetrievalOptions(mode="keyword")
    assert retrieve_context("Hur bakar man surdegsbröd?", ws, user=user, options=keyword).chunks == []
    found = retrieve_context("När ska det finnas en skyddskommitté?", ws, user=user, options=keyword).chunks
    assert ("1977:1160", "6 kap. 8 §") in {(c.document_number, c.citation) for c in found}


@pytest.mark.parametrize("message", ["och det?", "???", "Men då så?"])
def test_a_first_message_without_content_is_not_searched(member: tuple[User, Workspace], message: str) -> None:
    user, ws = member
    result = retrieve_context(message, ws, user=user, options=RetrievalOptions(min_relevance=0))
    assert result.no_content and result.chunks == []


def test_the_same_message_after_a_question_follows_it_up(member: tuple[User, Workspace]) -> None:
    user, ws = member
    prepared = prepare_context([
        {"role": "user", "content": "När ska det finnas en skyddskommitté?"},
        {"role": "assistant", "content": "Vid minst femtio arbetstagare [1]."},
        {"role": "user", "content": "och det?"},
    ], ws, user)
    assert prepared.citations


def test_the_offline_answer_says_the_knowledge_base_has_nothing(member: tuple[User, Workspace]) -> None:
    user, ws = member
    prepared = prepare_context([{"role": "user", "content": "Vad kostar en pizza i Malmö?"}], ws, user)
    assert prepared.citations == [] and prepared.metrics["zero_match"]
    answer = extractive_answer(prepared.citations)
    assert answer == NO_SOURCES_ANSWER
    assert "kunskapsbasen" in answer and "formulera" in answer


def test_a_source_without_a_vector_needs_more_of_the_question_beside_vectors(settings: Settings) -> None:
    """Keyword mode has only the keyword share to judge by; a hybrid search judges most sources by meaning, so a
    source still waiting for its vector must match more of the question to open the gate on its own."""
    settings.RETRIEVAL_MIN_KEYWORD_COVERAGE, settings.RETRIEVAL_MIN_KEYWORD_COVERAGE_BESIDE_VECTORS = 0.08, 0.3
    query = KeywordQuery(terms=["kran", "besikt"], weights=[3.0, 1.0])
    full = 4.0 * (K1 + 1)

    def waiting(share: float) -> RetrievedChunk:  # a statute chunk with no vector yet, matching `share` of the question's weight
        return statute_source(keyword_rank=share * full)

    options = RetrievalOptions()
    assert _relevant([waiting(0.2)], options, query, beside_vectors=False)  # keyword mode: 0.2 >= 0.08
    assert _relevant([waiting(0.2)], options, query, beside_vectors=True) == []
    assert _relevant([waiting(0.5)], options, query, beside_vectors=True)


def test_a_source_just_over_the_floor_must_also_share_the_questions_words(settings: Settings) -> None:
    """In the band over the floor meaning alone is weak evidence: the source must also match part of the
    question's keyword weight; over the band, or in vector mode (no keyword view), meaning is enough."""
    settings.RETRIEVAL_MIN_RELEVANCE, settings.RETRIEVAL_MIN_RELEVANCE_ALONE = 0.84, 0.85
    settings.RETRIEVAL_BAND_KEYWORD_COVERAGE = 0.2
    query = KeywordQuery(terms=["ställning", "fallskydd"], weights=[2.0, 2.0])
    full = 4.0 * (K1 + 1)

    def source(similarity: float, share: float | None = None) -> RetrievedChunk:
        return statute_source(vector_similarity=similarity, keyword_rank=None if share is None else share * full)

    hybrid = RetrievalOptions()
    assert _relevant([source(0.845)], hybrid, query, beside_vectors=True) == []
    assert _relevant([source(0.845, share=0.1)], hybrid, query, beside_vectors=True) == []
    assert _relevant([source(0.845, share=0.25)], hybrid, query, beside_vectors=True)
    assert _relevant([source(0.85)], hybrid, query, beside_vectors=True)
    assert _relevant([source(0.835, share=1.0)], hybrid, query, beside_vectors=True) == []  # the floor holds
    assert _relevant([source(0.845)], RetrievalOptions(mode="vector"), None, beside_vectors=True)
    # A caller moving the floor moves the band with it.
    assert _relevant([source(0.865)], RetrievalOptions(min_relevance=0.86), query, beside_vectors=True) == []
    assert _relevant([source(0.87)], RetrievalOptions(min_relevance=0.86), query, beside_vectors=True)
    settings.RETRIEVAL_MIN_RELEVANCE_ALONE = 0.84  # no band
    assert _relevant([source(0.845)], hybrid, query, beside_vectors=True)
