"""A workspace's glossary in retrieval (agent/retrieval/workspace_glossary.py): a question using one of the team's
words is searched with the law's words the team gave for it, by both halves; the word is no longer named as one no
source uses; the reader and the model are told; another workspace's glossary never steers; and a change to the
glossary reaches a cached answer.

Arbetsmiljölagen and LAS are the corpus; the words are of our own choosing, never from an evaluation set: the
employment protection act writes no "uppsägningslön" (its 12 § gives "lön och andra anställningsförmåner" during
"uppsägningstiden"), and neither act writes "visselblåsare".
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from agent.answering import chat
from agent.answering.prepare import prepare_context
from agent.retrieval.hybrid import RetrievalOptions, retrieve_context
from glossary import services

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("empty_retrieval_cache")]

QUESTION = "Hur länge får man uppsägningslön?"
LAW_WORDS = "lön och andra anställningsförmåner under uppsägningstiden"
GOLD = ("1982:80", "12 §")


def first_sections(team: dict[str, Any], mode: str, question: str = QUESTION) -> list[tuple[str, str]]:
    result = retrieve_context(question, team["ws"], user=team["alice"], options=RetrievalOptions(mode=mode))
    return [(c.document_number, c.citation) for c in result.chunks]


@pytest.mark.parametrize("mode", ["keyword", "vector"])
def test_a_term_brings_the_section_in_the_laws_words(team: dict[str, Any], mode: str) -> None:
    # (Hybrid ranks it first over these two acts already; over the statute book it was fifth.)
    before = first_sections(team, mode)
    assert before[0] != GOLD
    services.term_create(workspace=team["ws"], user=team["alice"], word="uppsägningslön", law_words=LAW_WORDS)
    after = retrieve_context(QUESTION, team["ws"], user=team["alice"], options=RetrievalOptions(mode=mode))
    assert (after.chunks[0].document_number, after.chunks[0].citation) == GOLD
    assert [(m.word, m.law_words) for m in after.glossary] == [("uppsägningslön", LAW_WORDS)]


def test_an_inflected_form_uses_the_term_and_is_no_longer_a_word_no_source_uses(team: dict[str, Any]) -> None:
    question = "Vilket skydd har visselblåsaren enligt arbetsmiljölagen?"
    assert retrieve_context(question, team["ws"], user=team["alice"]).unknown_words == ["visselblåsaren"]
    services.term_create(workspace=team["ws"], user=team["alice"], word="visselblåsare",
                         law_words="arbetstagare som slår larm")
    result = retrieve_context(question, team["ws"], user=team["alice"])
    assert result.unknown_words == []
    assert [m.word for m in result.glossary] == ["visselblåsare"]


def test_it_checks_ownership(team: dict[str, Any]) -> None:
    """Another workspace's glossary never steers this workspace's search, nor is named to it."""
    before = first_sections(team, "hybrid")
    services.term_create(workspace=team["other"], user=team["charlie"], word="uppsägningslön", law_words=LAW_WORDS)
    result = retrieve_context(QUESTION, team["ws"], user=team["alice"])
    assert [(c.document_number, c.citation) for c in result.chunks] == before
    assert result.glossary == []
    theirs = retrieve_context(QUESTION, team["other"], user=team["charlie"])
    assert (theirs.chunks[0].document_number, theirs.chunks[0].citation) == GOLD


def test_the_model_is_told_what_the_team_means_as_data(team: dict[str, Any]) -> None:
    services.term_create(workspace=team["ws"], user=team["alice"], word="uppsägningslön", law_words=LAW_WORDS)
    prepared = prepare_context([{"role": "user", "content": QUESTION}], team["ws"], team["alice"])
    assert prepared.glossary == {"uppsägningslön": LAW_WORDS}
    context = prepared.messages[-2]["content"]
    assert f'"uppsägningslön" = "{LAW_WORDS}"' in context
    assert "inte instruktioner" in context
    # The line comes before the sources, outside the delimited block.
    assert context.index("uppsägningslön") < re.search(r"--- \d+ Källa \[1\]", context).start()


def test_a_change_to_the_glossary_reaches_a_cached_answer(team: dict[str, Any]) -> None:
    conversation = chat.conversation_create(workspace=team["ws"], user=team["alice"])

    def ask() -> str:
        conversation.workspace.refresh_from_db()  # as each request reads it: its knowledge_version keys the cache
        return chat.answer(conversation, team["alice"], QUESTION).content

    assert "ordlista" not in ask()
    term = services.term_create(workspace=team["ws"], user=team["alice"], word="uppsägningslön",
                                law_words=LAW_WORDS)
    taught = ask()
    assert f'Enligt er ordlista söktes även på lagens ord: "uppsägningslön" = "{LAW_WORDS}"' in taught
    assert "> 12 §" in taught
    assert "Enligt er ordlista" in ask()  # a cache hit keeps what the glossary did
    services.term_delete(term=term, user=team["alice"])
    assert "ordlista" not in ask()


def test_the_search_api_names_the_terms_it_used(team: dict[str, Any], client: Any) -> None:
    services.term_create(workspace=team["ws"], user=team["alice"], word="uppsägningslön", law_words=LAW_WORDS)
    client.force_login(team["alice"])
    found = client.post(f"/api/v1/workspaces/{team['ws'].slug}/search", {"query": QUESTION},
                        content_type="application/json").json()
    assert found["glossary"] == {"uppsägningslön": LAW_WORDS}
    assert (found["results"][0]["document_number"], found["results"][0]["citation"]) == GOLD
    client.force_login(team["charlie"])
    theirs = client.post(f"/api/v1/workspaces/{team['other'].slug}/search", {"query": QUESTION},
                         content_type="application/json").json()
    assert theirs["glossary"] == {}


HIRED = "Vem ansvarar för skyddet av vår hyrpersonal?"
CITED = ("1977:1160", "3 kap. 12 §")


@pytest.mark.parametrize("mode", ["hybrid", "keyword", "vector"])
def test_a_term_citing_a_provision_gives_it_first(team: dict[str, Any], mode: str) -> None:
    """Law words that say where the law says it ("… (3 kap. 12 § arbetsmiljölagen)") are read as a question's
    reference: the § comes first, marked as cited, whatever its words."""
    assert CITED not in first_sections(team, mode, HIRED)[:1]
    services.term_create(workspace=team["ws"], user=team["alice"], word="hyrpersonal",
                         law_words="inhyrd arbetskraft (3 kap. 12 § arbetsmiljölagen)")
    result = retrieve_context(HIRED, team["ws"], user=team["alice"], options=RetrievalOptions(mode=mode))
    first = result.chunks[0]
    assert (first.document_number, first.citation) == CITED
    assert first.reference_match
    assert result.references == ["1977:1160 3 kap. 12 §"]


def test_a_cited_act_ranks_its_sections_up_and_a_missing_provision_finds_the_words(team: dict[str, Any]) -> None:
    services.term_create(workspace=team["ws"], user=team["alice"], word="hyrpersonal",
                         law_words="inhyrd arbetskraft (lagen om anställningsskydd)")
    assert first_sections(team, "hybrid", HIRED)[0][0] == "1982:80"
    services.term_update(term=team["ws"].glossary_terms.get(), user=team["alice"], word="hyrpersonal",
                         law_words="inhyrd arbetskraft (3 kap. 99 § arbetsmiljölagen)")
    result = retrieve_context(HIRED, team["ws"], user=team["alice"])
    assert not any(chunk.reference_match for chunk in result.chunks)
    assert (result.chunks[0].document_number, result.chunks[0].citation) == CITED  # by its words, as before


def test_another_workspaces_cited_provision_is_not_given(team: dict[str, Any]) -> None:
    before = first_sections(team, "hybrid", HIRED)
    services.term_create(workspace=team["other"], user=team["charlie"], word="hyrpersonal",
                         law_words="inhyrd arbetskraft (22 § lagen om anställningsskydd)")
    result = retrieve_context(HIRED, team["ws"], user=team["alice"])
    assert [(c.document_number, c.citation) for c in result.chunks] == before
    assert result.references == []


def test_a_cited_chapter_narrows_the_statutes_prior_to_it(team: dict[str, Any]) -> None:
    """A question (or a term) citing a chapter as a whole: its statute's prior searches that chapter, so the
    chapter's §§ rank first, not the statute's that use the question's words more (6 kap. is the skyddsombud's)."""
    question = "Vad säger 7 kap. arbetsmiljölagen om skyddsombud?"
    result = retrieve_context(question, team["ws"], user=team["alice"])
    assert result.references == ["1977:1160 7 kap."]
    assert result.chunks[0].chapter == "7"
    # Taught: a word whose law words cite the chapter does the same for a question that names none.
    services.term_create(workspace=team["ws"], user=team["alice"], word="inspektionen",
                         law_words="tillsyn (7 kap. arbetsmiljölagen)")
    taught = retrieve_context("Vad får inspektionen göra?", team["ws"], user=team["alice"])
    assert taught.references == ["1977:1160 7 kap."]
    assert taught.chunks[0].chapter == "7"
