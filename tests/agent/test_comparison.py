"""Own documents against the law (issue 14 part 4): real statutes (Arbetsmiljölagen, LAS) and a real
uploaded policy that falls short of LAS, answered offline (side by side) and through the stand-in model."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from agent.answering import chat
from agent.answering.comparison import pair_own_with_law
from agent.answering.prompts import COMPARISON_NOTE
from agent.answering.rendering import answer_html
from agent.retrieval.sources import source_kind
from chunks.services import chunk_document, embed_chunk_batch
from compliance import services
from law.sfs_corpus import content_type_for
from tests.fake_openai import FakeOpenAI

pytestmark = pytest.mark.django_db

# Written for this test: a staff handbook whose notice period and trial period fall short of
# LAS 11 § (at least one month) and 6 § (at most six months), and one paragraph on another subject.
POLICY = """Personalhandbok för Exempelbolaget AB

Anställning och avslut

Provanställning får hos oss avtalas för en prövotid om högst tolv månader.

Vid uppsägning från arbetsgivarens sida gäller en uppsägningstid om två veckor, oavsett hur länge
arbetstagaren har varit anställd.

Trivsel

Personalfesten hålls varje december med buffé, musik och dans för alla medarbetare.
"""
QUESTION = "Stämmer vår personalhandbok om uppsägningstid och provanställning med lagen om anställningsskydd?"


@pytest.fixture
def setup(team: dict[str, Any]) -> dict[str, Any]:
    upload = SimpleUploadedFile("personalhandbok.txt", POLICY.encode(), content_type="text/plain")
    policy = services.user_file_upload(workspace=team["ws"], user=team["alice"], uploaded=upload)
    embed_chunk_batch(chunk_document("USER_FILE", policy.pk).to_embed)
    return {**team, "policy": policy, "conv": chat.conversation_create(workspace=team["ws"], user=team["alice"])}


def _table_rows(content: str) -> list[tuple[str, str]]:
    rows = re.findall(r"^\| (.+) \| (.+) \|$", content, re.MULTILINE)
    return [r for r in rows if r != ("Ur era dokument", "Ur lagen") and not r[0].startswith("---")]


def _quote_and_n(cell: str) -> tuple[str, int]:
    match = re.search(r': "(.*)" \[(\d+)\]$', cell)
    assert match, cell
    return match.group(1).replace("\\|", "|").removesuffix(" […]"), int(match.group(2))


def test_offline_answer_sets_the_policy_beside_the_law_on_the_same_subject(setup: dict[str, Any],
                                                                           client: Client) -> None:
    message = chat.answer(setup["conv"], setup["alice"], QUESTION)
    assert message.answer_mode == "extractive"
    by_n = {s["n"]: s for s in message.sources}
    assert {s["kind"] for s in message.sources} >= {"Er fil", "Lag"}

    rows = _table_rows(message.content)
    assert rows, message.content
    pairs = []
    for own_cell, law_cell in rows:
        own_quote, own_n = _quote_and_n(own_cell)
        law_quote, law_n = _quote_and_n(law_cell)
        own, law = by_n[own_n], by_n[law_n]
        # Left the company's text, right the statute's, each verbatim from its source.
        assert own["source_type"] == "USER_FILE" and own["source_id"] == setup["policy"].pk
        assert law["source_type"] == "LEGAL_DOCUMENT" and law["kind"] == "Lag"
        assert own_quote in " ".join(own["passage"].split())
        assert law_quote in " ".join(law["passage"].split())
        pairs.append((own_quote, law["document_number"], law["citation"]))
    # The notice period is set beside LAS 11 § (a minimum of one month), not beside an unrelated section.
    notice = [p for p in pairs if "uppsägningstid om två veckor" in p[0]]
    assert notice and notice[0][1:] == ("1982:80", "11 §"), pairs
    # The staff party shares no subject with any statute section.
    assert not any("Personalfesten" in p[0] for p in pairs)
    assert COMPARISON_NOTE in message.content and "inte juridisk rådgivning" in message.content

    client.force_login(setup["alice"])
    page = client.get(reverse("conversation", args=[setup["ws"].slug, setup["conv"].pk])).content.decode()
    assert "<th>Ur era dokument</th>" in page and "<th>Ur lagen</th>" in page
    assert re.search(r'<td>[^<]*<a class="cite" href="#src-\d+-\d+"', page)
    assert '<span class="badge source-kind kind-own">Er fil</span>' in page
    assert '<span class="badge source-kind kind-statute">Lag</span>' in page
    api = client.get(f"/api/v1/workspaces/{setup['ws'].slug}/conversations/{setup['conv'].pk}/").json()
    kinds = {s["kind"] for m in api["messages"] for s in m["sources"]}
    assert {"Er fil", "Lag"} <= kinds


def test_statute_only_answers_have_no_comparison(setup: dict[str, Any]) -> None:
    message = chat.answer(setup["conv"], setup["alice"], "Vad säger 3 kap. 2 a § arbetsmiljölagen?")
    assert all(s["source_type"] == "LEGAL_DOCUMENT" for s in message.sources)
    assert "Ur era dokument" not in message.content and COMPARISON_NOTE not in message.content


def test_sentences_without_a_shared_subject_are_not_paired(setup: dict[str, Any]) -> None:
    own = {"n": 1, "source_type": "USER_FILE", "source_id": 1, "passage":
           "Personalfesten hålls varje december med buffé, musik och dans för alla medarbetare."}
    law = {"n": 2, "source_type": "LEGAL_DOCUMENT", "source_id": 2, "passage":
           "För både arbetsgivare och arbetstagare gäller en minsta uppsägningstid av en månad."}
    assert pair_own_with_law([own, law]) == []
    # Inflected forms of the same words ("uppsägningstiden", "arbetsgivaren") are the same subject.
    own["passage"] = "Uppsägningstiden från arbetsgivaren är två veckor för samtliga medarbetare."
    [pair] = pair_own_with_law([own, law])
    assert pair.own is own and pair.law is law and "uppsägningstid" in pair.shared


def test_source_kinds_follow_the_corpus_classification() -> None:
    assert source_kind("LEGAL_DOCUMENT", content_type_for("Arbetsmiljöförordning (1977:1166)")) == "Förordning"
    assert source_kind("LEGAL_DOCUMENT", content_type_for("Lag (1982:80) om anställningsskydd")) == "Lag"
    assert source_kind("USER_FILE") == "Er fil" and source_kind("ASSESSMENT") == "Er bedömning"


def _numbers_of(context: str, kind: str) -> list[int]:
    kinds = re.search(r"^Källornas slag: (.*)\.$", context, re.MULTILINE).group(1)
    numbers = [int(n) for n, k in re.findall(r"\[(\d+)\] ([^,]+)", kinds) if k == kind]
    # Each number names a real block of the context.
    assert all(re.search(rf"^--- \w+ Källa \[{n}\]: ", context, re.MULTILINE) for n in numbers)
    return numbers


def test_model_is_told_to_compare_and_its_answer_renders_with_both_citations(setup: dict[str, Any],
                                                                             fake_model: FakeOpenAI,
                                                                             client: Client) -> None:
    def answer(request: dict) -> str:
        context = next(m["content"] for m in request["messages"] if m["role"] == "user" and "Källa [" in m["content"])
        own, law = _numbers_of(context, "Er fil"), _numbers_of(context, "Lag")
        return (f"Personalhandboken anger två veckors uppsägningstid [{own[0]}], men lagen kräver minst en månad "
                f"[{law[0]}]. Detta är en läsning efter bästa förmåga, inte juridisk rådgivning.")

    fake_model.answer = answer
    message = chat.answer(setup["conv"], setup["alice"], QUESTION)
    assert message.answer_mode == "model"
    sent = fake_model.requests[0]["messages"]
    system = sent[0]["content"]
    assert sent[0]["role"] == "system"
    assert "brister i förhållande till eller strider mot" in system and "inte juridisk rådgivning" in system
    context = next(m["content"] for m in sent if m["role"] == "user" and "Källa [" in m["content"])
    assert _numbers_of(context, "Er fil") and _numbers_of(context, "Lag")
    # The system prompt is not a place for sources: the context is its own message.
    assert "Personalhandbok" not in system

    cited = [int(n) for n in re.findall(r"\[(\d+)\]", message.content)]
    kinds = {s["n"]: s["kind"] for s in message.sources}
    assert [kinds[n] for n in cited] == ["Er fil", "Lag"] and message.removed_citations == []
    client.force_login(setup["alice"])
    page = client.get(reverse("conversation", args=[setup["ws"].slug, setup["conv"].pk])).content.decode()
    for n in cited:
        assert f'<a class="cite" href="#src-{message.pk}-{n}" data-n="{n}">[{n}]</a>' in page
    card = page.split(f'id="src-{message.pk}-{cited[0]}"', 1)[1].split("</li>", 1)[0]
    assert "Er fil" in card and "personalhandbok" in card
    assert "inte juridisk rådgivning" in page


def test_it_checks_ownership(setup: dict[str, Any], client: Client) -> None:
    chat.answer(setup["conv"], setup["alice"], QUESTION)
    client.force_login(setup["charlie"])
    url = reverse("conversation", args=[setup["ws"].slug, setup["conv"].pk])
    assert client.get(url).status_code == 404
    api = client.get(f"/api/v1/workspaces/{setup['ws'].slug}/conversations/{setup['conv'].pk}/")
    assert api.status_code == 404


def test_answer_tables_keep_to_the_csp() -> None:
    html = answer_html("| Ur era dokument | Ur lagen |\n| :-- | --: |\n| a [1] | b [2] |", 7, {1, 2})
    assert "<table>" in html and "style=" not in html
    assert '<th class="align-left">' in html and '<td class="align-right">b <a class="cite" href="#src-7-2"' in html
