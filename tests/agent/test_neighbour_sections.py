"""The §§ beside the best statute hits join the context block after every direct hit (the prose questions
fail mostly on "right statute, neighbouring §"). Real arbetsmiljölagen and LAS, the real retrieval."""

from __future__ import annotations

from dataclasses import replace

import pytest
from django.contrib.auth.models import User
from pytest_django import DjangoAssertNumQueries, Settings

from agent.answering.prepare import PrepareOptions, prepare_context
from agent.retrieval.context_additions import block_sources, neighbour_sections
from agent.retrieval.hybrid import RetrievalOptions, retrieve_context
from compliance.models import LegalDocument, Workspace
from compliance.selectors import access_scope_for
from tests.helpers import alice_owning_a_workspace

pytestmark = pytest.mark.django_db

QUESTION = "Vad säger 3 kap. 2 a § arbetsmiljölagen?"


@pytest.fixture
def asker(loaded: list[LegalDocument]) -> tuple[User, Workspace]:
    return alice_owning_a_workspace()


def test_the_sections_before_and_after_the_best_hit_come_after_every_hit(asker: tuple[User, Workspace]) -> None:
    user, ws = asker
    hits = retrieve_context(QUESTION, ws, user=user, options=RetrievalOptions(top_k=5)).chunks
    assert (hits[0].document_number, hits[0].citation) == ("1977:1160", "3 kap. 2 a §")
    extra = neighbour_sections(hits, access_scope_for(user, ws), RetrievalOptions(top_k=5), anchors=1)
    cited = [c.citation for c in extra]
    assert "3 kap. 2 §" in cited  # the § before
    after = [c for c in cited if c not in ("3 kap. 2 §", "3 kap. 2 a §")]
    assert after and all(c.startswith("3 kap. ") for c in after)  # and the one after, in the same chapter
    assert all(c.source_type == "LEGAL_DOCUMENT" and c.document_number == "1977:1160" for c in extra)
    assert max(c.score for c in extra) < min(c.score for c in hits)
    assert not {(c.document_number, c.citation) for c in extra} & {(c.document_number, c.citation) for c in hits}
    assert all(c.extra["neighbour_of"] == hits[0].chunk_id for c in extra)


def test_the_neighbours_are_read_in_one_statement(asker: tuple[User, Workspace],
                                                  django_assert_num_queries: DjangoAssertNumQueries) -> None:
    # They are not ranked by the vector: no transaction and no HNSW settings around the one read.
    user, ws = asker
    hits = retrieve_context(QUESTION, ws, user=user, options=RetrievalOptions(top_k=5)).chunks
    scope = access_scope_for(user, ws)
    with django_assert_num_queries(1):
        extra = neighbour_sections(hits, scope, RetrievalOptions(top_k=5), anchors=1)
    assert "3 kap. 2 §" in [c.citation for c in extra]


def test_no_anchor_no_neighbours(asker: tuple[User, Workspace]) -> None:
    user, ws = asker
    hits = retrieve_context(QUESTION, ws, user=user, options=RetrievalOptions(top_k=5)).chunks
    assert neighbour_sections(hits, access_scope_for(user, ws), RetrievalOptions(), anchors=0) == []
    assert neighbour_sections([], access_scope_for(user, ws), RetrievalOptions()) == []


def test_the_context_block_carries_the_neighbours_within_its_budget(asker: tuple[User, Workspace],
                                                                    settings: Settings) -> None:
    user, ws = asker
    settings.RETRIEVAL_CONTEXT_RESERVE = 0  # the reserve would fill what the neighbours leave: count them alone
    options = PrepareOptions(retrieval=RetrievalOptions(top_k=3), use_cache=False)
    with_neighbours = prepare_context([{"role": "user", "content": QUESTION}], ws, user, options)
    cited = {(r["document_number"], r["citation"]) for r in with_neighbours.citations}
    assert ("1977:1160", "3 kap. 2 §") in cited
    assert with_neighbours.metrics["tokens_used"] <= with_neighbours.metrics["token_budget"]
    settings.RETRIEVAL_NEIGHBOUR_ANCHORS = 0
    without = prepare_context([{"role": "user", "content": QUESTION}], ws, user, options)
    assert without.metrics["chunks_included"] < with_neighbours.metrics["chunks_included"]


def test_block_sources_puts_the_hits_first_then_what_they_bring_then_the_reserve(asker: tuple[User, Workspace],
                                                                                 settings: Settings) -> None:
    settings.RETRIEVAL_CONTEXT_RESERVE = 10
    user, ws = asker
    options = RetrievalOptions(top_k=5)
    result = retrieve_context(QUESTION, ws, user=user, options=options)
    assert result.reserve  # the ranked sources after the top 5
    timings: dict[str, float] = {}
    sources = block_sources(result, access_scope_for(user, ws), options, timings)
    hits, reserve = len(result.chunks), len(result.reserve)
    assert sources[:hits] == result.chunks
    assert sources[len(sources) - reserve:] == result.reserve
    added = sources[hits:len(sources) - reserve]
    assert ("1977:1160", "3 kap. 2 §") in {(c.document_number, c.citation) for c in added}  # the § before the hit
    assert all(c.score < min(h.score for h in result.chunks) for c in added)
    assert set(timings) == {"neighbours", "cited", "chapters", "acts"}
    assert block_sources(replace(result, chunks=[], reserve=[]), access_scope_for(user, ws), options, {}) == []
