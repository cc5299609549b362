"""What the context block adds for the best hits' sake, beyond the ranked sources themselves.

The model answers from the block, not from the top 10, and a hit often needs company to be answered from
(issue #30, failure classes 3 and 4):
- the § before and after a strong statute hit (on legal prose the miss is mostly "right statute, neighbouring §");
- the units of agency regulations and EU acts that a hit cites ("artikel 9.1 i EU:s dataskyddsförordning");
- the introductory and defining §§ of the best hits' chapters (the whole chapter when it is short): many
  questions are answered by a chapter, not one § ("what counts as household work", "who may deduct it");
- the best §§ of the act that a regulation among the hits details (the act states the binding duty).

None of these change the ranking: the pre-model step (agent/answering/prepare.py) calls `block_sources`, a plain
search does not pay for them. Each added source scores just below the weakest hit (`score_after_hits`), so the
block takes it after every direct hit and the token budget drops it first. docs/retrieval.md: "Context recall and
the neighbouring §§", "Chapters in the context block", "The acts behind the regulations".
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable

from django.conf import settings
from django.db import DatabaseError

from compliance.clock import swedish_today
from compliance.models import LegalDocument
from compliance.selectors import AccessScope
from compliance.sql import dict_cursor
from law.definitions import definitions_in
from law.legal_refs import document_links, statute_links
from law.statute_directory import statute_directory

from .dating import in_force_on as chunk_in_force_on
from .chunk_queries import (
    CHUNK_COLUMNS,
    NO_RANKS,
    RetrievalOptions,
    filter_sql,
    row_to_chunk,
    run_chunk_query,
    search_params,
)
from .hybrid import (
    SLACK,
    CitedUnit,
    RetrievalResult,
    exact_reference_search,
    hybrid_search,
    one_version_per_section,
    unit_holds,
)
from .sources import RetrievedChunk


log = logging.getLogger(__name__)


def block_sources(result: RetrievalResult, scope: AccessScope, options: RetrievalOptions,
                  timings: dict[str, float]) -> list[RetrievedChunk]:
    """The hits, what the block adds for their sake, then the reserve (the ranked sources after the top k),
    each step timed into `timings`. A step that cannot read the database is left out: it only adds context,
    and the hits stand without it."""
    if not result.chunks:
        return result.chunks
    hits = anchoring(result.chunks)
    added: list[RetrievedChunk] = []
    steps: list[tuple[str, str, Callable[[], list[RetrievedChunk]]]] = [
        ("neighbours", "the neighbouring sections", lambda: neighbour_sections(hits, scope, options)),
        # The neighbours' citations count too: a § next to a hit may name the article that answers.
        ("cited", "the units the hits cite", lambda: cited_units([*hits, *added], scope, options)),
        ("chapters", "the chapters' core sections", lambda: chapter_sections(hits, scope, options)),
        ("acts", "the acts behind the regulations", lambda: detailed_act_sections(result, scope, options)),
    ]
    for stage, what, find in steps:
        t0 = time.perf_counter()
        try:
            added.extend(find())
        except DatabaseError:
            log.exception("could not read %s; the block goes without them", what)
        timings[stage] = round((time.perf_counter() - t0) * 1000, 3)
    # The reserve is scored by its own fused scores, below the hits, so the budget drops it before anything above.
    return [*result.chunks, *added, *result.reserve]


def anchoring(hits: list[RetrievedChunk]) -> list[RetrievedChunk]:
    """The hits the block adds sources for: not a source that only mentions a document the question cites and the
    knowledge base does not hold (mentions.mention_search). Its neighbours, chapter and act are about something
    else (a repealing provision sits in the last chapter of a regulation on another subject)."""
    return [c for c in hits if not c.extra.get("mentions")]


def score_after_hits(chunks: list[RetrievedChunk], *, tier: int = 1) -> float:
    """The score of a source the context block adds for the hits' sake (a neighbouring §, a cited unit, the
    act a regulation details, a chapter's core §): just below the weakest of `chunks`, so the block takes it
    after every direct hit. Tier 2 (the chapters' core §§) comes after tier 1 (everything else)."""
    return min(c.score for c in chunks) - tier * 1e-6


# --- neighbouring sections ---

# Ordinals around an anchor read to find the § before and after it (a § split in parts, headings and
# temporal versions sit between two §§).
NEIGHBOUR_WINDOW = 8


def _neighbours_sql(where: str) -> str:
    return f"""
    SELECT {CHUNK_COLUMNS}, 0.0 AS score, {NO_RANKS}
    FROM chunks_contentchunk c
    JOIN unnest(%(nb_doc)s::bigint[], %(nb_ord)s::int[]) AS a(doc, ord)
      ON c.legal_document_id = a.doc AND c.ordinal BETWEEN a.ord - %(nb_window)s AND a.ord + %(nb_window)s
    LEFT JOIN compliance_legaldocument ld ON ld.id = c.legal_document_id
    WHERE {where}
    ORDER BY c.legal_document_id, c.ordinal, c.id
    """


def neighbour_sections(chunks: list[RetrievedChunk], scope: AccessScope, options: RetrievalOptions, *,
                       anchors: int | None = None) -> list[RetrievedChunk]:
    """The § before and the § after each of the `anchors` best statute sections among `chunks` (in rank
    order), not already among them, in force today, under the same scope and filters. Each is scored just
    below the weakest of `chunks`, so a context block takes them only after every direct hit."""
    anchors = settings.RETRIEVAL_NEIGHBOUR_ANCHORS if anchors is None else anchors
    best: list[RetrievedChunk] = []
    for chunk in chunks:
        if len(best) >= anchors:
            break
        if chunk.source_type == "LEGAL_DOCUMENT" and chunk.citation and \
                all((b.source_id, b.citation) != (chunk.source_id, chunk.citation) for b in best):
            best.append(chunk)
    if not best:
        return []
    params = search_params(scope, 0)
    params.update(nb_doc=[c.source_id for c in best], nb_ord=[c.ordinal for c in best], nb_window=NEIGHBOUR_WINDOW)
    window = run_chunk_query(_neighbours_sql(filter_sql(options, params, named=True)), params)
    today = swedish_today()
    taken = {(c.source_id, c.citation) for c in chunks}
    floor = score_after_hits(chunks)
    out: list[RetrievedChunk] = []
    for anchor in best:
        around = [c for c in window if c.source_id == anchor.source_id and c.citation
                  and abs(c.ordinal - anchor.ordinal) <= NEIGHBOUR_WINDOW and chunk_in_force_on(c, today)]
        sections = list(dict.fromkeys(c.citation for c in around))  # in document order
        if anchor.citation not in sections:
            continue
        at = sections.index(anchor.citation)
        for citation in (sections[at - 1] if at > 0 else None, sections[at + 1] if at + 1 < len(sections) else None):
            if citation is None or (anchor.source_id, citation) in taken:
                continue
            taken.add((anchor.source_id, citation))
            for part in (c for c in around if c.citation == citation):
                part.score = floor
                part.extra["neighbour_of"] = anchor.chunk_id
                out.append(part)
    return out


# --- the statutes that the regulations among the best hits detail ---

def detailed_act_sections(result: RetrievalResult, scope: AccessScope,
                          options: RetrievalOptions) -> list[RetrievedChunk]:
    """The RETRIEVAL_ACT_SECTIONS §§ that answer the question best within the statutes that the agency
    regulations among the RETRIEVAL_ACT_ANCHORS best hits detail (LegalDocument.details_sfs), not already
    ranked, in force today, under the same scope. A question answered by a föreskrift is one about the act it
    fills in, and the act's words are often not the question's (the föreskrift names the trade's roles and tools,
    the act states the duty): searched within the act, its § is found. Each is scored just below the weakest hit, like
    the neighbouring §§, so the block takes them after every direct hit. Block-only work, like the neighbours:
    the pre-model step calls it, a plain search does not pay for it."""
    anchors, wanted = settings.RETRIEVAL_ACT_ANCHORS, settings.RETRIEVAL_ACT_SECTIONS
    if result.search is None:
        return []
    regulations = list(dict.fromkeys(c.document_number for c in anchoring(result.chunks)[:anchors]
                                     if c.content_type == LegalDocument.ContentType.AGENCY_REGULATION))
    if not regulations or not wanted:
        return []
    details = dict(LegalDocument.objects.filter(sfs_number__in=regulations).values_list("sfs_number", "details_sfs"))
    detailed_by: dict[str, str] = {}  # act -> the best-ranked regulation detailing it
    for regulation in regulations:
        for act in details.get(regulation, []):
            if not options.sfs_numbers or act in options.sfs_numbers:  # a limited search stays within its statutes
                detailed_by.setdefault(act, regulation)
    if not detailed_by:
        return []
    within = RetrievalOptions(**{**options.__dict__, "sfs_numbers": list(detailed_by)})
    found = hybrid_search(result.search.terms, scope, within, limit=wanted + SLACK, qvec=result.search.qvec,
                          mode=result.mode, kwq=result.search.kwq)
    taken = {(c.source_id, c.citation) for c in [*result.chunks, *result.reserve]}
    today = swedish_today()
    floor = score_after_hits(result.chunks)
    sections: list[tuple[int, str]] = []
    out: list[RetrievedChunk] = []
    for chunk in one_version_per_section(found):
        key = (chunk.source_id, chunk.citation)
        if not chunk.citation or key in taken or not chunk_in_force_on(chunk, today):
            continue
        if key not in sections:
            if len(sections) >= wanted:
                break
            sections.append(key)
        chunk.score = floor
        chunk.extra["act_of"] = detailed_by[chunk.document_number]
        out.append(chunk)
    return out


# --- units of regulations and EU acts that the best hits cite ---

# A hit citing more units than this in one chain ("Artiklarna 5–30 och 35–50 i EU:s dataskyddsförordning") names
# a scope, not a rule to read.
MAX_CITED_UNITS = 3


def cited_units(chunks: list[RetrievedChunk], scope: AccessScope, options: RetrievalOptions, *,
                anchors: int | None = None) -> list[RetrievedChunk]:
    """The units of agency regulations and EU acts that the `anchors` best statute sections among `chunks` cite
    (dataskyddslagen's "sådana uppgifter som avses i artikel 9.1 i EU:s dataskyddsförordning" brings article
    9.1), not already among them. Scored just below the weakest of `chunks`, like the neighbouring §§: a
    context block takes them after every direct hit."""
    anchors = settings.RETRIEVAL_NEIGHBOUR_ANCHORS if anchors is None else anchors
    best = [c for c in chunks if c.source_type == "LEGAL_DOCUMENT" and c.citation][:anchors]
    if not best:
        return []
    directory = statute_directory()
    units: list[CitedUnit] = []
    cited_by: dict[CitedUnit, int] = {}
    for anchor in best:
        links = document_links(anchor.text, directory, self_sfs=anchor.document_number)
        if anchor.content_type == LegalDocument.ContentType.AGENCY_REGULATION and settings.RETRIEVAL_CITED_ACTS:
            # The act § a regulation restates or fills in ("Av 3 kap. 6 § arbetsmiljölagen följer att …") is the
            # binding rule behind its words.
            links += statute_links(anchor.text, directory, self_sfs=anchor.document_number)
        for link in links:
            if link.number == anchor.document_number or not 0 < len(link.units) <= MAX_CITED_UNITS:
                continue
            for citations in link.units:
                unit = CitedUnit(link.number, citations)
                if unit not in cited_by:
                    cited_by[unit] = anchor.chunk_id
                    units.append(unit)
    taken = {c.chunk_id for c in chunks}
    floor = score_after_hits(chunks)
    out = []
    for chunk in exact_reference_search(units, scope, options):
        if chunk.chunk_id in taken:
            continue
        chunk.reference_match = False  # cited by a source, not by the question
        chunk.score = floor
        chunk.extra["cited_by"] = next(
            (anchor for unit, anchor in cited_by.items()
             if unit.number == chunk.document_number and any(unit_holds(c, chunk.citation) for c in unit.citations)),
            None)
        out.append(chunk)
    return out


# --- the core sections of the best hits' chapters ---

# A rubrik that announces the chapter's scope or its words.
_CORE_RUBRIK = re.compile(r"definition|ordförklaring|betydelse|tillämpningsområde|innehåll|inledande",
                          re.IGNORECASE)


def _chapter_sql(where: str) -> str:
    """The chunks of the chapters that may be core: all of a short chapter, else its first § and the §§ that
    may define a word or sit under a core rubrik (checked again in Python). Reading only those keeps a long
    chapter's hundreds of §§ out of the pre-model step.

    Both patterns are columns of `ch`, not conditions on it: a pattern in a condition makes the planner run it
    over the column's statistics to estimate its selectivity, which took 2 of the statement's 3 ms of planning
    (the case-insensitive rubrik pattern over the headers' most common values and histogram)."""
    return f"""
    WITH ch AS (
      SELECT c.id, c.ordinal, c.text ~ '(avses|betyder)' AS defines, c.header ~* %(ch_rubrik)s AS core_rubrik,
             sum(c.token_count) OVER w AS total, min(c.ordinal) OVER w AS first_ordinal
      FROM chunks_contentchunk c
      JOIN unnest(%(ch_doc)s::bigint[], %(ch_chapter)s::text[]) AS a(doc, chapter)
        ON c.legal_document_id = a.doc AND c.chapter = a.chapter
      -- A document without chapters is its §§ (and their allmänna råd), not its transitional provisions or appendices.
      WHERE (a.chapter <> '' OR c.kind IN ('section', 'advice')) AND {where}
      WINDOW w AS (PARTITION BY c.legal_document_id, c.chapter))
    SELECT {CHUNK_COLUMNS}, 0.0 AS score, {NO_RANKS},
           ch.total <= %(ch_full)s AS whole
    FROM ch
    JOIN chunks_contentchunk c ON c.id = ch.id
    LEFT JOIN compliance_legaldocument ld ON ld.id = c.legal_document_id
    WHERE ch.total <= %(ch_full)s OR ch.ordinal = ch.first_ordinal OR ch.defines OR ch.core_rubrik
    ORDER BY c.legal_document_id, c.ordinal, c.id
    """


# A § of a statute or regulation ("3 kap. 2 a §", "26 j §", "13 § allmänt råd").
_SECTION_CITATION = re.compile(r"\d+ ?[a-z]? §")


def _anchored_chapter(chunk: RetrievedChunk) -> str | None:
    """The chapter a statute hit anchors: the one its § sits in ("3", "2 a"), or "" for a § of a document without
    chapters, which is its own one chapter; None for a unit that is no § (transitional provisions, an appendix, an
    article) or no statute's."""
    if chunk.source_type != "LEGAL_DOCUMENT" or not _SECTION_CITATION.search(chunk.citation or ""):
        return None
    return chunk.chapter


def chapter_sections(chunks: list[RetrievedChunk], scope: AccessScope, options: RetrievalOptions, *,
                     anchors: int | None = None, full_tokens: int | None = None) -> list[RetrievedChunk]:
    """The introductory and defining §§ of the chapters of the `anchors` best statute hits among `chunks`
    (every § of a chapter of at most `full_tokens` tokens), not already among `chunks`, in force today,
    in document order, each scored just below the weakest of `chunks`. A document without chapters is its own
    one chapter (RETRIEVAL_UNCHAPTERED_ANCHORS): many laws and most regulations have none."""
    anchors = settings.RETRIEVAL_CHAPTER_ANCHORS if anchors is None else anchors
    full_tokens = settings.RETRIEVAL_CHAPTER_FULL_TOKENS if full_tokens is None else full_tokens
    chapters: list[tuple[int, str]] = []
    for chunk in chunks:
        if len(chapters) >= anchors:
            break
        chapter = _anchored_chapter(chunk)
        if chapter is None or (chapter == "" and not settings.RETRIEVAL_UNCHAPTERED_ANCHORS):
            continue
        if (chunk.source_id, chapter) not in chapters:
            chapters.append((chunk.source_id, chapter))
    if not chapters:
        return []
    params = search_params(scope, 0)
    params.update(ch_doc=[doc for doc, _ in chapters], ch_chapter=[chapter for _, chapter in chapters],
                  ch_full=full_tokens, ch_rubrik=_CORE_RUBRIK.pattern)
    today = swedish_today()
    whole: set[tuple[int, str]] = set()
    rows: list[RetrievedChunk] = []
    with dict_cursor() as cursor:
        cursor.execute(_chapter_sql(filter_sql(options, params, named=True)), params)
        for row in cursor.fetchall():
            chunk = row_to_chunk(row)
            if chunk.citation and chunk_in_force_on(chunk, today):
                rows.append(chunk)
                if row["whole"]:
                    whole.add((chunk.source_id, chunk.chapter))
    taken = {(c.source_id, c.citation) for c in chunks}
    floor = score_after_hits(chunks, tier=2)  # after the neighbouring §§, cited units and acts
    out: list[RetrievedChunk] = []
    for doc, chapter in chapters:
        parts = [c for c in rows if c.source_id == doc and c.chapter == chapter]
        sections = list(dict.fromkeys(c.citation for c in parts))  # document order
        if not sections:
            continue
        if (doc, chapter) in whole:
            core = set(sections)
        else:
            core = {sections[0]}
            for c in parts:
                rubrik = c.header.split(" > ")[-2] if c.header.count(" > ") >= 2 else ""
                if _CORE_RUBRIK.search(rubrik) or definitions_in(c.text):
                    core.add(c.citation)
        for part in parts:
            if part.citation in core and (doc, part.citation) not in taken:
                part.score = floor
                part.extra["chapter_of"] = f"{part.document_number} {chapter} kap." if chapter else part.document_number
                out.append(part)
        taken.update((doc, citation) for citation in core)
    return out
