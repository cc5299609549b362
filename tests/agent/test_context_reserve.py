"""The ranked sources past the top k fill what the context block's budget leaves (RETRIEVAL_CONTEXT_RESERVE):
a statute of our own from real statutes' sentences."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from pytest_django import Settings

from agent.answering.prepare import PrepareOptions, prepare_context
from agent.retrieval.hybrid import RetrievalOptions, retrieve_context
from compliance.models import Workspace
from tests.helpers import alice_owning_a_workspace, chunked_statute

pytestmark = pytest.mark.django_db

# Four chapters, each with one § on besiktning: no neighbour or chapter of the best hit reaches the others.
STATUTE = "\n\n".join([
    "1 kap. Kranar",
    "1 § En kran ska besiktas innan den tas i bruk och därefter besiktas varje år.",
    "2 kap. Truckar",
    "1 § En truck ska besiktas innan den tas i bruk.",
    "3 kap. Hissar",
    "1 § En hiss ska besiktas varje år av ett certifierat organ.",
    "4 kap. Ställningar",
    "1 § En ställning som är högre än nio meter ska besiktas.",
])
OPTIONS = RetrievalOptions(mode="keyword", use_references=False, top_k=1, min_relevance=0,
                           sfs_numbers=["2099:3"])


@pytest.fixture
def statute(db: None, settings: Settings) -> tuple[User, Workspace]:
    settings.RETRIEVAL_CHAPTER_ANCHORS = 0
    settings.RETRIEVAL_NEIGHBOUR_ANCHORS = 0
    chunked_statute("2099:3", "Lag (2099:3) om lyftanordningar", STATUTE)
    return alice_owning_a_workspace()


def _block(user: User, ws: Workspace) -> list[str]:
    prepared = prepare_context([{"role": "user", "content": "Hur ofta ska en kran besiktas?"}], ws, user,
                               PrepareOptions(retrieval=OPTIONS, use_cache=False))
    return sorted(row["citation"] for row in prepared.citations)


def test_the_reserve_is_the_ranked_sources_after_the_top_k(statute: tuple[User, Workspace], settings: Settings) -> None:
    user, ws = statute
    settings.RETRIEVAL_CONTEXT_RESERVE = 2
    result = retrieve_context("Hur ofta ska en kran besiktas?", ws, user=user, options=OPTIONS)
    assert [c.citation for c in result.chunks] == ["1 kap. 1 §"]
    assert len(result.reserve) == 2 and "1 kap. 1 §" not in [c.citation for c in result.reserve]
    assert all(c.score <= result.chunks[0].score for c in result.reserve)
    assert result.reserve[0].score >= result.reserve[1].score  # rank order
    settings.RETRIEVAL_CONTEXT_RESERVE = 0
    assert retrieve_context("Hur ofta ska en kran besiktas?", ws, user=user, options=OPTIONS).reserve == []


def test_the_block_takes_the_reserve_into_the_budget_left(statute: tuple[User, Workspace], settings: Settings) -> None:
    user, ws = statute
    settings.RETRIEVAL_CONTEXT_RESERVE = 0
    assert _block(user, ws) == ["1 kap. 1 §"]
    settings.RETRIEVAL_CONTEXT_RESERVE = 3
    assert _block(user, ws) == ["1 kap. 1 §", "2 kap. 1 §", "3 kap. 1 §", "4 kap. 1 §"]


def test_the_budget_drops_the_reserve_before_the_hits(statute: tuple[User, Workspace], settings: Settings) -> None:
    user, ws = statute
    settings.RETRIEVAL_CONTEXT_RESERVE = 3
    settings.RETRIEVAL_MAX_TOKENS = 120  # the preamble and one source
    assert _block(user, ws) == ["1 kap. 1 §"]
