"""An answer says how its question's words were searched (templates/agent/_search_words.html): each word no source
used is offered for teaching in the workspace's glossary (to those who may edit it), a word taught since says so,
and a model's answer names the glossary's terms it searched with. The words are kept with the answer
(Message.unknown_words, Message.glossary), so the page and the API show them later as they were.

Arbetsmiljölagen and LAS are the corpus; neither writes "visselblåsare" (our own choice of word, as in
test_glossary_retrieval).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from django.test import Client
from django.urls import reverse

from agent.answering import chat
from agent.models import Conversation
from glossary import services
from law.legal_refs import analyse_references, unit_citations
from law.statute_directory import statute_directory
from tests.fake_openai import FakeOpenAI

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("empty_retrieval_cache")]

QUESTION = "Vilket skydd har visselblåsaren enligt arbetsmiljölagen?"
WORD = "visselblåsaren"


def asked(team: dict[str, Any], question: str = QUESTION) -> Conversation:
    team["ws"].refresh_from_db()  # as each request reads it: its knowledge_version keys the retrieval cache
    conversation = chat.conversation_create(workspace=team["ws"], user=team["alice"])
    chat.answer(conversation, team["alice"], question)
    return conversation


def page(client: Client, user: Any, conversation: Conversation) -> str:
    client.force_login(user)
    response = client.get(reverse("conversation", args=[conversation.workspace.slug, conversation.pk]))
    assert response.status_code == 200
    return response.content.decode()


def test_the_answer_keeps_the_words_no_source_used(team: dict[str, Any]) -> None:
    conversation = asked(team)
    answer = conversation.messages.get(role="assistant")
    assert answer.unknown_words == [WORD]
    assert answer.glossary == {}


def test_an_editor_is_offered_to_teach_the_word(team: dict[str, Any], client: Client) -> None:
    conversation = asked(team)
    html = page(client, team["alice"], conversation)
    href = re.search(r'href="([^"]+)" data-teach>Lär assistenten ordet</a>', html)[1].replace("&amp;", "&")
    link = urlsplit(href)
    query = parse_qs(link.query)
    assert (link.path, link.fragment) == (reverse("glossary_list", args=[team["ws"].slug]), "lagg-till")
    assert query["ord"] == [WORD]
    assert query["tillbaka"] == [reverse("conversation", args=[team["ws"].slug, conversation.pk])]
    # Where the law may say it: the answer's statute units, as law words the reference parser reads back as them.
    answer = conversation.messages.get(role="assistant")
    units = {(s["document_number"], s["citation"]) for s in answer.sources}
    assert 1 <= len(query["lagrum"]) <= 8
    for offered in query["lagrum"]:
        [ref] = analyse_references(offered, statute_directory())
        assert (ref.sfs, unit_citations(ref)[0]) in units, offered
    assert "Vet ni vad lagen kallar ”visselblåsaren”, eller var det står?" in html
    # The offline answer's own text already says no source uses it: the offer does not say it again.
    assert "Ingen källa använder ”visselblåsaren”" not in html


def test_a_reader_is_told_who_can_teach_it(team: dict[str, Any], client: Client) -> None:
    conversation = asked(team)
    conversation.user = team["bob"]  # bob reads in alices-ab; the conversation is made his to open it
    conversation.save()
    html = page(client, team["bob"], conversation)
    assert "data-teach" not in html
    assert "En ägare eller redaktör kan lära assistenten ”visselblåsaren”" in html


def test_a_word_taught_since_says_so_and_a_new_answer_uses_it(team: dict[str, Any], client: Client) -> None:
    conversation = asked(team)
    services.term_create(workspace=team["ws"], user=team["alice"], word="visselblåsare",
                         law_words="arbetstagare som slår larm")
    html = page(client, team["alice"], conversation)
    assert "”visselblåsaren” finns nu i" in html
    assert "data-teach" not in html

    again = asked(team)
    answer = again.messages.get(role="assistant")
    assert answer.unknown_words == []
    assert answer.glossary == {"visselblåsare": "arbetstagare som slår larm"}
    # The turn's log counts the term for Översikt's "Ordlistans begrepp i frågorna".
    assert (answer.retrieval_log.glossary_words, answer.retrieval_log.unknown_words) == (["visselblåsare"], [])
    # The offline answer's text names the term itself; the page does not say it twice.
    html = page(client, team["alice"], again)
    assert "Enligt er ordlista" in answer.content
    assert "data-glossary-used" not in html


def test_a_models_answer_names_the_word_and_the_glossarys_terms(team: dict[str, Any], client: Client,
                                                                 fake_model: FakeOpenAI) -> None:
    fake_model.script = [{"text": "Arbetstagaren skyddas [1]."}, {"text": "Arbetstagaren skyddas [1]."}]
    html = page(client, team["alice"], asked(team))
    # The model's text need not name the word no source used: the page does.
    assert "Ingen källa använder ”visselblåsaren”." in html
    assert "data-glossary-used" not in html
    services.term_create(workspace=team["ws"], user=team["alice"], word="visselblåsare",
                         law_words="arbetstagare som slår larm")
    html = page(client, team["alice"], asked(team))
    assert "data-glossary-used" in html
    assert "”visselblåsare” = ”arbetstagare som slår larm”" in html
    assert "data-unknown-word" not in html


def test_the_message_api_gives_the_words(team: dict[str, Any], client: Client) -> None:
    client.force_login(team["alice"])
    conversation = chat.conversation_create(workspace=team["ws"], user=team["alice"])
    url = f"/api/v1/workspaces/{team['ws'].slug}/conversations/{conversation.pk}/messages"
    created = client.post(url, {"content": QUESTION}, content_type="application/json")
    assert created.status_code == 201, created.content
    assert created.json()["unknown_words"] == [WORD]
    assert created.json()["glossary"] == {}


def test_it_checks_ownership(team: dict[str, Any], client: Client) -> None:
    """Another workspace's answer is not found, and its words are never offered here."""
    conversation = asked(team)
    answer = conversation.messages.get(role="assistant")
    client.force_login(team["charlie"])
    for slug in (team["ws"].slug, team["other"].slug):
        url = reverse("message_detail", args=[slug, conversation.pk, answer.pk])
        assert client.get(url).status_code == 404
