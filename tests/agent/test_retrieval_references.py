"""A question that cites a section in any of the running-text forms gets that section first.

Real statutes (arbetsmiljölagen and LAS from the agent corpus, regeringsformen
loaded here), real vectors and a real Postgres; the forms are those of
law.legal_refs: punkter and stycken inside a chain, a written SFS number, a
statute named earlier in the question, and "kungörelse" as a statute word.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from pytest_django import Settings

from agent.answering import chat
from agent.retrieval.context_additions import cited_units
from agent.retrieval.hybrid import RetrievalOptions, RetrievalResult, retrieve_context
from compliance.anchors import celex_number, eur_lex_url, formal_citation
from compliance.models import LegalDocument, Workspace
from compliance.selectors import access_scope_for
from law.statute_directory import statute_directory_invalidate
from tests.corpus import load_statutes
from tests.helpers import alice_owning_a_workspace
from tests.law.test_load_regulations import load, shipped_record, write_records

pytestmark = pytest.mark.django_db


@pytest.fixture
def member(loaded: list[LegalDocument]) -> tuple[User, Workspace]:
    return alice_owning_a_workspace()


def first(result: RetrievalResult) -> tuple[str, str]:
    return result.chunks[0].document_number, result.chunks[0].citation


@pytest.mark.parametrize(
    "question, expected",
    [
        # punkt, stycke list and lettered punkt inside the chain
        ("Vad innebär 3 kap. 2 a § 1 arbetsmiljölagen för oss?", ("1977:1160", "3 kap. 2 a §")),
        ("Hur ska 22 § 1 st. och 2 st. LAS tolkas vid uppsägning?", ("1982:80", "22 §")),
        ("Gäller 25 § 1 eller 26 § 2 lagen om anställningsskydd här?", ("1982:80", "25 §")),
        ("Vad säger 6 kap. 6 a § b och 7 § arbetsmiljölagen?", ("1977:1160", "6 kap. 6 a §")),
        # the statute named earlier in the question
        ("Vi följer arbetsmiljölagen. Vad kräver 3 kap. 2 a § av oss?", ("1977:1160", "3 kap. 2 a §")),
        ("Vad innebär 7 § för en arbetsgivare enligt LAS?", ("1982:80", "7 §")),
        ("Enligt LAS krävs saklig grund. Vad säger 22 § samma lag om turordning?", ("1982:80", "22 §")),
        # the number written in the question
        ("Vad säger 3 kap. 2 a § i SFS 1977:1160?", ("1977:1160", "3 kap. 2 a §")),
    ],
)
def test_cited_section_comes_first(member: tuple[User, Workspace], question: str, expected: tuple[str, str]) -> None:
    alice, ws = member
    result = retrieve_context(question, ws, user=alice)
    assert first(result) == expected
    assert result.chunks[0].reference_match
    assert f"{expected[0]} {expected[1]}" in result.references


def test_an_older_act_cited_by_its_own_number_is_not_todays_act(member: tuple[User, Workspace]) -> None:
    alice, ws = member
    result = retrieve_context("Vad sa 7 § lagen om anställningsskydd (1974:12) om saklig grund?", ws, user=alice)
    assert result.references == []
    assert not any(c.reference_match for c in result.chunks)
    today = retrieve_context("Vad säger 7 § lagen om anställningsskydd om saklig grund?", ws, user=alice)
    assert first(today) == ("1982:80", "7 §")


@pytest.fixture
def regeringsformen(loaded: list[LegalDocument]) -> Iterator[None]:
    # Keyword and reference search need no vectors; the test's transaction removes it again.
    load_statutes("1974:152", embed=False)
    statute_directory_invalidate()
    yield
    statute_directory_invalidate()


def test_kungorelse_names_a_statute(member: tuple[User, Workspace], regeringsformen: None) -> None:
    alice, ws = member
    result = retrieve_context("Vad säger 2 kap. 1 § kungörelsen om beslutad ny regeringsform?", ws, user=alice,)
    assert first(result) == ("1974:152", "2 kap. 1 §")
    assert result.chunks[0].reference_match


# --- agency regulations and the GDPR: their §§, allmänna råd and articles ---

@pytest.fixture
def regulations(loaded: list[LegalDocument], tmp_path: Path, clean_queue: None) -> Iterator[None]:
    """AFS 2023:1 and the GDPR as load_regulations loads them (keyword and reference search need no vectors)."""
    path = write_records(tmp_path / "regs.jsonl.gz", [shipped_record("AFS 2023:1"),
                                                      shipped_record("Förordning (EU) 2016/679")])
    load(path)
    statute_directory_invalidate()
    yield
    statute_directory_invalidate()


@pytest.mark.parametrize(
    "question, expected",
    [
        ("Vad säger AFS 2023:1 11 § om riskbedömningar?", ("AFS 2023:1", "11 §")),
        ("Hur ska 7 § AFS 2023:1 förstås?", ("AFS 2023:1", "7 §")),
        ("Vad kräver 14 § i Arbetsmiljöverkets föreskrifter om systematiskt arbetsmiljöarbete?", ("AFS 2023:1", "14 §")),
        ("Får vi behandla kunduppgifter enligt artikel 6.1 f GDPR?", ("(EU) 2016/679", "artikel 6.1")),
        ("Vad innebär art. 9.2 g dataskyddsförordningen för en myndighet?", ("(EU) 2016/679", "artikel 9.2")),
        ("Förordning (EU) 2016/679 artikel 5.1 e", ("(EU) 2016/679", "artikel 5.1")),
        ("Vad säger artikel 7 i EU:s dataskyddsförordning om samtycke?", ("(EU) 2016/679", "artikel 7")),
    ],
)
def test_a_cited_regulation_section_or_gdpr_article_comes_first(member: tuple[User, Workspace], regulations: None,
                                                                question: str, expected: tuple[str, str]) -> None:
    alice, ws = member
    result = retrieve_context(question, ws, user=alice, options=RetrievalOptions(mode="keyword"))
    assert first(result) == expected
    assert result.chunks[0].reference_match


def test_a_cited_section_brings_its_allmant_rad_marked_as_advice(member: tuple[User, Workspace],
                                                                 regulations: None) -> None:
    alice, ws = member
    result = retrieve_context("Vad säger AFS 2023:1 11 §?", ws, user=alice, options=RetrievalOptions(mode="keyword"))
    cited = [(c.citation, c.kind) for c in result.chunks if c.reference_match]
    assert cited == [("11 §", "Föreskrift (AFS)"), ("11 § allmänt råd (inte bindande)", "Allmänt råd")]


def test_a_cited_led_puts_the_part_holding_it_first(member: tuple[User, Workspace], regulations: None) -> None:
    # Article 5.1 is chunked in two parts; led e is in the second.
    alice, ws = member
    result = retrieve_context("Vad säger artikel 5.1 e GDPR?", ws, user=alice, options=RetrievalOptions(mode="keyword"))
    cited = [c for c in result.chunks if c.reference_match]
    assert [c.citation for c in cited] == ["artikel 5.1", "artikel 5.1"]
    assert "\ne) " in f"\n{cited[0].text}" and "\ne) " not in f"\n{cited[1].text}"


def test_an_article_range_gets_every_article_and_its_punkter(member: tuple[User, Workspace], regulations: None) -> None:
    alice, ws = member
    result = retrieve_context("Vad säger artiklarna 15–17?", ws, user=alice,
                              options=RetrievalOptions(mode="keyword", top_k=40))
    assert result.references == ["(EU) 2016/679 artikel 15", "(EU) 2016/679 artikel 16", "(EU) 2016/679 artikel 17"]
    cited = {c.citation for c in result.chunks if c.reference_match}
    assert {"artikel 15.1", "artikel 16", "artikel 17.1", "artikel 17.3"} <= cited
    assert all(c.startswith(("artikel 15", "artikel 16", "artikel 17")) for c in cited)
    assert not any(c.startswith("artikel 1.") for c in cited)


def test_eur_lex_links_by_celex_at_the_article() -> None:
    assert celex_number("(EU) 2016/679") == "32016R0679" and celex_number("AFS 2023:1") == ""
    base = "https://eur-lex.europa.eu/legal-content/SV/TXT/?uri=CELEX:32016R0679"
    assert eur_lex_url("(EU) 2016/679", "artikel 6.1") == f"{base}#art_6"
    assert eur_lex_url("(EU) 2016/679", "skäl 39") == f"{base}#rct_39"
    assert eur_lex_url("(EU) 2016/679") == base
    assert eur_lex_url("AFS 2023:1", "3 §") == ""
    assert formal_citation("(EU) 2016/679", "artikel 6.1") == "Förordning (EU) 2016/679 artikel 6.1"


def test_a_gdpr_source_card_cites_the_regulation_and_links_the_article_on_eur_lex(member: tuple[User, Workspace],
                                                                                  regulations: None,
                                                                                  client: Client) -> None:
    alice, ws = member
    conversation = chat.conversation_create(workspace=ws, user=alice)
    message = chat.answer(conversation, alice, "Vad säger artikel 6.1 f GDPR om berättigat intresse?")
    assert any(s["citation"] == "artikel 6.1" for s in message.sources)
    client.force_login(alice)
    page = client.get(reverse("conversation", args=[ws.slug, conversation.pk])).content.decode()
    assert "Förordning (EU) 2016/679 artikel 6.1" in page
    assert 'href="https://eur-lex.europa.eu/legal-content/SV/TXT/?uri=CELEX:32016R0679#art_6"' in page
    # A statute's card has no EUR-Lex link.
    assert page.count("Officiell text på EUR-Lex") == sum(
        1 for s in message.sources if s.get("document_number") == "(EU) 2016/679")


def test_dataskyddslagens_page_links_its_gdpr_references_to_the_articles(member: tuple[User, Workspace],
                                                                         regulations: None, client: Client) -> None:
    load_statutes("2018:218", embed=False)
    statute_directory_invalidate()
    alice, _ = member
    client.force_login(alice)
    page = client.get(reverse("statute", args=["2018:218"])).content.decode()
    # 3 kap. 3 §: "… med stöd av artikel 9.2 g i EU:s dataskyddsförordning"
    assert '<a class="ref-link" href="/lag/EU_2016-679#artikel-9-2">artikel 9.2 g i EU:s dataskyddsförordning</a>' in page
    gdpr = client.get("/lag/EU_2016-679").content.decode()
    assert 'id="artikel-9-2"' in gdpr
    # The GDPR's own cross references link within its page; a statute's references to statutes stay text.
    assert 'class="ref-link" href="/lag/EU_2016-679#artikel-' in gdpr
    assert 'href="/lag/1977:1160' not in page


def test_gdpr_articles_a_best_hit_of_dataskyddslagen_cites_join_after_the_hits(member: tuple[User, Workspace],
                                                                               regulations: None) -> None:
    load_statutes("2018:218", embed=False)
    statute_directory_invalidate()
    alice, ws = member
    options = RetrievalOptions(mode="keyword")
    # 3 kap. 1 §: "Med känsliga personuppgifter avses i denna lag sådana uppgifter som avses i artikel 9.1 i EU:s
    # dataskyddsförordning."
    result = retrieve_context("Vad säger 3 kap. 1 § dataskyddslagen?", ws, user=alice, options=options)
    assert first(result) == ("2018:218", "3 kap. 1 §")
    added = cited_units(result.chunks, access_scope_for(alice, ws), options)
    by_citation = {c.citation: c for c in added}
    article = by_citation["artikel 9.1"]
    assert article.document_number == "(EU) 2016/679" and not article.reference_match
    assert article.extra["cited_by"] == result.chunks[0].chunk_id
    assert article.score < min(c.score for c in result.chunks)
    assert not {c.chunk_id for c in added} & {c.chunk_id for c in result.chunks}
    # 1 kap. 7 §'s "Artiklarna 5–30 och 35–50 i EU:s dataskyddsförordning" names a scope: none of those joins.
    scope_hit = retrieve_context("Vad säger 1 kap. 7 § dataskyddslagen?", ws, user=alice, options=options)
    assert not [c for c in cited_units(scope_hit.chunks[:1], access_scope_for(alice, ws), options)
                if c.extra["cited_by"] == scope_hit.chunks[0].chunk_id]


def test_the_act_section_a_regulation_hit_restates_joins_after_the_hits(member: tuple[User, Workspace],
                                                                        regulations: None, settings: Settings) -> None:
    alice, ws = member
    options = RetrievalOptions(mode="keyword")
    # AFS 2023:1 15 §'s allmänt råd: "Enligt 3 kap. 2 c § arbetsmiljölagen (1977:1160) avses med
    # företagshälsovård …": the act's § is the binding rule behind the advice.
    result = retrieve_context("Vad säger 15 § AFS 2023:1?", ws, user=alice, options=options)
    advice = next(c for c in result.chunks if c.citation == "15 § allmänt råd (inte bindande)")
    added = cited_units(result.chunks, access_scope_for(alice, ws), options)
    act = next(c for c in added if (c.document_number, c.citation) == ("1977:1160", "3 kap. 2 c §"))
    assert act.extra["cited_by"] == advice.chunk_id and not act.reference_match
    assert act.score < min(c.score for c in result.chunks)

    settings.RETRIEVAL_CITED_ACTS = False
    assert not [c for c in cited_units(result.chunks, access_scope_for(alice, ws), options)
                if c.document_number == "1977:1160"]
