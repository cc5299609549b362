"""The chapter's core sections join the context block (agent.retrieval.chapters): a statute of our own
from real statutes' sentences."""

from __future__ import annotations

import pytest

from agent.retrieval.chapters import chapter_sections
from agent.retrieval.hybrid import RetrievalOptions, retrieve_context
from chunks.services import chunk_document
from compliance.models import Membership, Workspace
from compliance.selectors import access_scope_for
from compliance.services import LegalDocumentData, legal_document_upsert
from tests.helpers import make_user

pytestmark = pytest.mark.django_db

STATUTE = "\n\n".join([
    "1 kap. Skattereduktion för gåvor",
    "1 § I detta kapitel finns bestämmelser om skattereduktion för gåvor till ideell verksamhet.",
    "Definitioner",
    "2 § Med gåva avses vid tillämpningen av detta kapitel en gåva i pengar som uppgår till minst 200 kronor.",
    "Villkor",
    "3 § Skattereduktion ges bara om gåvomottagaren är godkänd.",
    "4 § Gåvomottagaren ska lämna kontrolluppgift om gåvan.",
    "5 § Skattereduktionen är 25 procent av underlaget.",
    "2 kap. Annat",
    "1 § Tränger rot eller gren in på fastighet från område intill denna, får ägaren taga bort roten.",
])


@pytest.fixture
def statute(db):
    doc, _ = legal_document_upsert(LegalDocumentData(sfs_number="2099:2", title="Lag (2099:2) om gåvor",
                                                     full_text=STATUTE), process=False)
    chunk_document("LEGAL_DOCUMENT", doc.pk)
    user = make_user("alice")
    ws = Workspace.objects.create(name="Alices AB", slug="alices-ab")
    Membership.objects.create(user=user, workspace=ws, role="owner")
    return user, ws


def _hits(question, user, ws):
    options = RetrievalOptions(mode="keyword", use_references=False, top_k=1, min_relevance=0)
    return retrieve_context(question, ws, user=user, options=options).chunks, options


def test_a_hit_brings_its_chapters_introductory_and_defining_sections(statute):
    user, ws = statute
    hits, options = _hits("kontrolluppgift från mottagaren", user, ws)
    assert [h.citation for h in hits] == ["1 kap. 4 §"]
    added = chapter_sections(hits, access_scope_for(user, ws), options, anchors=1, full_tokens=0)
    assert [c.citation for c in added] == ["1 kap. 1 §", "1 kap. 2 §"]  # document order, the hit itself not again
    assert all(c.score < hits[0].score for c in added)  # after every hit: the budget drops them first
    assert all(c.extra["chapter_of"] == "2099:2 1 kap." for c in added)


def test_a_short_chapter_comes_whole(statute):
    user, ws = statute
    hits, options = _hits("kontrolluppgift från mottagaren", user, ws)
    added = chapter_sections(hits, access_scope_for(user, ws), options, anchors=1, full_tokens=10_000)
    assert [c.citation for c in added] == ["1 kap. 1 §", "1 kap. 2 §", "1 kap. 3 §", "1 kap. 5 §"]


def test_no_anchor_no_chapter(statute):
    user, ws = statute
    hits, options = _hits("kontrolluppgift från mottagaren", user, ws)
    assert chapter_sections(hits, access_scope_for(user, ws), options, anchors=0) == []
