"""The vector share of an everyday question: short, naming no statute, it leans on meaning as its words miss
the statutes' words. Real statutes (arbetsmiljölagen, LAS) and real vectors; the questions are our own."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from pytest_django import Settings

from agent.retrieval.hybrid import RetrievalOptions, is_everyday_question, retrieve_context
from agent.retrieval.keyword_search import keyword_query
from agent.retrieval.query_analysis import analyse_query
from compliance.models import LegalDocument, Workspace
from law.statute_directory import statute_directory
from tests.helpers import alice_owning_a_workspace

pytestmark = pytest.mark.django_db

EVERYDAY = "Får chefen skicka hem mig när jag är sjuk?"
NAMING = "Vad säger arbetsmiljölagen om skyddsombud?"


@pytest.fixture
def alice(loaded: list[LegalDocument]) -> tuple[User, Workspace]:
    return alice_owning_a_workspace()


def _everyday(question: str) -> bool:
    return is_everyday_question(analyse_query(question, directory=statute_directory()))


def test_a_short_question_naming_no_statute_is_everyday(alice: tuple[User, Workspace], settings: Settings) -> None:
    settings.RETRIEVAL_EVERYDAY_MAX_WORDS = 6
    assert _everyday(EVERYDAY)
    assert not _everyday(NAMING)
    assert not _everyday("Vad gäller enligt 3 kap. 2 a § om skyddsronder?")
    assert not _everyday("Hur ska arbetsgivaren planera, leda och kontrollera verksamheten så att "
                         "arbetsmiljön blir tillfredsställande för anställda vid nattarbete och skiftarbete?")


def _scores(question: str, ws: Workspace, user: User) -> list[tuple[int, float]]:
    result = retrieve_context(question, ws, user=user, options=RetrievalOptions(use_references=False))
    return [(c.chunk_id, c.score) for c in result.chunks]


def test_an_everyday_question_leans_on_meaning_as_its_words_miss(alice: tuple[User, Workspace],
                                                                 settings: Settings) -> None:
    user, ws = alice
    settings.RETRIEVAL_CITATION_PRIOR = 0.0  # the fusion alone
    settings.RETRIEVAL_VECTOR_SHARE = 0.6
    settings.RETRIEVAL_EVERYDAY_VECTOR_SHARE = 0.3
    leaning = _scores(EVERYDAY, ws, user)

    # The share it must have used: the best keyword return's share of a full match of the question.
    analysis = analyse_query(EVERYDAY, directory=statute_directory())
    full_match = keyword_query(analysis.text or EVERYDAY, [ws.pk]).full_match
    keyword_half = retrieve_context(EVERYDAY, ws, user=user,
                                    options=RetrievalOptions(mode="keyword", use_references=False, min_relevance=0))
    best = max(c.keyword_rank for c in keyword_half.chunks)
    share = 0.6 + 0.3 * (1 - min(1.0, best / full_match))
    assert 0.6 < share < 0.9  # its words miss part of the statutes' words, not all of them

    settings.RETRIEVAL_EVERYDAY_VECTOR_SHARE = 0.0
    settings.RETRIEVAL_VECTOR_SHARE = share
    fixed = _scores(EVERYDAY, ws, user)
    assert [cid for cid, _ in leaning] == [cid for cid, _ in fixed]
    assert [s for _, s in leaning] == pytest.approx([s for _, s in fixed], abs=1e-9)

    settings.RETRIEVAL_VECTOR_SHARE = 0.6
    assert _scores(EVERYDAY, ws, user) != leaning  # and the plain share ranks it otherwise


def test_a_question_naming_a_statute_keeps_the_fixed_share(alice: tuple[User, Workspace], settings: Settings) -> None:
    user, ws = alice
    settings.RETRIEVAL_EVERYDAY_VECTOR_SHARE = 0.0
    before = _scores(NAMING, ws, user)
    settings.RETRIEVAL_EVERYDAY_VECTOR_SHARE = 0.4
    assert _scores(NAMING, ws, user) == before
