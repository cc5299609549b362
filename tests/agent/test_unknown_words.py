"""The question's words that no source uses: named to the reader and to the model (KeywordQuery.unknown_words).

Arbetsmiljölagen and LAS are the corpus; the words are of our own choosing, never from an evaluation set.
"""

from __future__ import annotations

from typing import Any

import pytest

from agent.answering import chat
from agent.answering.answer import extractive_answer
from agent.models import RetrievalLog
from agent.retrieval.hybrid import RetrievalOptions, retrieve_context
from agent.retrieval.keyword_search import keyword_query, split_compounds
from compliance.models import LegalDocument
from tests.agent.test_retrieval import add_file_chunk
from tests.fake_openai import FakeOpenAI

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("empty_retrieval_cache")]

# Neither act writes "visselblåsare" (their word is "arbetstagare" who reports; the whistle-blowing act is not loaded).
QUESTION = "Vilket skydd har en visselblåsare enligt arbetsmiljölagen?"


def test_a_word_no_source_uses_is_named_as_the_question_writes_it(loaded: list[LegalDocument]) -> None:
    query = keyword_query("Gäller arbetsmiljölagen för en Visselblåsare vid en GDPR-incident?", [])
    # As written (capital, hyphen), in the question's order; "arbetsmiljölagen" is the act's own word.
    assert query.unknown_words == ["Visselblåsare", "GDPR-incident"]
    assert query.unmatched_weight > 0
    assert keyword_query("Vad gäller för arbetsmiljön?", []).unknown_words == []


def test_a_question_in_english_gets_no_list_of_its_words(loaded: list[LegalDocument]) -> None:
    # Most of its words miss the Swedish acts; naming them would tell the reader nothing.
    assert keyword_query("Do we need a whistleblower channel at work?", []).unknown_words == []
    assert keyword_query("Vad gäller för whistleblowing i arbetet?", []).unknown_words == ["whistleblowing"]


def test_a_compound_searched_by_its_parts_is_not_a_missing_word(loaded: list[LegalDocument]) -> None:
    text = "Vem har arbetsmiljöansvaret?"
    assert split_compounds(text).words == ["arbetsmiljöansvaret"]  # the acts write its parts, not the whole
    assert keyword_query(text, []).unknown_words == []


def test_a_word_only_another_workspace_uses_is_still_unknown(team: dict[str, Any]) -> None:
    add_file_chunk(team["other"], "Vår visselblåsare tar emot rapporter om missförhållanden.")
    assert keyword_query(QUESTION, [team["ws"].pk]).unknown_words == ["visselblåsare"]
    assert keyword_query(QUESTION, [team["other"].pk]).unknown_words == []


def test_the_retrieval_result_carries_them_in_keyword_and_hybrid_modes(team: dict[str, Any]) -> None:
    for mode in ("keyword", "hybrid"):
        result = retrieve_context(QUESTION, team["ws"], user=team["alice"], options=RetrievalOptions(mode=mode))
        assert result.unknown_words == ["visselblåsare"], mode
        assert result.chunks  # the act named and the question's other words still find sources


def test_a_statute_named_by_its_short_name_is_not_a_missing_word(team: dict[str, Any]) -> None:
    # Neither act writes "LAS", yet the question names the employment protection act by it.
    assert "LAS" in keyword_query("Vad säger LAS om visselblåsare?", [team["ws"].pk]).unknown_words
    result = retrieve_context("Vad säger LAS om visselblåsare?", team["ws"], user=team["alice"])
    assert result.unknown_words == ["visselblåsare"]


def test_the_offline_answer_names_the_word_and_keeps_it_on_a_cache_hit(team: dict[str, Any]) -> None:
    conversation = chat.conversation_create(workspace=team["ws"], user=team["alice"])
    first = chat.answer(conversation, team["alice"], QUESTION)
    again = chat.answer(conversation, team["alice"], QUESTION)
    for message in (first, again):
        assert message.answer_mode == "extractive" and message.sources
        assert 'Ingen källa använder "visselblåsare"' in message.content
        assert "fråga gärna igen med lagens term" in message.content
    # Both turns' logs keep the word for the dashboard's list, the cached one too.
    assert list(RetrievalLog.objects.filter(workspace=team["ws"]).order_by("pk").values_list(
        "cache_hit", "unknown_words")) == [(False, ["visselblåsare"]), (True, ["visselblåsare"])]


def test_with_no_source_the_answer_says_which_words_found_nothing() -> None:
    text = extractive_answer([], unknown_words=["visselblåsare", "mejl"])
    assert text.startswith("Kunskapsbasen har inget om det här.")
    assert 'använder "visselblåsare" och "mejl"' in text
    assert "Kunskapsbasen har inget om det här: varken" in extractive_answer([])  # no word missing: as before


def test_the_model_is_told_the_words_so_it_can_search_in_the_laws(team: dict[str, Any], fake_model: FakeOpenAI) -> None:
    fake_model.script = [{"text": "Arbetstagare som rapporterar skyddas [1]."}]
    conversation = chat.conversation_create(workspace=team["ws"], user=team["alice"])
    chat.answer(conversation, team["alice"], QUESTION)
    context = fake_model.requests[0]["messages"][-2]["content"]
    assert 'Ord i frågan som ingen källa använder: "visselblåsare".' in context
    # Named before the sources begin, outside the block the boundary delimits.
    assert context.index("ingen källa använder") < context.index("\n--- ")


def test_the_models_own_search_is_told_its_words_no_source_uses(team: dict[str, Any], fake_model: FakeOpenAI) -> None:
    fake_model.script = [
        {"tool_call": {"name": "search_knowledge_base", "arguments": {"query": "visselblåsare skydd",
                                                                      "sfs": ["1977:1160"]}}},
        {"text": "Inget i källorna [1]."},
    ]
    conversation = chat.conversation_create(workspace=team["ws"], user=team["alice"])
    chat.answer(conversation, team["alice"], "Vad gäller för skyddsombud?")
    tool = next(m for m in fake_model.requests[1]["messages"] if m["role"] == "tool")["content"]
    assert tool.startswith('Ord i sökningen som ingen källa använder: "visselblåsare".')
