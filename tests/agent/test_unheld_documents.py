"""A question citing a document the knowledge base does not hold (an agency regulation since repealed, an amending
act) is answered by what the sources say of it: the provision that repealed it first.

Real Postgres and the real embedding model; statutes of our own, not from any question set.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from pytest_django import Settings

from agent.answering.prepare import PrepareOptions, prepare_context
from agent.retrieval.hybrid import RetrievalOptions, retrieve_context
from agent.retrieval.mentions import mention_search
from chunks.models import ContentChunk
from compliance.selectors import access_scope_for
from law.statute_directory import statute_directory_invalidate
from tests.corpus import embed_all
from tests.helpers import alice_owning_a_workspace, chunked_statute

pytestmark = pytest.mark.django_db

QUESTION = "Vad gäller enligt AFS 1990:5?"


@pytest.fixture
def corpus() -> Callable[[str, str], int]:
    chunked_statute("2091:1", "Lag (2091:1) om stegar", (
        "1 § Denna lag gäller arbete på stegar och bockar.\n\n"
        "2 § Arbetsgivaren ska se till att stegen står stadigt.\n\n"
        "3 § Genom denna lag upphävs Exempelverkets föreskrifter (AFS 1990:5) om stegar och arbetsbockar."))
    chunked_statute("2091:2", "Lag (2091:2) om ställningar", (
        "1 § Den som har följt Exempelverkets föreskrifter (AFS 1990:5) om stegar har också uppfyllt denna lag."))
    chunked_statute("2091:3", "Lag (2091:3) om tak", (
        "1 § Exempelverkets föreskrifter (AFS 1990:50) om taksäkerhet gäller vid arbete på tak."))
    # Names the number beside the title of an act "om upphävande av …": that is no repeal of it.
    chunked_statute("2091:4", "Lag (2091:4) om bockar", (
        "1 § Lagen kompletterar Exempelverkets föreskrifter (AFS 1990:5) om upphävande av äldre regler om bockar."))
    embed_all(ContentChunk.objects.filter(document_number__startswith="2091:"))
    statute_directory_invalidate()

    def section(number: str, citation: str) -> int:
        return ContentChunk.objects.get(document_number=number, citation=citation).pk

    return section


def test_a_cited_document_the_knowledge_base_does_not_hold_brings_the_sources_that_mention_it(corpus: Callable[[str, str], int],
                                                                                              settings: Settings) -> None:
    # Each source must pass the relevance floor on its own, so what is kept for the question's sake shows.
    settings.RETRIEVAL_RELEVANCE_GATE = "source"
    user, ws = alice_owning_a_workspace()
    result = retrieve_context(QUESTION, ws, user=user, options=RetrievalOptions(top_k=10))
    ids = [c.chunk_id for c in result.chunks]
    # The provision that repealed it first, then the other mention; each says what it mentions.
    assert ids[:2] == [corpus("2091:1", "3 §"), corpus("2091:2", "1 §")]
    assert [c.extra.get("mentions") for c in result.chunks[:2]] == ["AFS 1990:5", "AFS 1990:5"]
    # Another number that starts with the same digits is another document.
    assert corpus("2091:3", "1 §") not in {c.chunk_id for c in result.chunks if c.extra.get("mentions")}
    # The law that repealed it is what the question is about now: its other §§ come too, whatever their
    # similarity ("the ladder stands firmly" shares neither a word nor much meaning with the question).
    assert corpus("2091:1", "2 §") in ids


def test_the_replacement_is_the_repealing_document_never_a_title_or_a_mere_mention(corpus: Callable[[str, str], int]) -> None:
    user, ws = alice_owning_a_workspace()
    mentions = mention_search(["AFS 1990:5"], access_scope_for(user, ws), RetrievalOptions())
    assert mentions.replacements == ["2091:1"]  # "Genom denna lag upphävs …": the law it stands in
    assert {c.document_number for c in mentions.chunks} == {"2091:1", "2091:2", "2091:4"}


def test_the_block_says_the_document_is_not_held_and_adds_nothing_around_a_mention(corpus: Callable[[str, str], int]) -> None:
    user, ws = alice_owning_a_workspace()
    prepared = prepare_context([{"role": "user", "content": QUESTION}], ws, user, PrepareOptions(use_cache=False))
    assert "(nämner AFS 1990:5, som inte finns i kunskapsbasen)" in prepared.context_text
    assert "upphävs Exempelverkets föreskrifter (AFS 1990:5)" in prepared.context_text
    # The repealing provision's neighbours are about stegar, not about what the question asks: none is added
    # for its sake (a general hit may still bring its own).
    sources = list(prepared.assembled.citations.values())
    mentions = {c.chunk_id for c in sources if c.extra.get("mentions")}
    assert mentions == {corpus("2091:1", "3 §"), corpus("2091:2", "1 §"), corpus("2091:4", "1 §")}
    assert not {c.extra.get("neighbour_of") for c in sources} & mentions


def test_a_held_document_is_searched_as_before(corpus: Callable[[str, str], int]) -> None:
    """A question citing a document the knowledge base has gets no mention search: "2091:1" is held."""
    user, ws = alice_owning_a_workspace()
    result = retrieve_context("Vad gäller enligt lag (2091:1)?", ws, user=user, options=RetrievalOptions(top_k=10))
    assert result.chunks
    assert not any(c.extra.get("mentions") for c in result.chunks)
