"""The chapter's core sections for the context block (issue #30, failure class 3: chapter-level answers).

Many questions are answered by a chapter, not one § ("what counts as household work", "who may deduct
it"): the chapter's introductory § says what the chapter governs and its defining §§ say what its words
mean. For the chapters of the best statute hits, the block also gets those §§ (the whole chapter when it
is short), after every direct hit and every neighbouring §, so the token budget drops them first.
"""

from __future__ import annotations

import re

from django.conf import settings

from compliance.clock import swedish_today
from compliance.selectors import AccessScope
from compliance.sql import dict_cursor
from law.definitions import definitions_in

from .context_additions import score_after_hits
from .dating import in_force_on
from .hybrid import _NO_RANKS, _SELECT_COLUMNS, RetrievalOptions, _base_params, _filter_sql, _row_to_chunk
from .sources import RetrievedChunk

# A rubrik that announces the chapter's scope or its words.
_CORE_RUBRIK = re.compile(r"definition|ordförklaring|betydelse|tillämpningsområde|innehåll|inledande", re.IGNORECASE)


def _chapter_sql(where: str) -> str:
    """The chunks of the chapters that may be core: all of a short chapter, else its first § and the §§ that
    may define a word or sit under a core rubrik (checked again in Python). Reading only those keeps a long
    chapter's hundreds of §§ out of the pre-model step."""
    return f"""
    WITH ch AS (
      SELECT c.id, c.ordinal, c.header, c.text ~ '(avses|betyder)' AS defines,
             sum(c.token_count) OVER w AS total, min(c.ordinal) OVER w AS first_ordinal
      FROM chunks_contentchunk c
      JOIN unnest(%(ch_doc)s::bigint[], %(ch_chapter)s::text[]) AS a(doc, chapter)
        ON c.legal_document_id = a.doc AND c.chapter = a.chapter
      WHERE {where}
      WINDOW w AS (PARTITION BY c.legal_document_id, c.chapter))
    SELECT {_SELECT_COLUMNS}, 0.0 AS score, {_NO_RANKS},
           ch.total <= %(ch_full)s AS whole
    FROM ch
    JOIN chunks_contentchunk c ON c.id = ch.id
    LEFT JOIN compliance_legaldocument ld ON ld.id = c.legal_document_id
    WHERE ch.total <= %(ch_full)s OR ch.ordinal = ch.first_ordinal OR ch.defines OR ch.header ~* %(ch_rubrik)s
    ORDER BY c.legal_document_id, c.ordinal, c.id
    """


def _chapter_of(chunk: RetrievedChunk) -> str:
    match = re.match(r"(\d+ ?[a-z]?) kap\.", chunk.citation or "")
    return match.group(1).replace(" ", "") if match else ""


def chapter_sections(chunks: list[RetrievedChunk], scope: AccessScope, options: RetrievalOptions, *,
                     anchors: int | None = None, full_tokens: int | None = None) -> list[RetrievedChunk]:
    """The introductory and defining §§ of the chapters of the `anchors` best statute hits among `chunks`
    (every § of a chapter of at most `full_tokens` tokens), not already among `chunks`, in force today,
    in document order, each scored just below the weakest of `chunks`."""
    anchors = settings.RETRIEVAL_CHAPTER_ANCHORS if anchors is None else anchors
    full_tokens = settings.RETRIEVAL_CHAPTER_FULL_TOKENS if full_tokens is None else full_tokens
    chapters: list[tuple[int, str]] = []
    for chunk in chunks:
        if len(chapters) >= anchors:
            break
        chapter = _chapter_of(chunk) if chunk.source_type == "LEGAL_DOCUMENT" else ""
        if chapter and (chunk.source_id, chapter) not in chapters:
            chapters.append((chunk.source_id, chapter))
    if not chapters:
        return []
    params = _base_params(scope, 0)
    params.update(ch_doc=[doc for doc, _ in chapters], ch_chapter=[chapter for _, chapter in chapters],
                  ch_full=full_tokens, ch_rubrik=_CORE_RUBRIK.pattern)
    today = swedish_today()
    whole: set[tuple[int, str]] = set()
    rows: list[RetrievedChunk] = []
    with dict_cursor() as cursor:
        cursor.execute(_chapter_sql(_filter_sql(options, params, named=True)), params)
        for row in cursor.fetchall():
            chunk = _row_to_chunk(row)
            if chunk.citation and in_force_on(chunk, today):
                rows.append(chunk)
                if row["whole"]:
                    whole.add((chunk.source_id, _chapter_of(chunk)))
    taken = {(c.source_id, c.citation) for c in chunks}
    floor = score_after_hits(chunks, tier=2)  # after the neighbouring §§ and the acts
    out: list[RetrievedChunk] = []
    for doc, chapter in chapters:
        parts = [c for c in rows if c.source_id == doc and _chapter_of(c) == chapter]
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
                part.extra["chapter_of"] = f"{part.document_number} {chapter} kap."
                out.append(part)
        taken.update((doc, citation) for citation in core)
    return out
