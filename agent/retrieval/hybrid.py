"""Workspace-scoped hybrid retrieval: pgvector cosine + Swedish full text, fused.

One SQL statement runs both searches over the chunks the user may see
(chunks.selectors.CHUNK_SCOPE_SQL) and fuses them by their standardised scores
(RETRIEVAL_FUSION "score"; "rrf" by reciprocal rank). On a cache miss the keyword
half is read while a remote embedder embeds the question (keyword_half); a model on
this machine embeds it first. A question that
cites a section gets that section first; one that cites or names a statute gets
a search limited to that statute next; one that cites a document the knowledge
base does not hold gets the sources that write its number, and what repealed it
is searched as if named (mentions.mention_search).
If the embedder fails, the keyword half still answers and the result says so.
What every chunk query shares (the options, the columns, the filter, reading rows)
is in chunk_queries; the question vectors already embedded, in query_vector_cache.
"""

from __future__ import annotations

import logging
import re
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import partial

import numpy as np
from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser

from chunks.chunking import ADVICE_LABEL
from chunks.embedding import EmbeddingError, active_model_name, get_provider
from compliance.clock import swedish_today
from compliance.errors import ApplicationError
from compliance.models import Workspace
from compliance.selectors import AccessScope, access_scope_for
from compliance.sql import dict_cursor
from compliance.text import strip_control
from law.legal_refs import LegalReference, unit_citations
from law.statute_directory import statute_directory
from register.suggestions import profile_prior_documents

from . import bridges
from . import rerank as rerank_module
from .chunk_queries import (
    CANDIDATES,
    CHUNK_COLUMNS,
    NO_RANKS,
    CitedChapter,
    RetrievalOptions,
    fetch_rows,
    filter_sql,
    row_to_chunk,
    run_chunk_query,
    search_params,
)
from .concurrent_search import search_beside
from .dating import prefer_version_in_force
from .keyword_search import (
    KeywordQuery,
    corrected_text,
    keyword_cte,
    keyword_params,
    keyword_query,
    written_words,
)
from .mentions import Mentions, mention_search
from .query_analysis import QueryAnalysis, analyse_query, in_force_on
from .query_vector_cache import query_vectors
from .sources import RetrievedChunk
from .versions_in_force import versions_in_force
from .workspace_glossary import TermMatch, glossary_matches, searched_text, still_unknown, taught_references

log = logging.getLogger(__name__)

MODES = ("hybrid", "vector", "keyword")
# A question's meaning is in its first few sentences; embedding cost grows with length.
MAX_EMBED_CHARS = 512
# Extra results fetched so that dropping a second temporal version of a § still fills top_k.
SLACK = 10
# Weight of the rank within a statute the question names, against 1 for the rank among all sources.
STATUTE_PRIOR_WEIGHT = 1.0  # measured: 1.0 and 1.5 equal overall; above 1 it fences again (see docs)


class RetrievalInputError(ApplicationError):
    """The query cannot be searched."""


@dataclass
class RetrievalResult:
    chunks: list[RetrievedChunk]
    mode: str
    degraded: bool = False
    notice: str = ""  # Swedish, shown to users when degraded
    timings_ms: dict = field(default_factory=dict)
    # Citations the question made (or a glossary term it used), e.g. "1977:1160 3 kap. 2 a §", "1977:1160 7 kap.".
    references: list[str] = field(default_factory=list)
    excluded_by_threshold: int = 0  # candidates dropped under min_score or the relevance threshold
    # Nothing was searched: the message has no content words and nothing before it to refer to.
    no_content: bool = False
    # The ranked sources after the top k (RETRIEVAL_CONTEXT_RESERVE of them): the context block takes them last,
    # in rank order, into what its budget has left after the hits, their neighbours and their chapters.
    reserve: list[RetrievedChunk] = field(default_factory=list)
    # What the question was searched with: detailed_act_sections searches the same question within other statutes.
    search: SearchInputs | None = None
    # The question's words no source in scope uses (KeywordQuery.unknown_words; none in vector mode).
    unknown_words: list[str] = field(default_factory=list)
    # Those of them searched as a statute word instead: one slip away (KeywordQuery.corrections) or the same word
    # typed without its diacritics (QueryAnalysis.restored).
    corrections: dict[str, str] = field(default_factory=dict)
    # The terms of the asker's glossary the question uses: their law words were searched too (workspace_glossary).
    glossary: list[TermMatch] = field(default_factory=list)

    @property
    def glossary_words(self) -> dict[str, str]:
        """The glossary terms used, the team's word -> the law's words: what readers, the model and the API see."""
        return {match.word: match.law_words for match in self.glossary}


@dataclass(frozen=True)
class SearchInputs:
    terms: list[str]  # the question's keyword_terms
    qvec: np.ndarray | None  # its embedding (None in keyword mode or with the embedder down)
    kwq: KeywordQuery | None  # its BM25 query (None in vector mode)


# Embeds a question on a remote embedder beside the SQL that does not need its vector (retrieve_context).
_query_embedder = ThreadPoolExecutor(max_workers=4, thread_name_prefix="query-embed")


# --- input hygiene ---

def clean_query(query: object) -> str:
    if not isinstance(query, str):
        raise RetrievalInputError("invalid_query", "Frågan måste vara text.")
    text = strip_control(query).strip()
    if not text:
        raise RetrievalInputError("empty_query", "Frågan är tom. Skriv vad du vill veta.")
    return text[:settings.RETRIEVAL_QUERY_MAX_CHARS]


_NOT_A_WORD = re.compile(r"^[\d:§.,]+$|^(kap|st|p|sfs|mom)$")


def keyword_terms(analysis: QueryAnalysis) -> list[str]:
    """The significant words. Numbers and "kap" are left to the reference search: as
    keywords they match half of every statute."""
    words = analysis.keywords or re.findall(r"\w+", analysis.text.lower())
    return [w for w in words if w.replace("_", "").strip() and not _NOT_A_WORD.match(w)][:32]


# --- SQL ---


# The kind prior: a secondary kind of statute (compliance.models.SECONDARY_CONTENT_TYPES: tillkännagivanden,
# kungörelser, old resolutions and stadgar) has its fused score multiplied by RETRIEVAL_KIND_PRIOR, so the
# binding rules are not pushed out by them in a book of 4,610 statutes. Evidence, not a fence: within a
# statute the question names every chunk shares the factor, so its own ranking and the named-statute
# prior are untouched (docs/retrieval.md, "Kind prior").
# The regulation prior is the same for an agency regulation (a föreskrift and its allmänna råd), at
# RETRIEVAL_REGULATION_PRIOR: it details duties a statute lays down, under the statute's authorisation, so a
# question that names neither is answered first by the law and then by the regulation's detail; a question
# naming the regulation ("enligt AFS 2023:1") reaches it through the named-statute prior (docs/retrieval.md,
# "The regulation prior").
_KIND_FACTOR = ("(CASE WHEN ld.content_type = ANY(%(secondary_kinds)s) THEN %(kind_prior)s "
                "WHEN ld.content_type = %(regulation_kind)s THEN %(regulation_prior)s ELSE 1.0 END)")
# The citation prior: a document that few others cite (law.citations; a narrow förordning, an old special
# law) has its fused score multiplied by down to 1 − RETRIEVAL_CITATION_PRIOR; one cited by
# RETRIEVAL_CITATION_SATURATION documents or more keeps it whole, on a log scale between. Like the kind prior
# it only moves documents against each other, never within one, and a workspace's own files are untouched
# (docs/retrieval.md, "The citation prior").
_CITATION_FACTOR = ("(CASE WHEN ld.id IS NULL THEN 1.0 ELSE 1.0 - %(citation_prior)s * (1.0 - "
                    "LEAST(1.0, ln(1 + ld.cited_by) / ln(1 + %(citation_saturation)s))) END)")
# The addressee prior: a statute that governs one authority's own work (law.addressees: its instruction, its
# registers, its processing of personal data) binds that authority, not the company asking, so its fused
# score is multiplied by RETRIEVAL_ADDRESSEE_PRIOR, unless the question names the authority ("Hur länge får
# Tullverket spara uppgifter?"). Like the other priors it moves documents against each other, never the
# sections of one (docs/retrieval.md, "The addressee prior").
_ADDRESSEE_FACTOR = ("(CASE WHEN ld.addressee <> '' AND strpos(%(question_words)s, lower(ld.addressee)) = 0 "
                     "THEN %(addressee_prior)s ELSE 1.0 END)")
# The recital prior: an EU regulation's recitals (skäl) explain its articles and bind no one, so a recital's fused
# score is multiplied by RETRIEVAL_RECITAL_PRIOR and the article that lays down the duty ranks first, with the
# recitals behind it ("Måste vi anmäla en personuppgiftsincident?" is answered by article 33, explained by recitals
# 85–88). Like the regulation prior it weighs a unit that details or explains a rule after the rule itself.
_RECITAL_FACTOR = "(CASE WHEN c.kind = 'recital' THEN %(recital_prior)s ELSE 1.0 END)"
# The register prior: a workspace that keeps a laglista has said which documents apply to it, so a document
# not on it (or on it as "ej tillämplig") has its fused score multiplied by RETRIEVAL_REGISTER_PRIOR. Only the
# asking workspace's own registers count (not another workspace a question names), and a workspace with no
# document on its laglista is untouched. Both subqueries are uncorrelated, so Postgres runs each once per
# statement. Like the other priors it moves documents against each other, never the sections of one, and a
# workspace's own files are untouched (docs/retrieval.md, "The laglista weighs the sources").
_LISTED = ("SELECT ri.legal_document_id FROM register_registeritem ri WHERE ri.workspace_id = %(register_workspace)s "
           "AND ri.legal_document_id IS NOT NULL AND ri.status <> 'not_applicable'")
# The documents the company profile suggests that nobody has decided on (RetrievalOptions.profile_documents,
# register.suggestions.profile_prior_documents) count as on the laglista; while the laglista holds no document,
# they alone do, and the rest is weighed by RETRIEVAL_PROFILE_PRIOR (docs/retrieval.md, "The company profile
# weighs the sources").
_REGISTER_FACTOR = (f"(CASE WHEN ld.id IS NULL THEN 1.0 "
                    f"WHEN ld.id = ANY(%(profile_documents)s::bigint[]) OR ld.id = ANY(ARRAY({_LISTED})) THEN 1.0 "
                    f"WHEN EXISTS ({_LISTED}) THEN %(register_prior)s "
                    f"WHEN cardinality(%(profile_documents)s::bigint[]) > 0 THEN %(profile_prior)s ELSE 1.0 END)")
# Every prior on a source's fused score: the document's (kind, citations, addressee, the laglista) and the
# unit's (a recital).
_SOURCE_PRIORS = (f"{_KIND_FACTOR} * {_CITATION_FACTOR} * {_ADDRESSEE_FACTOR} * {_REGISTER_FACTOR} * "
                  f"{_RECITAL_FACTOR}")


# A keyword half read ahead (KeywordHalf): its rows as they came, in the shape of keyword_cte's `kw`.
_KEYWORD_HALF_READ = """
      kw AS (
        SELECT * FROM unnest(%(kw_ids)s::bigint[], %(kw_scores)s::float8[], %(kw_ranks)s::bigint[]) AS k(id, rank, rnk))"""


def _hybrid_sql(where: str, use_vector: bool, use_keyword: bool, *, exact_vector: bool = False,
                filtered: bool = False, keyword_read: bool = False, exact_scan: bool = False) -> str:
    # exact_vector: the filter keeps a handful of statutes (hybrid_search), so both halves go chunk by chunk.
    # Within a few statutes an exact scan is faster and better than walking the whole HNSW
    # graph for the few nodes that pass the filter; "+ 0" keeps the planner off the index.
    # keyword_read: the keyword half was read ahead (keyword_half) and comes in as parameters.
    # exact_scan: the vector half alone scans exactly (hybrid_search, when the index scan came back short).
    # Every row carries vector_found, the vector half's count, so the caller can tell a short half.
    order = ("(c.embedding <=> %(qvec)s::vector) + 0" if exact_vector or exact_scan
             else "c.embedding <=> %(qvec)s::vector")
    vec = f"""
      vec AS (
        SELECT id, sim, row_number() OVER (ORDER BY dist) AS rnk FROM (
          SELECT c.id, (c.embedding <=> %(qvec)s::vector) AS dist, 1 - (c.embedding <=> %(qvec)s::vector) AS sim
          FROM chunks_contentchunk c
          WHERE c.embedding IS NOT NULL AND c.embedding_model = %(model)s AND {where}
          ORDER BY {order}
          LIMIT %(candidates)s) v)""" if use_vector else """
      vec AS (SELECT NULL::bigint AS id, NULL::float AS sim, NULL::bigint AS rnk WHERE false)"""
    if not use_keyword:
        kw = """
      kw AS (SELECT NULL::bigint AS id, NULL::float AS rank, NULL::bigint AS rnk WHERE false)"""
    else:
        kw = _KEYWORD_HALF_READ if keyword_read else keyword_cte(where, filtered=filtered, few_chunks=exact_vector)
    if use_vector and use_keyword and settings.RETRIEVAL_FUSION == "score":
        return _score_fusion_sql(vec, kw)
    # Every result's similarity, not only the vector half's: the relevance threshold needs it for
    # keyword-only hits too (a few dozen rows: cheap).
    sim = ("CASE WHEN c.embedding_model = %(model)s THEN 1 - (c.embedding <=> %(qvec)s::vector) END"
           if use_vector else "f.sim")
    return f"""
    WITH {vec},
    {kw},
    fused AS (
      SELECT COALESCE(vec.id, kw.id) AS id, vec.sim, kw.rank, vec.rnk AS vrnk, kw.rnk AS krnk,
             COALESCE(%(wv)s / (%(rrf_k)s + vec.rnk), 0) + COALESCE(%(wk)s / (%(rrf_k)s + kw.rnk), 0) AS score
      FROM vec FULL OUTER JOIN kw ON vec.id = kw.id)
    SELECT {CHUNK_COLUMNS}, f.score * {_SOURCE_PRIORS} AS score, {sim} AS sim, f.rank,
           f.vrnk AS vector_rank, f.krnk AS keyword_rank, (SELECT count(*) FROM vec) AS vector_found
    FROM fused f
    JOIN chunks_contentchunk c ON c.id = f.id
    LEFT JOIN compliance_legaldocument ld ON ld.id = c.legal_document_id
    ORDER BY f.score * {_SOURCE_PRIORS} DESC, c.id
    LIMIT %(limit)s
    """


def _score_fusion_sql(vec: str, kw: str) -> str:
    """Fusion by score: every candidate of either half gets its cosine similarity and its BM25 score,
    each standardised over the candidates (z-scores), and the two are mixed with the vector share.

    Ranks throw away how far ahead the best candidate is; scores keep it (docs/retrieval.md:
    lagen.nu MRR 0.402 -> 0.436, headings 0.886 -> 0.923 against RRF k 60). The similarity is known for
    every candidate (computed for the keyword half's too). The BM25 score is known only for the keyword
    half's returns; a candidate it did not return gets the most it can have scored: the weakest return
    when the half's list was cut at the candidate count, 0 when the half returned every chunk holding a query
    word. Filling it in below the weakest return (0.9 × it, as before) put every vector-only hit under all
    but the weakest keyword hits, however close its meaning (docs/retrieval.md, "Fusion: the missing
    keyword score"). A candidate without a vector (a file still being embedded) counts at the weakest
    similarity. Both columns are standardised over all candidates; the score shown is the mix through a
    logistic, in (0, 1).
    """
    return f"""
    WITH {vec},
    {kw},
    fused AS (
      SELECT COALESCE(vec.id, kw.id) AS id, kw.rank, vec.rnk AS vrnk, kw.rnk AS krnk
      FROM vec FULL OUTER JOIN kw ON vec.id = kw.id),
    cand AS (
      SELECT f.*, CASE WHEN c.embedding_model = %(model)s THEN 1 - (c.embedding <=> %(qvec)s::vector) END AS sim
      FROM fused f JOIN chunks_contentchunk c ON c.id = f.id),
    kw_missing AS (
      SELECT CASE WHEN count(*) >= %(candidates)s THEN min(rank) ELSE 0 END AS rank FROM kw),
    filled AS (
      SELECT cand.*, COALESCE(cand.sim, min(cand.sim) OVER ()) AS s, COALESCE(cand.rank, m.rank) AS b
      FROM cand CROSS JOIN kw_missing m),
    shared AS (
      SELECT filled.*, LEAST(1.0, %(vector_share)s + %(everyday_share)s
             * (1 - LEAST(1.0, COALESCE(max(b) OVER () / NULLIF(%(full_match)s, 0), 1)))) AS vs
      FROM filled),
    scored AS (
      SELECT shared.*,
             vs * COALESCE((s - avg(s) OVER ()) / NULLIF(stddev_pop(s) OVER (), 0), 0)
             + (1 - vs) * COALESCE((b - avg(b) OVER ()) / NULLIF(stddev_pop(b) OVER (), 0), 0) AS mix
      FROM shared)
    SELECT {CHUNK_COLUMNS}, 1 / (1 + exp(-f.mix)) * {_SOURCE_PRIORS} AS score, f.sim, f.rank,
           f.vrnk AS vector_rank, f.krnk AS keyword_rank, (SELECT count(*) FROM vec) AS vector_found
    FROM scored f
    JOIN chunks_contentchunk c ON c.id = f.id
    LEFT JOIN compliance_legaldocument ld ON ld.id = c.legal_document_id
    ORDER BY 1 / (1 + exp(-f.mix)) * {_SOURCE_PRIORS} DESC, c.id
    LIMIT %(limit)s
    """


# A cited unit's chunks: the citation itself, a regulation §'s allmänt råd ("3 § allmänt råd (inte bindande)"), and
# an EU article's punkter when it is chunked by punkt ("artikel 13" -> "artikel 13.1", …).
_CITED_UNIT_SQL = """
    c.legal_document_id IS NOT NULL AND c.document_number = ANY(%(ref_sfs)s) AND EXISTS (
        SELECT 1 FROM unnest(%(ref_sfs)s::text[], %(ref_cit)s::text[]) AS r(sfs, cit)
        WHERE c.document_number = r.sfs
          AND (c.citation = r.cit OR c.citation = r.cit || ' ' || %(ref_advice)s
               OR (r.cit LIKE 'artikel %%' AND c.citation LIKE r.cit || '.%%')))
"""


def _exact_sql(where: str) -> str:
    return f"""
    SELECT {CHUNK_COLUMNS}, 1.0 AS score, {NO_RANKS}
    FROM chunks_contentchunk c
    LEFT JOIN compliance_legaldocument ld ON ld.id = c.legal_document_id
    WHERE {_CITED_UNIT_SQL} AND {where}
    ORDER BY c.path
    LIMIT 50
    """


def _unit_params(units: list[CitedUnit], scope: AccessScope) -> dict:
    params = search_params(scope, 50)
    pairs = [(unit.number, cit) for unit in units for cit in unit.citations]
    params["ref_sfs"] = [sfs for sfs, _ in pairs]
    params["ref_cit"] = [cit for _, cit in pairs]
    params["ref_advice"] = ADVICE_LABEL
    return params


def _vector_literal(vector: np.ndarray) -> str:
    # pgvector's text form: no adapter registration needed on Django's connection.
    return "[" + ",".join(f"{x:.7g}" for x in np.asarray(vector, dtype=np.float32).tolist()) + "]"


@dataclass(frozen=True)
class KeywordHalf:
    """A search's keyword half read on its own (keyword_half), before the question's vector is there: its
    candidates' chunk ids, BM25 scores and ranks, best first."""

    ids: list[int]
    scores: list[float]
    ranks: list[int]


@dataclass(frozen=True)
class _Search:
    """What hybrid_search and keyword_half share: the parameters, the filter and the keyword query."""

    params: dict
    where: str
    kwq: KeywordQuery | None  # None or empty: no keyword half
    exact_vector: bool  # a handful of statutes: both halves chunk by chunk (_hybrid_sql)
    filtered: bool


def _search(terms: list[str], scope: AccessScope, options: RetrievalOptions, *, limit: int, mode: str,
            kwq: KeywordQuery | None) -> _Search:
    params = search_params(scope, limit)
    params["question_words"] = " ".join(terms).lower()
    params["profile_documents"] = list(options.profile_documents)
    where = filter_sql(options, params)
    if mode in ("hybrid", "keyword"):
        kwq = kwq if kwq is not None else keyword_query(" ".join(terms), list(scope.workspace_ids))
        params.update(keyword_params(kwq))
    else:
        kwq = None
    return _Search(params=params, where=where, kwq=kwq,
                   exact_vector=bool(options.sfs_numbers) and len(options.sfs_numbers) <= 5,
                   filtered=bool(options.sfs_numbers or options.source_types or options.content_types
                                 or options.date_from or options.date_to))


def keyword_half(terms: list[str], scope: AccessScope, options: RetrievalOptions, *, limit: int,
                 kwq: KeywordQuery | None = None) -> KeywordHalf | None:
    """The keyword half of hybrid_search with the same arguments, read on its own (None when the question has no
    keyword to search). retrieve_context reads it while the question is embedded, so a miss waits for the
    vector half's SQL only, not for both halves in turn."""
    search = _search(terms, scope, options, limit=limit, mode="keyword", kwq=kwq)
    if not search.kwq:
        return None
    sql = (f"WITH {keyword_cte(search.where, filtered=search.filtered, few_chunks=search.exact_vector)} "
           "SELECT id, rank, rnk FROM kw ORDER BY rnk")
    with dict_cursor() as cursor:
        cursor.execute(sql, search.params)
        rows = cursor.fetchall()
    return KeywordHalf(ids=[row["id"] for row in rows], scores=[float(row["rank"]) for row in rows],
                       ranks=[row["rnk"] for row in rows])


def hybrid_search(terms: list[str], scope: AccessScope, options: RetrievalOptions, *, limit: int,
                  qvec: np.ndarray | None, mode: str, kwq: KeywordQuery | None = None,
                  everyday: bool = False, keyword: KeywordHalf | None = None) -> list[RetrievedChunk]:
    """One SQL statement: the vector and keyword halves, fused. `kwq` is the query's BM25
    query (built from `terms`, the query's `keyword_terms`, when not given); `qvec` its
    embedding (None in keyword mode). `everyday`: a short question that names no statute
    (is_everyday_question), whose vector share grows as its words miss the statutes' words.
    `keyword`: the keyword half as keyword_half read it for the same arguments; the statement then fuses it
    with the vector half instead of reading it again."""
    search = _search(terms, scope, options, limit=limit, mode=mode, kwq=kwq)
    params, kwq = search.params, search.kwq
    use_vector = mode in ("hybrid", "vector") and qvec is not None
    use_keyword = bool(kwq)
    if use_vector:
        params["qvec"] = _vector_literal(qvec)
    if everyday and kwq:
        params["everyday_share"] = float(settings.RETRIEVAL_EVERYDAY_VECTOR_SHARE)
        params["full_match"] = kwq.full_match
    if keyword is not None:
        params.update(kw_ids=keyword.ids, kw_scores=keyword.scores, kw_ranks=keyword.ranks)
    if not (use_vector or use_keyword):
        return []
    shape = {"exact_vector": search.exact_vector, "filtered": search.filtered, "keyword_read": keyword is not None}
    rows = fetch_rows(_hybrid_sql(search.where, use_vector, use_keyword, **shape), params)
    if use_vector and not search.exact_vector and (not rows or rows[0]["vector_found"] < params["candidates"]):
        # The HNSW scan is bounded (hnsw.max_scan_tuples index entries, a memory limit), and entries no row of
        # the search passes count against it: other workspaces' chunks, another model's vectors, and the dead
        # rows a deletion, a re-embedding or a rolled-back load leaves in the graph until VACUUM. Crowded by
        # them the scan comes back short or empty: a question loses its meaning-based candidates, and an
        # unrelated one finds no candidate for the relevance threshold to exclude. Short means the scope has
        # fewer vectors than asked for, or the index starved: an exact scan answers either way.
        rows = fetch_rows(_hybrid_sql(search.where, use_vector, use_keyword, exact_scan=True, **shape), params)
    return [row_to_chunk(row) for row in rows]


@dataclass(frozen=True)
class CitedUnit:
    """A unit the question cites: its document's number, the chunk citations that can hold it, the most
    specific first (legal_refs.unit_citations), and an EU article's led ("f" of "artikel 6.1 f")."""

    number: str
    citations: tuple[str, ...]
    led: str | None = None

    @property
    def label(self) -> str:
        return f"{self.number} {self.citations[0]}"


def exact_reference_search(units: list[CitedUnit], scope: AccessScope,
                           options: RetrievalOptions, *, named: bool = False) -> list[RetrievedChunk]:
    """The chunks of the units the question cites. Of a unit's citations the first that has chunks is taken
    ("artikel 6.1" in an article chunked by punkt, else "artikel 6"); of a punkt split in parts, the part
    holding the cited led comes first. `named`: the question itself cites them, so a repealed statute's
    units are found too (units a source cites are not)."""
    if not units:
        return []
    params = _unit_params(units, scope)
    found = run_chunk_query(_exact_sql(filter_sql(options, params, named=named)), params)
    kept: dict[int, int] = {}  # chunk id -> 0 if it holds a cited led, else 1
    for unit in units:
        for cit in unit.citations:
            held = [c for c in found if c.document_number == unit.number and unit_holds(cit, c.citation)]
            if held:
                for chunk in held:
                    has_led = bool(unit.led) and re.search(rf"(?m)^{re.escape(unit.led or '')}\) ", chunk.text)
                    kept[chunk.chunk_id] = min(kept.get(chunk.chunk_id, 1), 0 if has_led else 1)
                break
    found = sorted((c for c in found if c.chunk_id in kept), key=lambda c: kept[c.chunk_id])  # stable: path order
    for chunk in found:
        chunk.reference_match = True
    return found


def cited_units_held(units: list[CitedUnit], scope: AccessScope) -> set[tuple[str, str]]:
    """Of the chunks `units` cite (as exact_reference_search finds them, repealed documents included), the
    (document number, citation) pairs: whether a citation would find anything, without reading the chunks, for as
    many units as a page names."""
    if not units:
        return set()
    params = _unit_params(units, scope)
    sql = (f"SELECT DISTINCT c.document_number, c.citation FROM chunks_contentchunk c "
           f"WHERE {_CITED_UNIT_SQL} AND {filter_sql(RetrievalOptions(), params, named=True)}")
    with dict_cursor() as cursor:
        cursor.execute(sql, params)
        return {(row["document_number"], row["citation"]) for row in cursor.fetchall()}


def unit_holds(cited: str, chunk_citation: str) -> bool:
    """Whether a chunk cited `chunk_citation` is (part of) the unit cited `cited`; the SQL's test in Python."""
    return (chunk_citation in (cited, f"{cited} {ADVICE_LABEL}")
            or (cited.startswith("artikel ") and chunk_citation.startswith(f"{cited}.")))


# --- the entry point ---

def retrieve_context(query: str, workspace: Workspace, *, user: AbstractBaseUser | None,
                     options: RetrievalOptions | None = None,
                     scope: AccessScope | None = None, analysis: QueryAnalysis | None = None) -> RetrievalResult:
    """Search what `user` may see in `workspace`. Raises RetrievalInputError for unusable input.

    `analysis` is the turn's query analysis when the caller (the pre-model step) has
    made one already: its keywords and references are used as they are, so a turn
    is analysed once. Without it the query is analysed here.
    """
    started = time.perf_counter()
    options = options or RetrievalOptions()
    if options.mode not in MODES:
        raise RetrievalInputError("invalid_mode", f"Okänt sökläge {options.mode!r}: välj hybrid, vector eller keyword.")
    scope = scope or access_scope_for(user, workspace)
    text = clean_query(query)
    if analysis is None:
        analysis = analyse_query(text, directory=statute_directory(), marked=bridges.question_marks())
        if analysis.restored:
            text = analysis.text  # embedded as restored too
    terms = keyword_terms(analysis)
    top_k = max(1, min(options.top_k or settings.RETRIEVAL_TOP_K, 200))
    timings: dict[str, float] = {}
    result = RetrievalResult(chunks=[], mode=options.mode, timings_ms=timings)

    if analysis.fallback and not analysis.is_follow_up and not analysis.references:
        # "och det?", "hmm" as a first message: any source would be a guess.
        result.no_content = True
        _log_timings(text, result, started)
        return result

    if settings.RETRIEVAL_PROFILE_PRIOR < 1.0:
        # What the company profile suggests applies, until a person decides otherwise.
        options = replace(options, profile_documents=profile_prior_documents(scope.workspace_id))
    embeds = options.mode in ("hybrid", "vector")
    # The asker's glossary: its terms' law words are searched beside the team's words, by both halves.
    taught = glossary_matches(text, scope.workspace_ids)
    # A remote embedder works on the question while the SQL that needs no vector runs. The local model embeds
    # once the keyword query has named the question's slips (below): it embeds once, the question as corrected.
    embedding = (_start_embedding(searched_text(text, taught), result, timings) if embeds and _embeds_remotely()
                 else None)

    t0 = time.perf_counter()
    # The provisions the glossary's law words cite count as the question's own ("friskvårdsbidrag" taught as
    # "personalvårdsförmån (11 kap. 11 § inkomstskattelagen)" gets that § first).
    cited = (_references([*analysis.references, *taught_references(taught)]) if options.use_references
             else QuestionReferences(units=[], named=[]))
    refs, named_sfs = cited.units, cited.named
    result.references = [*(unit.label for unit in refs), *(chapter.label for chapter in cited.chapters)]
    exact = exact_reference_search(refs, scope, options, named=True)
    mentions = mention_search(cited.unheld, scope, options) if cited.unheld else Mentions(chunks=[])
    # A question about a document that was repealed is a question about what replaced it: those are named.
    named_sfs = [*named_sfs, *(n for n in mentions.replacements if n not in named_sfs)]
    # BM25 weighs every word of the analysed text (idf does what dropping "generic" words did).
    kwq = (keyword_query(searched_text(analysis.text or text, taught), list(scope.workspace_ids))
           if options.mode in ("hybrid", "keyword") else None)
    # A named statute is a prior, not a fence: its sections are ranked up, the rest still compete.
    # A chapter it cites as a whole narrows its statute's prior to that chapter ("3 kap. arbetsmiljölagen").
    limited = (RetrievalOptions(**{**options.__dict__, "sfs_numbers": named_sfs, "chapters": cited.chapters})
               if named_sfs and not options.sfs_numbers else None)
    reranking = rerank_module.enabled(options)
    reserve = settings.RETRIEVAL_CONTEXT_RESERVE
    # The reserve is what the fused candidate lists hold anyway: it never widens them, so the ranking of the
    # top k is the same with it and without it (the reranker's pool is RERANK_CANDIDATES, as before).
    limit = (max(top_k * 2, settings.RERANK_CANDIDATES) if reranking
             else max(top_k, min(top_k + reserve, CANDIDATES - SLACK)))
    unknown_words = still_unknown(_unknown_words(kwq, analysis), taught, analysis.text or text)
    # The misspelt words among them, each with the statute word searched in its stead.
    slips = {w: s for w, s in kwq.corrections.items() if w in unknown_words} if kwq else {}
    if embeds and (embedding is None or slips):
        # A misspelt word's pieces are other words to the embedder ("skydsombud" is not "skydd"), so the vector
        # half embeds the question as corrected: on a remote embedder, a second request for a question with a slip.
        embedding = _start_embedding(searched_text(corrected_text(text, slips), taught), result, timings)
    # While a remote embedder works on the question, the keyword halves (which need no vector) are read, and each
    # search then runs its vector half and the fusion once the vector is there (docs/retrieval.md, "Speed"). A
    # vector that is there already (cached, or the local model's) gets the one statement: a second round trip
    # would buy nothing.
    ahead = bool(kwq) and embedding is not None and not embedding.done()
    limited_keywords = (keyword_half(terms, scope, limited, limit=top_k + SLACK, kwq=kwq)
                        if ahead and limited is not None else None)
    general_keywords = keyword_half(terms, scope, options, limit=limit + SLACK, kwq=kwq) if ahead else None
    before_vector = _ms(t0)
    qvec = embedding.result() if embedding is not None else None
    t0 = time.perf_counter()
    # The named statute's search on a connection of its own while this one runs the general search; in turn
    # when the caller is inside a transaction (concurrent_search).
    statute_search = (search_beside(partial(hybrid_search, terms, scope, limited, limit=top_k + SLACK, qvec=qvec,
                                            mode=result.mode, kwq=kwq, keyword=limited_keywords))
                      if limited is not None else None)
    general = hybrid_search(terms, scope, options, limit=limit + SLACK, qvec=qvec, mode=result.mode, kwq=kwq,
                            everyday=is_everyday_question(analysis), keyword=general_keywords)
    statute_hits = statute_search.result() if statute_search is not None else []
    timings["sql"] = round(before_vector + _ms(t0), 3)  # without the wait for the vector

    t0 = time.perf_counter()
    ranked = _with_prior(statute_hits, general, STATUTE_PRIOR_WEIGHT) if statute_hits else general
    merged = _merge(exact, mentions.chunks, ranked)
    # The version of a § in force on the question's day goes first: the period's (today if it includes today), or
    # today for a question without one. An expired version left on its own is replaced by the § as it reads now, and
    # one that nothing replaced (a § repealed that day) is a source only when cited or its statute named.
    today = swedish_today()
    day = in_force_on(analysis.dates, today) or today
    merged = one_version_per_section(prefer_version_in_force(merged, day))
    merged = versions_in_force(merged, scope, options, day, named=frozenset(named_sfs))
    chunks = [c for c in merged if c.reference_match or c.score >= options.min_score]
    # Sources judged by meaning beside it: the question has a vector and some candidate has one too (a corpus
    # with no vector yet, the worker not having run, is judged by keywords alone, as in keyword mode).
    beside_vectors = qvec is not None and any(c.vector_similarity is not None for c in chunks)
    chunks = _relevant(chunks, options, kwq, beside_vectors=beside_vectors,
                       about=frozenset(mentions.replacements))
    result.excluded_by_threshold = len(merged) - len(chunks)
    timings["fuse"] = _ms(t0)

    if reranking:
        t0 = time.perf_counter()
        reranked = rerank_module.rerank(text, chunks, keep_first=len(exact))
        chunks = reranked.chunks
        timings["rerank"] = _ms(t0)
        if reranked.error:
            result.notice = result.notice or "Omrankningen misslyckades; resultatet visas i ursprunglig ordning."
    result.chunks = chunks[:top_k]
    result.reserve = chunks[top_k:top_k + reserve]
    for chunk in result.reserve:
        chunk.extra["reserve"] = True
    result.search = SearchInputs(terms=terms, qvec=qvec, kwq=kwq)
    result.unknown_words = unknown_words
    result.corrections = slips
    result.glossary = taught
    if analysis.restored:
        # Typed without diacritics, searched with the statutes': no source writes them as typed either.
        result.unknown_words = [*analysis.restored, *result.unknown_words]
        result.corrections = {**analysis.restored, **result.corrections}
    _log_timings(text, result, started)
    return result


def _unknown_words(kwq: KeywordQuery | None, analysis: QueryAnalysis) -> list[str]:
    """The question's words no source uses, less those of the legal references it makes: a statute named by
    its short name ("arbetsmiljölagen", "LAS") was understood and searched, whether or not any text writes it."""
    if kwq is None or not kwq.unknown_words:
        return []
    cited = {word.lower() for ref in analysis.references for word in written_words(ref.raw)}
    return [word for word in kwq.unknown_words if word.lower() not in cited]


def is_everyday_question(analysis: QueryAnalysis) -> bool:
    """A short question that names and cites no statute (no reference at all: every named statute comes from
    one): asked in the words of practice more often than in the statute's, so its keyword half is weaker
    evidence than its meaning."""
    return not analysis.references and len(analysis.keywords) <= settings.RETRIEVAL_EVERYDAY_MAX_WORDS


def _start_embedding(text: str, result: RetrievalResult, timings: dict) -> Future:
    """The question's vector, as a future the search waits for once it needs the vector.

    A remote embedder works while the cited sections and the keyword halves are read: neither needs the
    vector, so a miss waits for the longer of the two, not for both in turn. A model on this machine (the local
    one, or a server at a loopback address) embeds in turn instead, here and now: the local model's OpenMP team
    needs both cores, and with the Postgres backend running beside it both took longer than one after the other
    (docs/retrieval.md, "One thread calls the embedding engine; the local model embeds before the SQL")."""
    if _embeds_remotely():
        return _query_embedder.submit(_embed_query, text, result, timings)
    embedded: Future = Future()
    embedded.set_result(_embed_query(text, result, timings))
    return embedded


def _embeds_remotely() -> bool:
    try:
        return not get_provider().on_this_machine
    except EmbeddingError:
        return True  # _embed_query meets the same error and reports it


def _embed_query(text: str, result: RetrievalResult, timings: dict) -> np.ndarray | None:
    t0 = time.perf_counter()
    try:
        embedded = query_vectors.get_or_embed(active_model_name(), text[:MAX_EMBED_CHARS])
        timings["embed_cached"] = embedded.cached
        return embedded.vector
    except (EmbeddingError, OSError, RuntimeError, ValueError) as exc:
        log.warning("query embedding failed, falling back to full text: %s", exc)
        result.mode = "keyword"
        result.degraded = True
        result.notice = "Den semantiska sökningen är inte tillgänglig just nu; resultaten bygger på ordsökning."
        return None
    finally:
        timings["embed"] = _ms(t0)


@dataclass(frozen=True)
class QuestionReferences:
    units: list[CitedUnit]  # the units the question cites
    named: list[str]  # every statute, regulation or EU act it cites or names, by number
    # The chapters it cites with no § of them: no one § is the unit, so none is searched exactly.
    chapters: list[CitedChapter] = field(default_factory=list)
    # The numbers it cites that no document of the knowledge base has (an old AFS, an amending act, an EU
    # directive): mention_search finds what the sources say of them.
    unheld: list[str] = field(default_factory=list)


def _references(refs: list[LegalReference]) -> QuestionReferences:
    """The units the question cites, and every statute, regulation or EU act it cites or names."""
    directory = statute_directory()
    units: list[CitedUnit] = []
    named: list[str] = []
    unheld: list[str] = []
    chapters: list[CitedChapter] = []
    for ref in refs:
        if not ref.sfs:
            continue
        if ref.sfs not in directory:
            if ref.sfs not in unheld:
                unheld.append(ref.sfs)
            continue
        if ref.sfs not in named:
            named.append(ref.sfs)
        citations = tuple(unit_citations(ref))
        unit = CitedUnit(ref.sfs, citations, ref.led)
        if citations and unit not in units:
            units.append(unit)
        chapter = CitedChapter(ref.sfs, ref.chapter) if ref.chapter and not citations else None
        if chapter and chapter not in chapters:
            chapters.append(chapter)
    return QuestionReferences(units=units, named=named, unheld=unheld, chapters=chapters)


def _with_prior(statute_hits: list[RetrievedChunk], general: list[RetrievedChunk],
                weight: float) -> list[RetrievedChunk]:
    """Interleave the search within the named statutes and the general one by rank.

    A chunk counts at its better (weighted) rank of the two lists, not the sum: a sum
    would put every named-statute section that also ranks in the general list above
    the general list's best other source, i.e. a fence again.
    """
    k = float(settings.RETRIEVAL_RRF_K)
    scores: dict[int, float] = {}
    by_id: dict[int, RetrievedChunk] = {}
    for factor, ranked in ((weight, statute_hits), (1.0, general)):
        for rank, chunk in enumerate(ranked, start=1):
            by_id.setdefault(chunk.chunk_id, chunk)
            scores[chunk.chunk_id] = max(scores.get(chunk.chunk_id, 0.0), factor / (k + rank))
    named = {c.chunk_id for c in statute_hits}
    # Equal ranks: the named statute's section first (that is the prior).
    order = sorted(scores, key=lambda cid: (-scores[cid], cid not in named, cid))
    return [by_id[cid] for cid in order]


def _relevant(chunks: list[RetrievedChunk], options: RetrievalOptions,
              kwq: KeywordQuery | None, *, beside_vectors: bool = False,
              about: frozenset[str] = frozenset()) -> list[RetrievedChunk]:
    """The sources close enough to the question to be worth showing (docs/retrieval.md, "Relevance threshold").

    A source the question cites is always kept, and so is one that mentions a document it cites that the
    knowledge base does not hold (mention_search), and one of a document the question is `about` by
    construction: what repealed such a document (Mentions.replacements); neither opens the gate for the
    other sources. Otherwise the question-to-source cosine
    similarity decides; a source with no vector (keyword mode, the embedder down, a file
    still being embedded) is judged by the share of the question's BM25 weight it matches.
    When nothing passes, the question gets no sources and the answer says so. With the
    question gate (RETRIEVAL_RELEVANCE_GATE, the default) a question one source passes keeps
    all its ranked sources; with "source" each source must pass. In hybrid mode a source in the band just
    over the floor (under RETRIEVAL_MIN_RELEVANCE_ALONE) must also match RETRIEVAL_BAND_KEYWORD_COVERAGE of
    the question's BM25 weight (docs/retrieval.md, "The band over the floor").

    `beside_vectors`: the question and some candidates have vectors, so sources are judged by their meaning,
    and a source still waiting for its vector needs RETRIEVAL_MIN_KEYWORD_COVERAGE_BESIDE_VECTORS of the
    question's weight. The low keyword floor is for keyword mode (the embedder down), where it is all there is; beside
    vectors it let an everyday word open the gate while the statute book was being embedded
    (docs/retrieval.md, "The floor with every regulation embedded").
    """
    floor = settings.RETRIEVAL_MIN_RELEVANCE if options.min_relevance is None else options.min_relevance
    if floor <= 0:
        return chunks
    full_match = kwq.full_match if kwq else 0.0
    coverage = (settings.RETRIEVAL_MIN_KEYWORD_COVERAGE_BESIDE_VECTORS if beside_vectors
                else settings.RETRIEVAL_MIN_KEYWORD_COVERAGE)
    # The band over the floor needs the keyword half's view of a source, so vector mode has none. It keeps its
    # width when a caller moves the floor (eval_abstain replays floors).
    band = (max(0.0, settings.RETRIEVAL_MIN_RELEVANCE_ALONE - settings.RETRIEVAL_MIN_RELEVANCE)
            if options.mode == "hybrid" else 0.0)
    alone = floor + band

    def share(chunk: RetrievedChunk) -> float:
        return chunk.keyword_rank / full_match if chunk.keyword_rank is not None and full_match else 0.0

    def kept_regardless(chunk: RetrievedChunk) -> bool:
        # A mention of a document the knowledge base does not hold, or a source of what repealed it: kept whatever
        # its similarity, but it says nothing of the other sources, so it opens no gate.
        return bool(chunk.extra.get("mentions")) or chunk.document_number in about

    kept = []
    for chunk in chunks:
        if chunk.reference_match:
            kept.append(chunk)
        elif kept_regardless(chunk):
            continue
        elif chunk.vector_similarity is not None:
            # Just over the floor, meaning alone is weak evidence: an everyday question about something else
            # (cooking, travel) sits that close to some practical rule without sharing its words.
            if (chunk.vector_similarity >= alone
                    or (chunk.vector_similarity >= floor and share(chunk) >= settings.RETRIEVAL_BAND_KEYWORD_COVERAGE)):
                kept.append(chunk)
        elif chunk.keyword_rank is not None and full_match and share(chunk) >= coverage:
            kept.append(chunk)
    if settings.RETRIEVAL_RELEVANCE_GATE == "question" and kept:
        # The floor tells whether the corpus has anything on the question at all; once a source passes,
        # the ranking decides the rest. Short everyday questions sit far from a §'s wording, and cutting
        # each source at the floor dropped their gold sections (docs/retrieval.md, "Relevance threshold").
        return chunks
    keep = {c.chunk_id for c in kept}
    return [c for c in chunks if c.chunk_id in keep or kept_regardless(c)]


def one_version_per_section(chunks: list[RetrievedChunk]) -> list[RetrievedChunk]:
    """Two temporal versions of one § ("/Träder i kraft I:…/") are two units with one citation:
    keep the better-ranked version's parts only, so the other does not take a second slot."""
    unit_of: dict[tuple, str] = {}
    kept: list[RetrievedChunk] = []
    for chunk in chunks:
        if chunk.source_type == "LEGAL_DOCUMENT" and chunk.citation:
            key = (chunk.source_id, chunk.citation)
            if unit_of.setdefault(key, chunk.unit) != chunk.unit:
                continue
        kept.append(chunk)
    return kept


def _merge(*ranked_lists: list[RetrievedChunk]) -> list[RetrievedChunk]:
    seen: set[int] = set()
    merged: list[RetrievedChunk] = []
    for ranked in ranked_lists:
        for chunk in ranked:
            if chunk.chunk_id not in seen:
                seen.add(chunk.chunk_id)
                merged.append(chunk)
    return merged


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 2)


def _log_timings(text: str, result: RetrievalResult, started: float) -> None:
    timings = {k: v for k, v in result.timings_ms.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    total = _ms(started)  # wall time: the embedding overlaps the first queries
    result.timings_ms["total"] = total
    fields = {"retrieval_" + k: v for k, v in timings.items()}
    fields.update(retrieval_total_ms=total, retrieval_mode=result.mode, retrieval_results=len(result.chunks),
                  retrieval_degraded=result.degraded)
    level = logging.WARNING if total > settings.RETRIEVAL_SLOW_MS else logging.DEBUG
    log.log(level, "retrieval %.1f ms (%s) for %r", total, timings, text[:80], extra=fields)
