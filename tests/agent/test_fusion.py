"""Score fusion: a hit only one half found keeps its place by the other half's evidence.

Real Postgres, the real local embedding model. The first test is our own small example (a book-keeping rule and
acts on other subjects, not from any question set): the two halves' candidate lists are written out, so that
the fused order is tested on exactly the case where a close vector-only hit meets weak keyword-only hits. The
second asks the retention question over dataskyddslagen and the GDPR.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from django.contrib.auth.models import User

from agent.retrieval.chunk_queries import run_chunk_query, search_params
from agent.retrieval.hybrid import (
    RetrievalOptions,
    _score_fusion_sql,
    _vector_literal,
    hybrid_search,
    keyword_half,
    keyword_terms,
    retrieve_context,
)
from agent.retrieval.query_analysis import analyse_query
from chunks.embedding import get_provider
from chunks.models import ContentChunk
from chunks.services import chunk_document
from compliance.models import LegalDocument, Membership, Workspace
from compliance.selectors import access_scope_for
from compliance.services import LegalDocumentData, legal_document_upsert
from law.statute_directory import statute_directory_invalidate
from tests.corpus import embed_all, load_statutes
from tests.helpers import make_user
from tests.law.test_load_regulations import load, shipped_record, write_records

pytestmark = pytest.mark.django_db

QUESTION = "Hur länge måste företaget spara sina kvitton?"
# The rule that answers it, in words the question does not use: only the vector half finds it.
RULE = "1 § Bokföringsunderlag ska arkiveras i minst sju år efter räkenskapsårets slut."
# Sections on other subjects that share one word with the question: the keyword half's weakest returns.
WEAK = (
    "1 § Den som vill spara energi i ett flerbostadshus kan få bidrag till tilläggsisolering.",
    "1 § Ett företag som säljer fyrverkerier till allmänheten ska ha tillstånd av kommunen.",
    "1 § En hund som skäller länge ska tas in av ägaren.",
)
# Sections both halves return, ahead in the keyword half.
BOTH = (
    "1 § Kvitton på utlägg som företaget ska ersätta ska sparas tillsammans med reseräkningen.",
    "1 § Företaget ska spara kvitton på kontanta inköp i kassaboken.",
)


def add_section(number: str, text: str) -> int:
    doc = legal_document_upsert(LegalDocumentData(sfs_number=number, title=f"Lag ({number}) om exempel",
                                                  full_text=text, content_type=LegalDocument.ContentType.SFS_LAW),
                                process=False).document
    chunk_document("LEGAL_DOCUMENT", doc.pk)
    chunks = ContentChunk.objects.filter(legal_document=doc)
    embed_all(chunks)
    return chunks.get().pk


def test_a_close_vector_only_hit_is_not_pushed_below_weak_keyword_only_hits(member: tuple[User, Workspace]) -> None:
    user, ws = member
    rule = add_section("2091:1", RULE)
    weak = [add_section(f"2091:{n}", text) for n, text in enumerate(WEAK, start=2)]
    both = [add_section(f"2091:{n}", text) for n, text in enumerate(BOTH, start=5)]
    # What each half returned, best first: the vector half the rule and the two sections both find; the keyword
    # half those two far ahead and the three weak ones close together at its tail (BM25 scores as in a real list).
    vec = ("vec AS (SELECT id, NULL::float AS sim, rnk FROM unnest(%(t_vec)s::bigint[]) WITH ORDINALITY "
           "AS v(id, rnk))")
    kw = ("kw AS (SELECT id, rank, rnk FROM unnest(%(t_kw)s::bigint[], %(t_bm25)s::float[]) WITH ORDINALITY "
          "AS k(id, rank, rnk))")
    params = search_params(access_scope_for(user, ws), 10)
    # Each half was asked for 5 candidates: the keyword half's list was cut there, other sections match too.
    params.update(qvec=_vector_literal(get_provider().embed_query(QUESTION)), t_vec=[rule, *both],
                  t_kw=[*both, *weak], t_bm25=[13.2, 12.6, 9.8, 9.6, 9.5], candidates=5)
    ranked = run_chunk_query(_score_fusion_sql(vec, kw), params)

    order = [c.chunk_id for c in ranked]
    similarity = {c.chunk_id: c.vector_similarity for c in ranked}
    assert sorted(order) == sorted([rule, *weak, *both])
    # The example is what it claims: the rule is closer in meaning than every weak keyword hit.
    assert all(similarity[rule] > similarity[w] for w in weak)
    # A vector-only hit counts as the keyword half's weakest return: closer in meaning, it ranks above each
    # weak keyword hit (filled in at 0.9 × that return, as before, it fell below them).
    assert all(order.index(rule) < order.index(w) for w in weak)
    # The fusion is still a mix: the sections both halves found stay ahead of the weak ones.
    assert all(order.index(b) < order.index(w) for b in both for w in weak)


def test_the_keyword_half_read_ahead_fuses_to_the_same_ranking_as_one_statement(member: tuple[User, Workspace]) -> None:
    """retrieve_context reads each search's keyword half while the question is embedded; fused with the vector
    half afterwards it must rank exactly as the statement that reads both halves, in every form of the keyword
    half: the whole corpus, a few named statutes, and a filter by source type."""
    user, ws = member
    for number, text in enumerate((RULE, *WEAK, *BOTH), start=1):
        add_section(f"2091:{number}", text)
    scope = access_scope_for(user, ws)
    analysis = analyse_query(QUESTION)
    terms = keyword_terms(analysis)
    qvec = get_provider().embed_query(QUESTION)
    for options in (RetrievalOptions(), RetrievalOptions(sfs_numbers=["2091:2", "2091:5", "2091:6"]),
                    RetrievalOptions(source_types=["LEGAL_DOCUMENT"])):
        for mode in ("hybrid", "keyword"):
            read = keyword_half(terms, scope, options, limit=4)
            assert read is not None and read.ids  # "spara", "kvitton", "företaget" are in the corpus
            one = hybrid_search(terms, scope, options, limit=4, qvec=qvec, mode=mode)
            two = hybrid_search(terms, scope, options, limit=4, qvec=qvec, mode=mode, keyword=read)
            assert [(c.chunk_id, c.keyword_rank, c.vector_similarity) for c in two] == \
                [(c.chunk_id, c.keyword_rank, c.vector_similarity) for c in one]
            # The fusion's averages add the same rows in another order: equal to the last bits or so.
            assert [c.score for c in two] == pytest.approx([c.score for c in one], rel=1e-12)
            assert {c.chunk_id for c in one if c.keyword_rank is not None} <= set(read.ids)


@pytest.fixture
def data_protection(loaded: list[LegalDocument], tmp_path: Path, clean_queue: None) -> Iterator[None]:
    """Dataskyddslagen, and the GDPR as load_regulations loads it. The articles of chapters I–IV (the principles,
    the data subject's rights, the controller's duties: the vector half's competitors for a question on keeping
    customer data) are embedded with the real model; the rest is searched by keyword, as a document the worker
    has not embedded yet."""
    load_statutes("2018:218")
    load(write_records(tmp_path / "gdpr.jsonl.gz", [shipped_record("Förordning (EU) 2016/679")]))
    embed_all(ContentChunk.objects.filter(document_number="(EU) 2016/679", citation__startswith="artikel ",
                                          header__regex=r" > Kapitel (I|II|III|IV) "))
    statute_directory_invalidate()
    yield
    statute_directory_invalidate()


def test_the_retention_question_gets_gdpr_article_5_next_to_dataskyddslagen(data_protection: None) -> None:
    alice = make_user("alice")
    ws = Workspace.objects.create(name="Alices AB", slug="alices-ab")
    Membership.objects.create(user=alice, workspace=ws, role="owner")
    result = retrieve_context("Hur länge får vi spara personuppgifter om kunder?", ws, user=alice,
                              options=RetrievalOptions(min_relevance=0))
    top = list(dict.fromkeys((c.document_number, c.citation) for c in result.chunks))[:5]
    assert ("(EU) 2016/679", "artikel 5.1") in top
    assert any(number == "2018:218" for number, _ in top)
