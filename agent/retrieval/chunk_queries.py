"""What every chunk query of a search shares: its options, the columns it selects, the filter of what it may
read, its parameters, and its rows read as RetrievedChunk.

The searches (agent.retrieval.hybrid), the sources the context block adds (context_additions) and the search for
documents the knowledge base does not hold (mentions) all build on these, so each reads its rows the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from django.conf import settings
from django.db import transaction
from django.db.backends.utils import CursorWrapper

from chunks.embedding import active_model_name
from chunks.selectors import CHUNK_SCOPE_SQL
from compliance.models import SECONDARY_CONTENT_TYPES, LegalDocument
from compliance.selectors import AccessScope
from compliance.sql import dict_cursor

from .sources import RetrievedChunk

CANDIDATES = 60  # per search, before fusion


@dataclass(frozen=True)
class CitedChapter:
    """A chapter a question cites as a whole ("3 kap. arbetsmiljölagen"): its document's number and the chapter."""

    number: str
    chapter: str

    @property
    def label(self) -> str:
        return f"{self.number} {self.chapter} kap."


@dataclass
class RetrievalOptions:
    source_types: list[str] = field(default_factory=list)
    content_types: list[str] = field(default_factory=list)
    sfs_numbers: list[str] = field(default_factory=list)
    # Of those documents, only these chapters (the others of sfs_numbers whole): the search within what the
    # question names, when it names a chapter.
    chapters: list[CitedChapter] = field(default_factory=list)
    date_from: date | None = None
    date_to: date | None = None
    min_score: float = 0.0
    # The relevance threshold (hybrid._relevant): None uses RETRIEVAL_MIN_RELEVANCE, 0 turns it off.
    min_relevance: float | None = None
    top_k: int = 0  # 0: settings.RETRIEVAL_TOP_K
    mode: str = "hybrid"
    rerank: bool = True  # applies only when a reranker is configured
    use_references: bool = True
    # The documents the asking workspace's company profile suggests and nobody has decided on: set by
    # retrieve_context (register.suggestions.profile_prior_documents), not by a caller; the register prior weighs
    # them as on the laglista.
    profile_documents: tuple[int, ...] = ()


CHUNK_COLUMNS = """
c.id, c.source_type, COALESCE(c.legal_document_id, c.user_file_id, c.assessment_id) AS source_id,
c.document_number, c.document_title, c.header, c.path, c.ordinal, c.citation, c.text, c.token_count,
c.workspace_id, c.page, COALESCE(ld.content_type, '') AS content_type, c.chapter
"""
# The ranking columns every chunk query ends with (read by name in row_to_chunk); a query that does not rank
# (a cited unit, a neighbouring §) gives its own score and no ranks.
NO_RANKS = "NULL::float AS sim, NULL::float AS rank, NULL::bigint AS vector_rank, NULL::bigint AS keyword_rank"


def filter_sql(options: RetrievalOptions, params: dict, *, named: bool = False) -> str:
    # Stubs (repealed, renumbered, empty headings) stay on statute pages, out of retrieval.
    clauses = [CHUNK_SCOPE_SQL, "c.retrievable"]
    # A repealed statute only when the search is limited to named statutes (the question names it, or the
    # caller's filter does) or to the documents of hits already found (`named`); its card says it is repealed.
    if not (named or options.sfs_numbers):
        clauses.append("NOT c.document_repealed")
    if options.source_types:
        params["source_types"] = list(options.source_types)
        clauses.append("c.source_type = ANY(%(source_types)s)")
    if options.content_types:
        params["content_types"] = list(options.content_types)
        # Content types are kinds of statute: asking for laws means statutes of that kind only.
        clauses.append("EXISTS (SELECT 1 FROM compliance_legaldocument d "
                       "WHERE d.id = c.legal_document_id AND d.content_type = ANY(%(content_types)s))")
    if options.sfs_numbers:
        params["sfs_numbers"] = list(options.sfs_numbers)
        clauses.append("c.document_number = ANY(%(sfs_numbers)s)")
    if options.chapters:
        params["chapter_documents"] = sorted({c.number for c in options.chapters})
        params["chapter_keys"] = [f"{c.number}|{c.chapter}" for c in options.chapters]
        clauses.append("NOT c.document_number = ANY(%(chapter_documents)s) "
                       "OR c.document_number || '|' || c.chapter = ANY(%(chapter_keys)s)")
    if options.date_from or options.date_to:
        params["date_from"] = options.date_from or date(1, 1, 1)
        params["date_to"] = options.date_to or date(9999, 12, 31)
        # Statutes are dated by issue, workspace sources by when they were added.
        clauses.append("COALESCE((SELECT d.issued FROM compliance_legaldocument d WHERE d.id = c.legal_document_id), "
                       "c.created_at::date) BETWEEN %(date_from)s AND %(date_to)s")
    return " AND ".join(f"({c.strip()})" for c in clauses)


def row_to_chunk(row: dict) -> RetrievedChunk:
    """A chunk query's row (CHUNK_COLUMNS, then score, sim, rank, vector_rank, keyword_rank) by column name."""
    sim, rank = row["sim"], row["rank"]
    return RetrievedChunk(
        chunk_id=row["id"], source_type=row["source_type"], source_id=row["source_id"],
        document_number=row["document_number"], document_title=row["document_title"], header=row["header"],
        path=row["path"], ordinal=row["ordinal"], citation=row["citation"], text=row["text"],
        token_count=row["token_count"], workspace_id=row["workspace_id"], page=row["page"],
        content_type=row["content_type"], chapter=row["chapter"], score=float(row["score"]),
        vector_similarity=None if sim is None else float(sim), keyword_rank=None if rank is None else float(rank),
        extra={"vector_rank": row["vector_rank"], "keyword_rank": row["keyword_rank"]},
    )


def set_vector_search(cursor: CursorWrapper, ef_search: int | None = None) -> None:
    """The HNSW settings of a search's transaction (RETRIEVAL_HNSW_EF_SEARCH unless `ef_search` is given)."""
    # Filters (workspace, type) would starve a plain HNSW scan; iterative scan keeps going. set_config(…, true)
    # is SET LOCAL: both in one round trip, since every chunk query of a turn pays for them.
    cursor.execute("SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), "
                   "set_config('hnsw.ef_search', %s, true)",
                   [str(int(ef_search or settings.RETRIEVAL_HNSW_EF_SEARCH))])


def fetch_rows(sql: str, params: dict) -> list[dict]:
    """A search's rows by column name, in a transaction with the search's HNSW settings."""
    with transaction.atomic(), dict_cursor() as cursor:
        set_vector_search(cursor)
        cursor.execute(sql, params)
        return cursor.fetchall()


def run_chunk_query(sql: str, params: dict) -> list[RetrievedChunk]:
    """The chunks of a query that does not order by the vector (a cited unit, a neighbouring §, a mention).

    One statement, so no transaction of its own, and no HNSW settings: those would add three round trips
    (BEGIN, the settings, COMMIT) to the one that reads the rows."""
    with dict_cursor() as cursor:
        cursor.execute(sql, params)
        return [row_to_chunk(row) for row in cursor.fetchall()]


def search_params(scope: AccessScope, limit: int) -> dict:
    return {
        "workspace_ids": list(scope.workspace_ids),
        "model": active_model_name(),
        "candidates": max(CANDIDATES, limit),
        "limit": limit,
        "rrf_k": float(settings.RETRIEVAL_RRF_K),
        "wv": float(settings.RETRIEVAL_VECTOR_WEIGHT),
        "wk": float(settings.RETRIEVAL_KEYWORD_WEIGHT),
        "vector_share": float(settings.RETRIEVAL_VECTOR_SHARE),
        "everyday_share": 0.0,
        "full_match": 0.0,
        "secondary_kinds": [str(kind) for kind in SECONDARY_CONTENT_TYPES],
        "kind_prior": float(settings.RETRIEVAL_KIND_PRIOR),
        "regulation_kind": str(LegalDocument.ContentType.AGENCY_REGULATION),
        "regulation_prior": float(settings.RETRIEVAL_REGULATION_PRIOR),
        "citation_prior": float(settings.RETRIEVAL_CITATION_PRIOR),
        "citation_saturation": float(settings.RETRIEVAL_CITATION_SATURATION),
        "addressee_prior": float(settings.RETRIEVAL_ADDRESSEE_PRIOR),
        "recital_prior": float(settings.RETRIEVAL_RECITAL_PRIOR),
        "register_prior": float(settings.RETRIEVAL_REGISTER_PRIOR),
        "register_workspace": scope.workspace_id,
        "profile_prior": float(settings.RETRIEVAL_PROFILE_PRIOR),
        "profile_documents": [],  # the searches set RetrievalOptions.profile_documents (hybrid._search)
        "question_words": "",
    }
