"""Reads of chunks and of the knowledge base's state, built on compliance's access scope.

"Which chunks may a scope see" is defined here once, twice over: as the SQL
predicate the retrieval query embeds (CHUNK_SCOPE_SQL) and as its ORM twin
(`chunk_list_visible`) for pages, statistics and admin. Keep them side by side
and change them together: shared statutes, plus the scope's workspaces' own
chunks, except those of deleted or private files, of file versions that are
not current (superseded, or a new version not yet processed) and of deleted assessments.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from django.core.cache import cache
from django.db.models import Count, F, Max, Q, QuerySet, Sum

from compliance.models import (
    LegalDocument,
    ProcessingStatus,
    UserFile,
    VersionState,
    Workspace,
)
from compliance.selectors import assessment_list, user_file_list
from compliance.sql import dict_cursor
from law.selectors import statute_book_currency, statute_book_progress

from .embedding import active_model_name
from .models import ContentChunk

# Whether a workspace chunk `c` is searchable at all, whoever asks: not of a deleted or private file,
# nor of a file version that is not current, nor of a deleted assessment. No parameters.
OWN_CHUNK_VISIBLE_SQL = """
    (c.user_file_id IS NULL OR EXISTS (
        SELECT 1 FROM compliance_userfile f
        WHERE f.id = c.user_file_id AND f.deleted_at IS NULL AND NOT f.is_private
          AND f.version_state = 'current'))
    AND (c.assessment_id IS NULL OR EXISTS (
        SELECT 1 FROM compliance_assessment a WHERE a.id = c.assessment_id AND a.deleted_at IS NULL))
"""

# Embeds %(workspace_ids)s: the workspaces the scope may read (AccessScope.workspace_ids).
CHUNK_SCOPE_SQL = f"""
(c.workspace_id IS NULL OR (
    c.workspace_id = ANY(%(workspace_ids)s) AND {OWN_CHUNK_VISIBLE_SQL}))
"""


# The shared statutes' searchable chunks, repealed statutes left out: what the
# retrieval's bridges, spelling and embedding neighbours draw the law's words from.
STATUTE_CHUNKS_SQL = ("c.workspace_id IS NULL AND c.source_type = 'LEGAL_DOCUMENT' AND c.retrievable "
                      "AND NOT c.document_repealed")


def chunk_list_visible(workspace_ids: Sequence[int]) -> QuerySet[ContentChunk]:
    """The ORM twin of CHUNK_SCOPE_SQL."""
    return ContentChunk.objects.filter(
        Q(workspace__isnull=True)
        | (
            Q(workspace_id__in=list(workspace_ids))
            & (Q(user_file__isnull=True) | Q(user_file__deleted_at__isnull=True, user_file__is_private=False,
                                             user_file__version_state=VersionState.CURRENT))
            & (Q(assessment__isnull=True) | Q(assessment__deleted_at__isnull=True))
        )
    )


def statute_vocabulary(words: Sequence[str]) -> set[str]:
    """Those of `words` that the shared statutes use (by Swedish stem): ordinary vocabulary.
    The statutes' own words, so no workspace's text decides what counts as a name."""
    if not words:
        return set()
    with dict_cursor() as cursor:
        cursor.execute("""
            SELECT DISTINCT w AS word FROM unnest(%s::text[]) AS w, unnest(to_tsvector('swedish', w)) AS v
            JOIN chunks_termstat ts ON ts.lexeme = v.lexeme WHERE ts.df > 0""", [list(words)])
        return {row["word"] for row in cursor.fetchall()}


def user_file_chunks(user_file: UserFile) -> QuerySet[ContentChunk]:
    """A file's chunks in document order. Only call with a file from `user_file_get`."""
    return ContentChunk.objects.filter(user_file=user_file).order_by("path")


def legal_document_chunks(doc: LegalDocument) -> QuerySet[ContentChunk]:
    """A statute's chunks, in document order."""
    return ContentChunk.objects.filter(legal_document=doc).order_by("path")


def legal_document_units_held(numbers: Iterable[str], citations: Iterable[str]) -> set[tuple[str, str]]:
    """Of the shared documents `numbers`, which hold a unit cited as one of `citations` (a unit's, "3 kap. 2 §",
    "artikel 6.1", or a chapter's, "3 kap."): (number, citation) pairs, read from their chunks. A link to a unit a
    document lacks (a repealed §, a slip in the text) goes to the document instead."""
    numbers, citations = list(numbers), set(citations)
    chapters = {citation.removesuffix(" kap."): citation for citation in citations if citation.endswith(" kap.")}
    if not numbers or not citations:
        return set()
    shared = ContentChunk.objects.filter(legal_document__isnull=False, document_number__in=numbers)
    held = set(shared.filter(citation__in=list(citations - set(chapters.values())))
               .values_list("document_number", "citation").distinct())
    if chapters:
        held |= {(number, chapters[chapter]) for number, chapter in
                 shared.filter(chapter__in=list(chapters)).values_list("document_number", "chapter").distinct()}
    return held


def legal_document_sections(document: LegalDocument) -> list[dict]:
    """The statute's sections in document order, from its chunks.

    A section that chunking split into parts ("00012.00000", "00012.00001")
    comes back whole: the parts' texts joined by blank lines.
    """
    rows = (legal_document_chunks(document)
            .values("path", "citation", "header", "text", "kind", "chapter", "section"))
    sections: list[dict] = []
    last_unit = None
    for row in rows:
        unit = row.pop("path").split(".", 1)[0]
        if sections and unit == last_unit:
            sections[-1]["text"] += "\n\n" + row["text"]
            continue
        sections.append(row)
        last_unit = unit
    return sections


# --- the knowledge base's figures -------------------------------------------------------
# Served from the per-source counters (chunks_total, chunks_embedded) that ingestion keeps
# on every statute, file and assessment, never from counts over the chunks table: the
# Kunskapsbas page polls these every 2 s while anything is processing.

EMBEDDING_ERROR_CACHE_KEY = "lagrum:embedding:last_error"
EMBED_RATE_CACHE_KEY = "chunks:embed-rate"  # chunks/s, a moving average kept by services.embed_chunk_batch
_ACTIVE = (ProcessingStatus.PENDING, ProcessingStatus.PROCESSING)


def _figures(workspace: Workspace) -> dict:
    """One aggregate per kind of source: three small queries, whatever the number of chunks."""
    active = Q(status__in=_ACTIVE)
    kinds = (
        # Files: private ones are listed but their chunks are never searched.
        (user_file_list(workspace), Q(is_private=False)),
        (assessment_list(workspace), Q()),
        (LegalDocument.objects.all(), Q()),
    )
    rows = [qs.order_by().aggregate(
        n=Count("id"), total=Sum("chunks_total", filter=searchable, default=0),
        embedded=Sum("chunks_embedded", filter=searchable, default=0),
        active=Count("id", filter=active), last=Max("processed_at"),
        queued=Count("id", filter=Q(status=ProcessingStatus.PENDING)),
        processing=Count("id", filter=Q(status=ProcessingStatus.PROCESSING)),
    ) for qs, searchable in kinds]
    return {"files": rows[0], "assessments": rows[1], "statutes": rows[2]}


def knowledge_stats(workspace: Workspace, figures: dict | None = None) -> dict:
    """Documents and searchable chunks the workspace sees, and how many have a vector."""
    figures = figures or _figures(workspace)
    total = sum(f["total"] for f in figures.values())
    embedded = sum(f["embedded"] for f in figures.values())
    return {
        "files": figures["files"]["n"],
        "assessments": figures["assessments"]["n"],
        "statutes": figures["statutes"]["n"],
        "chunks": total,
        "chunks_embedded": embedded,
        "embedded_share": round(embedded / total, 4) if total else 0.0,
    }


def chunk_index_size() -> dict:
    """Bytes used by the chunks table: its rows (with TOAST) and its indexes (catalog look-ups)."""
    table = ContentChunk._meta.db_table
    with dict_cursor() as cursor:
        cursor.execute(
            "SELECT pg_table_size(%s::regclass) AS table_bytes, pg_indexes_size(%s::regclass) AS index_bytes, "
            "pg_total_relation_size(%s::regclass) AS total_bytes",
            [table, table, table],
        )
        return dict(cursor.fetchone())


def embedding_state(workspace: Workspace, stats: dict | None = None) -> dict:
    """The embedding model and whether it works, as seen from one workspace.

    "fel" when the last embedding attempt failed (recorded by
    `services.embedding_record_error`, cleared by `embedding_record_ok`);
    otherwise "bäddar in" while any chunk the workspace can search still lacks a
    vector of the active model, and "klar" when none does.
    """
    stats = stats or knowledge_stats(workspace)
    pending = stats["chunks"] - stats["chunks_embedded"]
    error = cache.get(EMBEDDING_ERROR_CACHE_KEY)
    if error:
        state, label = "error", "fel"
    elif pending:
        state, label = "loading", "bäddar in"
    else:
        state, label = "ready", "klar"
    return {"model": active_model_name(), "state": state, "label": label, "pending": pending, "error": error or ""}


def knowledge_overview(workspace: Workspace) -> dict:
    """Every figure of the Kunskapsbas page in one dict."""
    figures = _figures(workspace)
    stats = knowledge_stats(workspace, figures)
    size = chunk_index_size()
    updates = [f["last"] for f in figures.values() if f["last"] is not None]
    book = statute_book_progress()
    return {
        **stats,
        "documents": stats["files"] + stats["assessments"] + stats["statutes"],
        "embedded_percent": round(100 * stats["embedded_share"], 1),
        "size": size,
        "size_mb": round(size["total_bytes"] / 1048576, 1),
        "index_mb": round(size["index_bytes"] / 1048576, 1),
        "embedding": embedding_state(workspace, stats),
        "last_update": max(updates) if updates else None,
        "processing": any(f["active"] for f in figures.values()) or bool(book and book.loading),
        "statute_book": book,
        "law_currency": statute_book_currency(),
        **queue_progress(figures),
    }


def embedding_rate() -> float | None:
    return cache.get(EMBED_RATE_CACHE_KEY)


def queue_progress(figures: dict) -> dict:
    """Honest progress: waiting vs. being worked on, and time left at the workers' measured rate.

    The workspace's own files and assessments go first (the interactive queue), so their
    estimate counts only their own chunks; "everything" includes the statutes behind them.
    """
    own = [figures["files"], figures["assessments"]]
    own_pending = sum(f["total"] - f["embedded"] for f in own)
    pending = own_pending + figures["statutes"]["total"] - figures["statutes"]["embedded"]
    rate = embedding_rate()
    return {
        "sources_queued": sum(f["queued"] for f in figures.values()),
        "sources_processing": sum(f["processing"] for f in figures.values()),
        "chunks_pending": pending,
        "own_chunks_pending": own_pending,
        "eta_seconds": round(pending / rate) if rate and pending else None,
        "own_eta_seconds": round(own_pending / rate) if rate and own_pending else None,
    }


def stale_sources(workspace: Workspace) -> dict:
    """The workspace's own sources that "Synka nu" re-processes: text changed since it was chunked (or its
    processing failed), or chunks without a vector of the active model. Deleted files are left alone."""
    text = Q(status=ProcessingStatus.FAILED) | ~Q(content_hash=F("chunked_hash"))
    files = user_file_list(workspace).filter(status__in=[ProcessingStatus.DONE, ProcessingStatus.FAILED])
    assessments = assessment_list(workspace).filter(status__in=[ProcessingStatus.DONE, ProcessingStatus.FAILED])
    old_model = ContentChunk.objects.filter(workspace=workspace).exclude(embedding_model=active_model_name())
    return {
        "user_files": list(files.filter(text).values_list("id", flat=True)),
        "assessments": list(assessments.filter(text).values_list("id", flat=True)),
        "reembed_user_files": sorted(set(old_model.filter(user_file__in=files.exclude(text))
                                         .values_list("user_file_id", flat=True))),
        "reembed_assessments": sorted(set(old_model.filter(assessment__in=assessments.exclude(text))
                                          .values_list("assessment_id", flat=True))),
    }


def workspace_chunk_ids(chunk_ids: list[int]) -> dict[int | None, list[int]]:
    """`chunk_ids` by workspace (None: statutes), in the given order."""
    owner = dict(ContentChunk.objects.filter(pk__in=chunk_ids).values_list("id", "workspace_id"))
    by_workspace: dict[int | None, list[int]] = {}
    for chunk_id in chunk_ids:
        if chunk_id in owner:  # a chunk deleted meanwhile has nothing to embed
            by_workspace.setdefault(owner[chunk_id], []).append(chunk_id)
    return by_workspace


def workspace_backlog(workspace_id: int | None, *, exclude: list[int]) -> int:
    """Chunks of the workspace still waiting for a vector of the active model, besides `exclude`."""
    return (ContentChunk.objects.filter(workspace_id=workspace_id)
            .filter(Q(embedding__isnull=True) | ~Q(embedding_model=active_model_name()))
            .exclude(pk__in=exclude).count())
