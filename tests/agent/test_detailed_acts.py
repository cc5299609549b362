"""A regulation among the best hits brings the §§ of the act it details into the context block
(RETRIEVAL_ACT_ANCHORS, RETRIEVAL_ACT_SECTIONS): an act and a regulation of our own."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from pytest_django import Settings

from agent.answering.prepare import PrepareOptions, prepare_context
from agent.retrieval.context_additions import detailed_act_sections
from agent.retrieval.hybrid import RetrievalOptions, RetrievalResult, retrieve_context
from chunks.services import chunk_document
from compliance.models import LegalDocument, Workspace
from compliance.selectors import access_scope_for
from compliance.services import LegalDocumentData, legal_document_upsert
from law.services import legal_document_details_refresh
from tests.helpers import alice_owning_a_workspace, chunked_statute

pytestmark = pytest.mark.django_db

# The act states the duty in its own words; the regulation details it in the words of practice and cites the act
# throughout, as an agency's föreskrifter cite the act they fill in.
ACT = "\n\n".join([
    "1 § Denna lag gäller byggnader där människor bor.",
    "2 § Ägaren ska se till att det finns utrustning för att upptäcka och släcka brand.",
    "3 § Den som bedriver fiske ska ha fiskekort.",
])
REGULATION = ("1 § I varje bostad ska det finnas en brandvarnare enligt 2 § lagen (2099:5) om brandskydd. "
              "Brandvarnaren ska provas varje månad enligt lagen (2099:5).")
QUESTION = "Hur ofta ska brandvarnaren i bostaden provas, och vilken utrustning krävs?"
OPTIONS = RetrievalOptions(mode="keyword", use_references=False, top_k=1, min_relevance=0)


def acts(result: RetrievalResult, ws: Workspace, user: User, options: RetrievalOptions = OPTIONS) -> list:
    """What the pre-model step adds for `result`: the acts behind its regulations."""
    return detailed_act_sections(result, access_scope_for(user, ws), options)


@pytest.fixture
def corpus(settings: Settings) -> tuple[User, Workspace]:
    settings.RETRIEVAL_CHAPTER_ANCHORS = 0
    settings.RETRIEVAL_NEIGHBOUR_ANCHORS = 0
    settings.RETRIEVAL_CONTEXT_RESERVE = 0
    settings.RETRIEVAL_ACT_SECTIONS = 1
    settings.RETRIEVAL_REGULATION_PRIOR = 1.0  # the priors are tested in tests/chunks/test_statute_book_search.py
    settings.RETRIEVAL_CITATION_PRIOR = 0.0
    chunked_statute("2099:5", "Lag (2099:5) om brandskydd", ACT)
    regulation = legal_document_upsert(LegalDocumentData(
        sfs_number="RVFS 2099:1", title="Räddningsverkets föreskrifter (RVFS 2099:1) om brandvarnare",
        content_type=LegalDocument.ContentType.AGENCY_REGULATION, series="RVFS", agency="Räddningsverket",
        full_text=REGULATION), process=False).document
    chunk_document("LEGAL_DOCUMENT", regulation.pk)
    legal_document_details_refresh()
    return alice_owning_a_workspace()


def test_the_regulation_details_the_act_it_cites() -> None:
    chunked_statute("2099:5", "Lag (2099:5) om brandskydd", ACT)
    legal_document_upsert(LegalDocumentData(
        sfs_number="RVFS 2099:1", title="Räddningsverkets föreskrifter (RVFS 2099:1) om brandvarnare",
        content_type=LegalDocument.ContentType.AGENCY_REGULATION, series="RVFS", full_text=REGULATION),
        process=False)
    legal_document_details_refresh()
    assert LegalDocument.objects.get(sfs_number="RVFS 2099:1").details_sfs == ["2099:5"]


def test_a_regulation_hit_brings_the_acts_best_section(corpus: tuple[User, Workspace], settings: Settings) -> None:
    user, ws = corpus
    result = retrieve_context(QUESTION, ws, user=user, options=OPTIONS)
    assert [(c.document_number, c.citation) for c in result.chunks] == [("RVFS 2099:1", "1 §")]
    # Searched within the act, the question's best § there: the duty the regulation details.
    added = acts(result, ws, user)
    assert [(c.document_number, c.citation) for c in added] == [("2099:5", "2 §")]
    assert added[0].extra["act_of"] == "RVFS 2099:1"
    assert added[0].score < result.chunks[0].score  # after every direct hit
    settings.RETRIEVAL_ACT_SECTIONS = 0
    assert acts(retrieve_context(QUESTION, ws, user=user, options=OPTIONS), ws, user) == []


def test_the_block_takes_the_acts_section_after_the_hit(corpus: tuple[User, Workspace], settings: Settings) -> None:
    user, ws = corpus

    def block() -> list[tuple[str, str]]:
        prepared = prepare_context([{"role": "user", "content": QUESTION}], ws, user,
                                   PrepareOptions(retrieval=OPTIONS, use_cache=False))
        return [(row["document_number"], row["citation"]) for row in prepared.citations]

    assert sorted(block()) == [("2099:5", "2 §"), ("RVFS 2099:1", "1 §")]
    settings.RETRIEVAL_ACT_ANCHORS = 0
    assert block() == [("RVFS 2099:1", "1 §")]


def test_an_act_hit_alone_brings_nothing_more(corpus: tuple[User, Workspace]) -> None:
    user, ws = corpus
    result = retrieve_context("Vem ska ha fiskekort?", ws, user=user, options=OPTIONS)
    assert [(c.document_number, c.citation) for c in result.chunks] == [("2099:5", "3 §")]
    assert acts(result, ws, user) == []


def test_a_search_limited_to_some_statutes_stays_within_them(corpus: tuple[User, Workspace]) -> None:
    user, ws = corpus
    limited = RetrievalOptions(**{**OPTIONS.__dict__, "sfs_numbers": ["RVFS 2099:1"]})
    result = retrieve_context(QUESTION, ws, user=user, options=limited)
    assert result.chunks and acts(result, ws, user, limited) == []


def test_a_section_already_ranked_is_not_added_again(corpus: tuple[User, Workspace]) -> None:
    user, ws = corpus
    two = RetrievalOptions(**{**OPTIONS.__dict__, "top_k": 2})
    result = retrieve_context(QUESTION, ws, user=user, options=two)
    assert [(c.document_number, c.citation) for c in result.chunks] == [("RVFS 2099:1", "1 §"), ("2099:5", "2 §")]
    added = acts(result, ws, user, two)
    assert len(added) == 1 and added[0].citation != "2 §"
