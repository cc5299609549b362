"""Searching a statute book of every kind: the kind prior (a binding rule before a notice that matches the
words a little better, unless the question names the notice) and a statute without vectors found by keyword."""

from __future__ import annotations

import gzip
import io
import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from pytest_django import Settings

from agent.retrieval.hybrid import RetrievalOptions, retrieve_context
from chunks.models import ContentChunk
from chunks.services import chunk_document
from compliance.models import LegalDocument, Workspace
from compliance.services import LegalDocumentData, legal_document_upsert
from law.services import legal_document_addressee_refresh, legal_document_cited_by_refresh
from tests.corpus import embed_all, load_statutes

pytestmark = pytest.mark.django_db

# Our own example, not from any question set: an act that binds dog owners, a notice that repeats the words
# of a question about dogs (it wins on words and meaning alone), and acts on other subjects, so that the two
# are ranked among several sources as in a real book.
LAW = ("2090:1", "Lag (2090:1) om tillsyn över hundar", LegalDocument.ContentType.SFS_LAW,
       "1 § Den som äger eller har hand om en hund ska se till att hunden hålls under sådan tillsyn att den "
       "inte orsakar skada.")
NOTICE = ("2090:2", "Tillkännagivande (2090:2) om tillsyn över hundar", LegalDocument.ContentType.SFS_NOTICE,
          "Regeringen ger till känna att tillsyn över hundar och hundägare utövas av länsstyrelsen.")
OTHERS = [(f"2090:{n}", f"Lag (2090:{n}) om {subject}", LegalDocument.ContentType.SFS_LAW, text) for n, subject, text in (
    (3, "campingplatser", "1 § Den som driver en campingplats ska ha tillstånd av kommunen."),
    (4, "fiske", "1 § Fiske i allmänt vatten är fritt för den som har löst fiskekort."),
    (5, "brandskydd i byggnader", "1 § En byggnad ska ha en dokumentation av sitt brandskydd."),
    (6, "redovisning av skatt", "1 § Mervärdesskatt ska redovisas till Skatteverket varje månad."),
)]


def add_statute(number: str, title: str, content_type: str, text: str, *, embed: bool,
                agency: str = "") -> LegalDocument:
    doc = legal_document_upsert(LegalDocumentData(sfs_number=number, title=title, full_text=text, agency=agency,
                                                  content_type=content_type), process=False).document
    chunk_document("LEGAL_DOCUMENT", doc.pk)
    if embed:
        embed_all(ContentChunk.objects.filter(legal_document=doc))
    return doc


def ranked_numbers(question: str, member: tuple[User, Workspace], mode: str) -> list[str]:
    user, ws = member
    result = retrieve_context(question, ws, user=user, options=RetrievalOptions(mode=mode, min_relevance=0))
    return list(dict.fromkeys(c.document_number for c in result.chunks))


def ranked(question: str, member: tuple[User, Workspace], mode: str) -> dict[str, float]:
    """{document number: its best score}, in rank order."""
    user, ws = member
    result = retrieve_context(question, ws, user=user, options=RetrievalOptions(mode=mode, min_relevance=0))
    scores: dict[str, float] = {}
    for chunk in result.chunks:
        scores.setdefault(chunk.document_number, chunk.score)
    return scores


@dataclass
class PriorRankings:
    plain: dict[str, float]  # {document number: best score} with the prior off
    primed: dict[str, float]  # the same with the prior on

    def assert_only_demoted(self, number: str, factor: float) -> None:
        """`number`'s score was multiplied by `factor`; every other document's is as it was."""
        assert self.primed[number] == pytest.approx(factor * self.plain[number])
        assert all(self.primed[n] == pytest.approx(self.plain[n]) for n in self.plain if n != number)


def ranked_without_and_with(settings: Settings, name: str, off: float, on: float, question: str,
                            member: tuple[User, Workspace], mode: str) -> PriorRankings:
    """The ranking with the prior setting `name` at `off`, then at `on`."""
    setattr(settings, name, off)
    plain = ranked(question, member, mode)
    setattr(settings, name, on)
    return PriorRankings(plain=plain, primed=ranked(question, member, mode))


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_the_kind_prior_puts_the_binding_rule_before_a_notice_without_hiding_it(member: tuple[User, Workspace],
                                                                                settings: Settings, mode: str) -> None:
    for number, title, content_type, text in (LAW, NOTICE, *OTHERS):
        add_statute(number, title, content_type, text, embed=True)
    question = "Vilken tillsyn gäller över hundar och hundägare?"

    rankings = ranked_without_and_with(settings, "RETRIEVAL_KIND_PRIOR", 1.0, 0.8, question, member, mode)
    assert list(rankings.plain)[0] == "2090:2"  # no prior: the notice wins on its words and meaning
    # The notice's score is multiplied by the prior, every binding rule's is left as it was ...
    rankings.assert_only_demoted("2090:2", 0.8)
    # ... which puts the act first; the notice is still next (evidence, not a fence).
    assert list(rankings.primed)[:2] == ["2090:1", "2090:2"]


def test_a_question_naming_the_notice_still_gets_it_first(member: tuple[User, Workspace]) -> None:
    for number, title, content_type, text in (LAW, NOTICE):
        add_statute(number, title, content_type, text, embed=True)
    assert ranked_numbers("Vad säger SFS 2090:2 om tillsyn över hundar?", member, "hybrid")[0] == "2090:2"


def test_a_book_statute_without_vectors_is_found_by_keyword_and_answers_at_once(member: tuple[User, Workspace],
                                                                                tmp_path: Path, settings: Settings,
                                                                                clean_queue: None) -> None:
    load_statutes("1998:209")  # a statute with vectors, so the vector half has candidates of its own
    with gzip.open(settings.SFS_BOOK_PATH, "rt", encoding="utf-8") as fh:
        record = next(json.loads(line) for line in fh if json.loads(line)["sfs"] == "1934:36")
    book = tmp_path / "bok.jsonl"
    book.write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
    settings.SFS_VECTORS_PATH = str(tmp_path / "none.npz")  # no shipped vectors: nothing embedded yet
    call_command("load_sfs", "--only", "1934:36", "--corpus", str(book), "--sync", "--no-progress",
                 stdout=io.StringIO())
    assert not ContentChunk.objects.filter(document_number="1934:36", embedding__isnull=False).exists()

    user, ws = member
    result = retrieve_context("Får man ha betesreglering på utmark i Uppsala län?", ws, user=user)

    assert (result.mode, result.degraded) == ("hybrid", False)
    # Found by its words alone (it has no similarity: it ranks on the keyword half), with its kind.
    found = [c for c in result.chunks if c.document_number == "1934:36"]
    assert found and found[0].vector_similarity is None and found[0].kind == "Kungörelse"
    assert found[0].extra["keyword_rank"] == 1 and result.chunks.index(found[0]) < 10



# The citation prior: two acts on the same subject, and three acts on other subjects that point to one of them.
RIVAL = ("2090:8", "Lag (2090:8) om hundar i tätort", LegalDocument.ContentType.SFS_LAW,
         "1 § Tillsyn över hundar och hundägare i tätort utövas av kommunen.")
CITING = [(f"2090:{n}", f"Lag (2090:{n}) om {subject}", LegalDocument.ContentType.SFS_LAW,
           f"1 § {text} Se även lagen (2090:1).") for n, subject, text in (
    (9, "jakt", "Jakt får bedrivas av den som har jakträtt."),
    (10, "viltvård", "Viltvården leds av länsstyrelsen."),
    (11, "naturvård", "Naturreservat bildas av kommunen."),
)]


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_the_citation_prior_puts_the_act_the_law_points_to_first(member: tuple[User, Workspace], settings: Settings,
                                                                 mode: str) -> None:
    for number, title, content_type, text in (LAW, RIVAL, *CITING):
        add_statute(number, title, content_type, text, embed=True)
    legal_document_cited_by_refresh()
    assert LegalDocument.objects.get(sfs_number="2090:1").cited_by == 3
    assert LegalDocument.objects.get(sfs_number="2090:8").cited_by == 0
    question = "Vilken tillsyn gäller över hundar och hundägare?"

    settings.RETRIEVAL_CITATION_PRIOR = 0.0  # no prior: the rival act repeats the question's words
    plain = ranked(question, member, mode)
    assert list(plain)[0] == "2090:8"

    settings.RETRIEVAL_CITATION_PRIOR, settings.RETRIEVAL_CITATION_SATURATION = 0.2, 3
    primed = ranked(question, member, mode)
    # Cited by as many documents as the saturation: the whole score; cited by none: 1 − the prior.
    assert primed["2090:1"] == pytest.approx(plain["2090:1"])
    assert primed["2090:8"] == pytest.approx(0.8 * plain["2090:8"])
    assert list(primed)[:2] == ["2090:1", "2090:8"]


# The addressee prior: an authority's instruction, a law on that authority's own supervision that repeats the
# question's words, and an agency regulation by the same authority (which binds dog owners, so no prior).
INSTRUCTION = ("2090:12", "Förordning (2090:12) med instruktion för Hundverket", LegalDocument.ContentType.SFS_ORDINANCE,
               "1 § Hundverket är förvaltningsmyndighet för frågor om hundar.")
OWN_WORK = ("2090:13", "Lag (2090:13) om Hundverkets tillsyn över hundar", LegalDocument.ContentType.SFS_LAW,
            "1 § Hundverkets tillsyn över hundar och hundägare utövas enligt denna lag.")


def test_the_addressee_is_found_for_statutes_and_never_for_an_agency_regulation(member: tuple[User, Workspace]) -> None:
    for number, title, content_type, text in (LAW, INSTRUCTION, OWN_WORK):
        add_statute(number, title, content_type, text, embed=False)
    regulation = legal_document_upsert(LegalDocumentData(
        sfs_number="HVFS 2090:1", title="Hundverkets föreskrifter om tillsyn över hundar", agency="Hundverket",
        full_text="1 § Den som äger en hund ska hålla den under tillsyn.",
        content_type=LegalDocument.ContentType.AGENCY_REGULATION), process=False).document

    assert legal_document_addressee_refresh() == 2
    assert dict(LegalDocument.objects.values_list("sfs_number", "addressee")) == {
        "2090:1": "", "2090:12": "Hundverket", "2090:13": "Hundverket", "HVFS 2090:1": ""}
    assert legal_document_addressee_refresh() == 0  # idempotent

    # The instruction gone, the regulation's issuer still names the authority.
    LegalDocument.objects.filter(sfs_number="2090:12").delete()
    assert legal_document_addressee_refresh() == 0
    regulation.delete()
    assert legal_document_addressee_refresh() == 1
    assert LegalDocument.objects.get(sfs_number="2090:13").addressee == ""


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_the_addressee_prior_puts_the_rule_for_everyone_before_an_authoritys_own(member: tuple[User, Workspace],
                                                                                 settings: Settings, mode: str) -> None:
    for number, title, content_type, text in (LAW, INSTRUCTION, OWN_WORK, *OTHERS):
        add_statute(number, title, content_type, text, embed=True)
    legal_document_addressee_refresh()
    question = "Vilken tillsyn gäller över hundar och hundägare?"

    settings.RETRIEVAL_ADDRESSEE_PRIOR = 1.0  # no prior: the authority's own law repeats the question's words
    plain = ranked(question, member, mode)
    assert list(plain)[0] == "2090:13"

    settings.RETRIEVAL_ADDRESSEE_PRIOR = 0.8
    primed = ranked(question, member, mode)
    assert primed["2090:13"] == pytest.approx(0.8 * plain["2090:13"])
    assert all(primed[n] == pytest.approx(plain[n]) for n in plain if n not in ("2090:12", "2090:13"))
    assert list(primed)[:2] == ["2090:1", "2090:13"]

    # A question that names the authority asks about its work: no prior.
    named = "Vilken tillsyn utövar Hundverket över hundar och hundägare?"
    settings.RETRIEVAL_ADDRESSEE_PRIOR = 1.0
    plain = ranked(named, member, mode)
    settings.RETRIEVAL_ADDRESSEE_PRIOR = 0.8
    assert ranked(named, member, mode)["2090:13"] == pytest.approx(plain["2090:13"])


# The regulation prior: an agency regulation that details the act's duty in the question's own words.
REGULATION = ("HVFS 2090:1", "Hundverkets föreskrifter (HVFS 2090:1) om tillsyn över hundar",
              LegalDocument.ContentType.AGENCY_REGULATION,
              "1 § Tillsyn över hundar och hundägare: hundägare ska hålla hundar under tillsyn. Tillsyn över hundar "
              "gäller hundägare.")


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_the_regulation_prior_puts_the_act_before_the_regulation_that_details_it(member: tuple[User, Workspace],
                                                                                 settings: Settings, mode: str) -> None:
    for number, title, content_type, text in (LAW, *OTHERS):
        add_statute(number, title, content_type, text, embed=True)
    add_statute(*REGULATION, embed=True, agency="Hundverket")
    question = "Vilken tillsyn gäller över hundar och hundägare?"

    rankings = ranked_without_and_with(settings, "RETRIEVAL_REGULATION_PRIOR", 1.0, 0.8, question, member, mode)
    assert list(rankings.plain)[0] == "HVFS 2090:1"  # no prior: the regulation repeats the question's words
    rankings.assert_only_demoted("HVFS 2090:1", 0.8)
    # The act first, its regulation right after it: evidence, not a fence.
    assert list(rankings.primed)[:2] == ["2090:1", "HVFS 2090:1"]


def test_a_question_naming_the_regulation_still_gets_it_first(member: tuple[User, Workspace],
                                                              settings: Settings) -> None:
    add_statute(*LAW, embed=True)
    add_statute(*REGULATION, embed=True, agency="Hundverket")
    settings.RETRIEVAL_REGULATION_PRIOR = 0.8
    assert ranked_numbers("Vad säger HVFS 2090:1 om tillsyn över hundar?", member, "hybrid")[0] == "HVFS 2090:1"


# Our own EU act: a recital that explains an article in the question's words, and the article that lays down
# the duty in its own.
EU_ACT = ("(EU) 2090/1", "Förordning om märkning av hundar")
EU_UNITS = [
    {"kind": "skäl", "citation": "skäl 1", "text": "Hundar bör märkas och registreras så att en hund som kommit bort "
     "kan återföras till sin ägare; hundägare bör därför registrera sina hundar."},
    {"kind": "artikel", "citation": "artikel 1", "section": "1", "chapter": "I", "chapter_title": "Märkning",
     "title": "Skyldighet att märka", "text": "1. Den som äger en hund ska låta märka den med ett chip och anmäla "
     "märkningen till det nationella registret inom fyra månader från förvärvet."},
]


def add_eu_act() -> LegalDocument:
    number, title = EU_ACT
    doc = legal_document_upsert(LegalDocumentData(
        sfs_number=number, title=title, full_text="\n\n".join(u["text"] for u in EU_UNITS),
        content_type=LegalDocument.ContentType.EU_REGULATION, structure=EU_UNITS), process=False).document
    chunk_document("LEGAL_DOCUMENT", doc.pk)
    embed_all(ContentChunk.objects.filter(legal_document=doc))
    return doc


def ranked_units(question: str, member: tuple[User, Workspace], mode: str) -> dict[str, float]:
    """{citation of the EU act's unit: its score}, in rank order."""
    user, ws = member
    result = retrieve_context(question, ws, user=user, options=RetrievalOptions(mode=mode, min_relevance=0))
    return {c.citation: c.score for c in result.chunks if c.document_number == EU_ACT[0]}


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_the_recital_prior_puts_the_article_before_the_recital_that_explains_it(member: tuple[User, Workspace],
                                                                                settings: Settings, mode: str) -> None:
    for number, title, content_type, text in OTHERS:
        add_statute(number, title, content_type, text, embed=True)
    add_eu_act()
    assert set(ContentChunk.objects.filter(document_number=EU_ACT[0]).values_list("kind", flat=True)) == {
        "recital", "article"}
    question = "Måste hundägare registrera sina hundar?"

    settings.RETRIEVAL_RECITAL_PRIOR = 1.0
    plain = ranked_units(question, member, mode)
    assert list(plain)[0] == "skäl 1"  # the recital repeats the question's words
    settings.RETRIEVAL_RECITAL_PRIOR = 0.5
    primed = ranked_units(question, member, mode)
    assert primed["skäl 1"] == pytest.approx(0.5 * plain["skäl 1"])  # only the recital moves
    assert primed["artikel 1"] == pytest.approx(plain["artikel 1"])
    assert list(primed) == ["artikel 1", "skäl 1"]  # the binding article first, its recital still there
