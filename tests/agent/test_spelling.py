"""A misspelt word no source uses is searched as the statute word one slip away (agent.retrieval.spelling).

Arbetsmiljölagen and LAS are the corpus; the slips are of our own making, never from an evaluation set.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from django.test import Client
from pytest_django import Settings

from agent.answering import chat
from agent.answering.answer import extractive_answer
from agent.answering.prompts import quoted_words
from agent.models import RetrievalLog
from agent.retrieval import bridges
from agent.retrieval.hybrid import RetrievalOptions, retrieve_context
from agent.retrieval.keyword_search import corrected_text, keyword_query
from agent.retrieval.query_analysis import analyse_query
from agent.retrieval.spelling import (
    Correction,
    MarkedWords,
    SpellingIndex,
    correction,
    names_written,
    restore_marks,
    statute_names,
    statute_spellings,
)
from chunks.embedding import get_provider
from compliance.models import LegalDocument
from compliance.sql import dict_cursor
from law.statute_directory import statute_directory
from tests.agent.test_retrieval import add_file_chunk
from tests.fake_openai import FakeOpenAI
from tests.helpers import chunked_statute

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("empty_retrieval_cache")]

# "skyddsombud" with one d: arbetsmiljölagen's 6 kap. writes the word in a dozen §§.
QUESTION = "Vad får ett skydsombud göra?"


def test_one_slip_finds_the_statute_word_most_used_first_letter_kept() -> None:
    index = SpellingIndex(by_initial={"s": ("skyddsombud", "skyddsombuds"), "b": ("bestämmelse",)},
                          by_folded={"bestammels": "bestämmels"})
    assert correction("skydsombud", index) == Correction(lexeme="skyddsombud", marks_only=False)  # a letter dropped
    assert correction("skyddsomubd", index) == Correction(lexeme="skyddsombud", marks_only=False)  # two swapped
    assert correction("bestämmelsr", index) == Correction(lexeme="bestämmelse", marks_only=False)  # one changed
    assert correction("kyddsombud", index) is None  # the first letter is kept: no "s" word is looked at
    assert correction("skydsomb", index) is None  # two slips away
    assert correction("skydd", index) is None  # a statute word already
    assert correction("ombd", index) is None  # too short to tell which word was meant


def test_a_word_typed_without_its_diacritics_is_read_as_the_statute_word() -> None:
    index = SpellingIndex(by_initial={"ö": ("övertid",), "a": ("arbetstagar",)},
                          by_folded={"overtid": "övertid", "lon": "lön", "uppsagningstid": "uppsägningstid"})
    # The first letter too, and any number of marks: a mark left out is no slip.
    assert correction("overtid", index) == Correction(lexeme="övertid", marks_only=True)
    assert correction("uppsagningstid", index) == Correction(lexeme="uppsägningstid", marks_only=True)
    assert correction("lon", index) is None  # too short: "lon" reads as more than one word of the statutes
    assert correction("övertid", index) is None  # a statute word already


def test_a_question_typed_without_diacritics_finds_the_statute_words(loaded: list[LegalDocument]) -> None:
    query = keyword_query("Hur lang ar uppsagningstiden for en arbetstagare?", [])
    assert "uppsägningstid" in query.terms
    assert query.corrections["uppsagningstiden"].lower().startswith("uppsägningstid")
    # Not a guess: the relevance floor counts the word as the statute's, as if its marks had been typed.
    unmarked = keyword_query("Hur räknas uppsagningstiden?", [])
    marked = keyword_query("Hur räknas uppsägningstiden?", [])
    assert unmarked.unknown_words == ["uppsagningstiden"] and unmarked.unmatched_weight == 0
    term = "uppsägningstid"
    assert unmarked.weights[unmarked.terms.index(term)] == pytest.approx(marked.weights[marked.terms.index(term)])
    # A slip of one edit is a guess: it stays missing for the floor.
    assert keyword_query("Hur räknas uppsägningstidn?", []).unmatched_weight > 0


def test_a_misspelt_word_is_searched_as_the_statute_word_and_still_named(loaded: list[LegalDocument]) -> None:
    query = keyword_query(QUESTION, [])
    assert query.unknown_words == ["skydsombud"]
    assert query.corrections["skydsombud"].lower().startswith("skyddsombud")  # as a statute writes it
    assert "skyddsombud" in query.terms
    # The written word is still in no source: the relevance floor counts it as unmatched.
    assert query.unmatched_weight > 0


def test_without_the_bridge_the_slip_finds_nothing(loaded: list[LegalDocument], settings: Settings) -> None:
    settings.RETRIEVAL_BRIDGE_SPELLING = False
    query = keyword_query(QUESTION, [])
    assert query.unknown_words == ["skydsombud"] and query.corrections == {}
    assert "skyddsombud" not in query.terms


def test_the_misspelt_question_finds_what_the_spelt_one_finds(team: dict[str, Any]) -> None:
    options = RetrievalOptions(mode="keyword", top_k=5)
    spelt = retrieve_context("Vad får ett skyddsombud göra?", team["ws"], user=team["alice"], options=options)
    slipped = retrieve_context(QUESTION, team["ws"], user=team["alice"], options=options)
    # The corrected word is searched at its idf: the best hit is the one the spelt question finds.
    assert slipped.chunks and slipped.chunks[0].chunk_id == spelt.chunks[0].chunk_id
    assert "skyddsombud" in slipped.chunks[0].text.lower()
    assert slipped.unknown_words == ["skydsombud"] and "skydsombud" in slipped.corrections


def test_the_question_is_written_with_the_corrections_whole_words_only() -> None:
    # The keys are the words as the question writes them (KeywordQuery.corrections); the statute's word is in lower
    # case, and a capital the question gave it is kept.
    corrections = {"Skydsombud": "skyddsombud", "arbets-miljö": "arbetsmiljö"}
    assert corrected_text("Skydsombud och skydsombudet; arbets-miljö.", corrections) == (
        "Skyddsombud och skydsombudet; arbetsmiljö.")  # another word that only begins alike is left as typed
    assert corrected_text("Vad får ett skydsombud göra?", {}) == "Vad får ett skydsombud göra?"


def test_the_vector_half_embeds_the_question_as_corrected(team: dict[str, Any]) -> None:
    slipped = retrieve_context(QUESTION, team["ws"], user=team["alice"], options=RetrievalOptions(top_k=5))
    meant = corrected_text(QUESTION, slipped.corrections)
    assert meant != QUESTION and "skyddsombud" in meant.lower()
    as_typed = get_provider().embed_query(QUESTION)
    assert np.allclose(slipped.search.qvec, get_provider().embed_query(meant), atol=1e-5)
    assert not np.allclose(slipped.search.qvec, as_typed, atol=1e-3)


def test_without_the_bridge_the_question_is_embedded_as_typed(team: dict[str, Any], settings: Settings) -> None:
    settings.RETRIEVAL_BRIDGE_SPELLING = False
    slipped = retrieve_context(QUESTION, team["ws"], user=team["alice"], options=RetrievalOptions(top_k=5))
    assert slipped.corrections == {}
    assert np.allclose(slipped.search.qvec, get_provider().embed_query(QUESTION), atol=1e-5)


def test_a_word_of_practice_with_no_statute_word_near_is_not_corrected(loaded: list[LegalDocument]) -> None:
    query = keyword_query("Vilket skydd har en visselblåsare?", [])
    assert query.unknown_words == ["visselblåsare"] and query.corrections == {}


def test_a_word_the_workspace_writes_is_its_own_not_a_slip(team: dict[str, Any]) -> None:
    add_file_chunk(team["ws"], "Vårt skydsombud heter Eva och sitter i huset.")
    query = keyword_query(QUESTION, [team["ws"].pk])
    assert query.unknown_words == [] and query.corrections == {}


def test_another_workspaces_words_are_never_what_a_slip_becomes(team: dict[str, Any]) -> None:
    # Only another workspace writes "visselombud"; "visselombut" is one slip from it and from no statute word.
    add_file_chunk(team["other"], "Vårt visselombud tar emot rapporter om missförhållanden.")
    query = keyword_query("Vem är vårt visselombut?", [team["ws"].pk])
    assert query.unknown_words == ["visselombut"] and query.corrections == {}


def test_the_words_say_what_was_searched() -> None:
    assert quoted_words(["skydsombud", "mejl"], {"skydsombud": "skyddsombud"}) == (
        '"skydsombud" (sökt som "skyddsombud") och "mejl"')
    text = extractive_answer([], unknown_words=["skydsombud"], corrections={"skydsombud": "skyddsombud"})
    assert 'använder "skydsombud" (sökt som "skyddsombud")' in text


def test_with_sources_a_corrected_word_and_a_missing_one_get_a_note_each() -> None:
    source = {"n": 1, "header": "Arbetsmiljölag (1977:1160) > 6 kap. 4 §", "citation": "6 kap. 4 §",
              "document_title": "Arbetsmiljölag (1977:1160)", "text": "Skyddsombud företräder arbetstagarna.",
              "score": 1.0}
    text = extractive_answer([source], unknown_words=["skydsombud", "mejl"], corrections={"skydsombud": "skyddsombud"})
    assert '_Ingen källa använder "mejl": avsnitten nedan hittades på frågans övriga ord' in text
    assert ('_Ingen källa använder "skydsombud" (sökt som "skyddsombud"); avsnitten nedan hittades på lagtextens ord. '
            "Menade du något annat, fråga gärna igen._") in text


def test_the_offline_answer_says_what_was_searched_and_keeps_it_on_a_cache_hit(team: dict[str, Any]) -> None:
    conversation = chat.conversation_create(workspace=team["ws"], user=team["alice"])
    first = chat.answer(conversation, team["alice"], QUESTION)
    again = chat.answer(conversation, team["alice"], QUESTION)
    for message in (first, again):
        assert message.answer_mode == "extractive" and message.sources
        assert 'Ingen källa använder "skydsombud" (sökt som "skyddsombud' in message.content
    # A slip is no word the knowledge base lacks: the dashboard's list (fed by the logs) leaves it out.
    assert list(RetrievalLog.objects.filter(workspace=team["ws"]).values_list("unknown_words", flat=True)) == [[], []]


def test_the_model_is_told_what_was_searched(team: dict[str, Any], fake_model: FakeOpenAI) -> None:
    fake_model.script = [{"text": "Skyddsombudet företräder arbetstagarna [1]."}]
    conversation = chat.conversation_create(workspace=team["ws"], user=team["alice"])
    chat.answer(conversation, team["alice"], QUESTION)
    context = fake_model.requests[0]["messages"][-2]["content"]
    assert 'Ord i frågan som ingen källa använder: "skydsombud" (sökt som "skyddsombud' in context


def test_the_search_api_returns_the_corrections(team: dict[str, Any], client: Client) -> None:
    client.force_login(team["alice"])
    response = client.post(f"/api/v1/workspaces/{team['ws'].slug}/search", {"query": QUESTION},
                           content_type="application/json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["unknown_words"] == ["skydsombud"]
    assert body["corrections"]["skydsombud"].lower().startswith("skyddsombud")


def test_words_typed_without_diacritics_are_given_the_statutes_marks() -> None:
    marked = MarkedWords(by_folded={"lang": "lång", "uppsagningstiden": "uppsägningstiden", "ar": "är", "lon": "lön"},
                         written_plain=frozenset({"ar", "lon"}))
    found = restore_marks("Hur lang ar Uppsagningstiden? LANG ljud, lång väg", marked)
    # "ar" is a word the statutes write as typed; capitals are an abbreviation; a marked word is left as typed.
    assert found.text == "Hur lång ar Uppsägningstiden? LANG ljud, lång väg"
    assert found.words == {"lang": "lång", "Uppsagningstiden": "Uppsägningstiden"}
    assert restore_marks("min lon", marked).text == "min lon"  # the statutes write "lon" as typed
    # A stop word as typed is a word of the sentence, not a content word missing its marks.
    assert restore_marks("Hur bakar man bröd?", MarkedWords(by_folded={"man": "män"})).words == {}


def test_a_question_typed_without_diacritics_is_analysed_with_them(loaded: list[LegalDocument]) -> None:
    analysis = analyse_query("Vilka atgarder mot ohalsa galler enligt arbetsmiljölagen?", directory=statute_directory(),
                             marked=bridges.question_marks())
    assert analysis.text == "Vilka åtgärder mot ohälsa gäller enligt arbetsmiljölagen?"
    assert analysis.restored == {"atgarder": "åtgärder", "ohalsa": "ohälsa", "galler": "gäller"}
    assert [ref.sfs for ref in analysis.references] == ["1977:1160"]


def test_typed_without_diacritics_the_question_finds_what_it_finds_with_them(team: dict[str, Any]) -> None:
    spelt = retrieve_context("Vilka åtgärder mot ohälsa ska arbetsgivaren vidta?", team["ws"], user=team["alice"])
    unmarked = retrieve_context("Vilka atgarder mot ohalsa ska arbetsgivaren vidta?", team["ws"], user=team["alice"])
    assert unmarked.chunks and [c.chunk_id for c in unmarked.chunks[:5]] == [c.chunk_id for c in spelt.chunks[:5]]
    assert unmarked.corrections == {"atgarder": "åtgärder", "ohalsa": "ohälsa"}
    assert unmarked.unknown_words == ["atgarder", "ohalsa"]
    assert spelt.corrections == {} and spelt.unknown_words == []


def test_the_same_question_with_and_without_marks_is_cached_apart(team: dict[str, Any]) -> None:
    conversation = chat.conversation_create(workspace=team["ws"], user=team["alice"])
    chat.answer(conversation, team["alice"], "Vilka åtgärder mot ohälsa ska arbetsgivaren vidta?")
    unmarked = chat.answer(conversation, team["alice"], "Vilka atgarder mot ohalsa ska arbetsgivaren vidta?")
    assert '"atgarder" (sökt som "åtgärder") och "ohalsa" (sökt som "ohälsa")' in unmarked.content


# A name three §§ of our own write, always with its capital: the Cook Islands, as treaty acts write them; and a word
# written with a capital only where a heading or a sentence begins.
TREATY = "\n\n".join([
    "1 kap. Avtalet",
    "1 § Avtalet mellan Sverige och Cooköarna gäller upplysningar i skatteärenden.",
    "2 § Cooköarna lämnar upplysningar på begäran.",
    "3 § Upplysningar från Cooköarna får användas i beskattningen.",
    "2 kap. Sekretessplikt",
    "1 § Sekretessplikt gäller för upplysningarna.",
])


def _lexeme(word: str) -> str:
    with dict_cursor() as cursor:
        cursor.execute("SELECT (tsvector_to_array(to_tsvector('swedish', %s)))[1] AS lexeme", [word])
        return cursor.fetchone()["lexeme"]


def test_a_slip_becomes_a_word_never_a_name(loaded: list[LegalDocument]) -> None:
    chunked_statute("2099:8", "Lag (2099:8) om avtal mellan Sverige och Cooköarna", TREATY)
    bridges.forget()
    assert _lexeme("cookies") == "cooki" and _lexeme("Cooköarna") == "cookö"
    assert statute_names(["cookö", _lexeme("Sekretessplikt"), "skyddsombud"]) == {"cookö"}
    # One letter from the name's stem, which three chunks hold: the slip's candidate, but a name.
    assert correction("cooki", bridges.vocabulary().spelling) == Correction(lexeme="cookö", marks_only=False)
    query = keyword_query("Vad gäller för cookies på vår webbplats?", [])
    assert query.unknown_words == ["cookies"] and query.corrections == {}
    assert "cookö" not in query.terms
    # Written as a name, a slip may become the name.
    assert keyword_query("Vad gäller i avtalet med Cookiarna?", []).corrections == {"Cookiarna": "Cooköarna"}
    # A word the statutes write in lower case is still what a slip becomes.
    assert keyword_query(QUESTION, []).corrections["skydsombud"].lower().startswith("skyddsombud")


def test_the_words_a_question_writes_as_names() -> None:
    assert names_written("Vad kräver Arbetsmiljöverket? Gäller LAS och Skatteverkets regler?") == [
        "vad", "arbetsmiljöverket", "gäller", "skatteverkets"]


def test_the_statutes_spelling_is_read_from_a_text_that_holds_the_word(loaded: list[LegalDocument]) -> None:
    # Every chunk's header holds the title, so every chunk matches the name; only the last one's text writes it.
    sections = ["1 kap. Allmänt", *(f"{n} § Upplysningar lämnas på begäran inom en månad." for n in range(1, 9)),
                "9 § Cooköarna svarar inom en månad."]
    chunked_statute("2099:9", "Lag (2099:9) om avtal med Cooköarna", "\n\n".join(sections))
    assert statute_spellings(["cookö"]) == {"cookö": "Cooköarna"}
