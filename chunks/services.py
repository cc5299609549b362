"""Turning sources into chunks, and chunks into vectors.

chunk_document() replaces a source's chunks whole, in one transaction, so a
reader never sees a half-replaced document or the same section twice. A chunk
whose text is unchanged keeps its embedding. embed_chunk_batch() is idempotent:
it only touches chunks that still lack a vector of the active model, and the
batch commits at once, so a worker killed mid-batch leaves nothing half-done
and a redelivered batch embeds nothing twice.

Lock order. Every transaction here that writes chunks locks their sources' rows
first (sorted by source type and id), then the chunks themselves in id order,
and only then deletes or updates them: re-chunking a document, writing a batch
of vectors and dropping vectors all queue on the source row instead of each
holding chunk rows the other needs (issue #31: `chunk_document(force=True)`
deleting a statute's chunks while a worker wrote their vectors deadlocked, the
worker holding the chunks and waiting for the document's row, the re-chunk the
other way round). A batch whose chunks a re-chunk deleted meanwhile writes
nothing: their replacements have ids of their own and a task of their own.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta

import numpy as np
from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models import Count, F, Q, QuerySet
from django.utils import timezone

from compliance.errors import ApplicationError
from compliance.models import (
    Assessment,
    LegalDocument,
    ProcessingStatus,
    UserFile,
    Workspace,
    content_hash,
)
from compliance.selectors import user_file_versions
from compliance.services import (
    user_file_version_activate,
    user_file_versions_lock,
    workspace_touch_knowledge,
)
from law.models import StatuteRepeal

from .chunking import ChunkDraft, chunk_regulation, chunk_statute
from .embedding import active_model_name, get_provider, passage_text
from .extract import ExtractionError, extract_text
from .file_chunking import chunk_assessment, chunk_extracted
from .models import ContentChunk, SourceType
from .selectors import EMBED_RATE_CACHE_KEY, EMBEDDING_ERROR_CACHE_KEY
from .shipped_vectors import shipped_vectors

log = logging.getLogger(__name__)

SOURCE_MODELS = {
    SourceType.LEGAL_DOCUMENT: LegalDocument,
    SourceType.USER_FILE: UserFile,
    SourceType.ASSESSMENT: Assessment,
}
SOURCE_FK = {
    SourceType.LEGAL_DOCUMENT: "legal_document",
    SourceType.USER_FILE: "user_file",
    SourceType.ASSESSMENT: "assessment",
}


class SourceFailed(ApplicationError):
    """The source cannot be chunked; the message is shown on the file."""


@dataclass
class ChunkResult:
    source_type: str
    source_id: int
    skipped: bool = False
    failed: bool = False
    chunks: int = 0
    reused_embeddings: int = 0
    shipped_embeddings: int = 0
    to_embed: list[int] | None = None


def source_get(source_type: str, source_id: int) -> LegalDocument | UserFile | Assessment | None:
    model = SOURCE_MODELS[SourceType(source_type)]
    return model.objects.filter(pk=source_id).first()


@dataclass(frozen=True)
class _SourceDrafts:
    drafts: list[ChunkDraft]
    fields: dict  # ContentChunk fields every chunk of the source gets (its document's number and title, workspace)


def _drafts_for(source_type: str, source: LegalDocument | UserFile | Assessment) -> _SourceDrafts:
    """The source's chunk drafts, and the fields every chunk of it gets."""
    if source_type == SourceType.LEGAL_DOCUMENT:
        # A regulation's structure comes from its loader (LegalDocument.structure), not from its text.
        drafts = (chunk_regulation(source.title, source.sfs_number, source.structure) if source.structure
                  else chunk_statute(source.title, source.sfs_number, source.full_text))
        return _SourceDrafts(drafts, {"document_number": source.sfs_number, "document_title": source.title})
    if source_type == SourceType.USER_FILE:
        try:
            with source.file.open("rb") as fh:
                data = fh.read()
        except OSError as exc:
            raise SourceFailed("missing_file", "Den lagrade filen kunde inte läsas.") from exc
        try:
            extracted = extract_text(data, source.original_name, mime_type=source.mime_type or None,
                                     max_bytes=_max_upload_bytes())
        except ExtractionError as exc:
            raise SourceFailed(exc.code, exc.message) from exc
        if extracted.page_count:
            UserFile.objects.filter(pk=source.pk).update(page_count=extracted.page_count)
        drafts = chunk_extracted(source.title or source.original_name, extracted)
        return _SourceDrafts(drafts, {"document_title": source.title or source.original_name,
                                      "workspace_id": source.workspace_id})
    if source_type == SourceType.ASSESSMENT:
        doc = source.legal_document
        drafts = chunk_assessment(
            title=source.title,
            statute_title=doc.title if doc else None,
            section_ref=source.section_ref or None,
            status_label=source.get_compliance_status_display(),
            notes=source.notes,
            owner=(source.owner.get_full_name() or source.owner.get_username()) if source.owner else None,
            due_date=source.due_date.isoformat() if source.due_date else None,
        )
        return _SourceDrafts(drafts, {
            "document_title": f"Bedömning: {source.title}",
            "document_number": doc.sfs_number if doc else "",
            "workspace_id": source.workspace_id,
        })
    raise ValueError(source_type)


def _max_upload_bytes() -> int:
    return settings.MAX_UPLOAD_BYTES


def _source_hash(source_type: str, source: LegalDocument | UserFile | Assessment) -> str:
    if source_type == SourceType.ASSESSMENT:
        parts = [source.title, str(source.legal_document_id), source.section_ref, source.compliance_status,
                 source.notes, str(source.owner_id), str(source.due_date)]
        return content_hash("\x1f".join(parts))
    return source.content_hash


def chunk_document(source_type: str, source_id: int, *, force: bool = False) -> ChunkResult:
    source_type = SourceType(source_type)
    model = SOURCE_MODELS[source_type]
    result = ChunkResult(source_type, source_id)
    source = source_get(source_type, source_id)
    if source is None:
        result.skipped = True  # deleted before the worker got to it: nothing to do
        return result
    digest = _source_hash(source_type, source)
    if not force and source.chunked_hash == digest and source.status == ProcessingStatus.DONE:
        result.skipped = True
        return result
    model.objects.filter(pk=source_id).update(status=ProcessingStatus.PROCESSING, error_message="")
    try:
        prepared = _drafts_for(source_type, source)
        drafts, extra = prepared.drafts, prepared.fields
    except SourceFailed as exc:
        _mark_failed(source_type, source, exc.message)
        result.failed = True
        return result
    except Exception:  # a parser bug must not kill the worker loop or hide the file's fate
        log.exception("chunking failed for %s %s", source_type, source_id)
        _mark_failed(source_type, source, "Dokumentet kunde inte bearbetas. Försök igen eller kontakta support.")
        result.failed = True
        return result
    if not drafts:
        _mark_failed(source_type, source, "Dokumentet innehåller ingen text att söka i.")
        result.failed = True
        return result
    _replace_chunks(source_type, source, drafts, extra, digest, result)
    return result


def _mark_failed(source_type: str, source: LegalDocument | UserFile | Assessment, message: str) -> None:
    model = SOURCE_MODELS[SourceType(source_type)]
    model.objects.filter(pk=source.pk).update(status=ProcessingStatus.FAILED, error_message=message,
                                              processed_at=timezone.now())


def _replace_chunks(source_type: SourceType, source: LegalDocument | UserFile | Assessment, drafts: list[ChunkDraft],
                    extra: dict, digest: str, result: ChunkResult) -> None:
    fk = SOURCE_FK[source_type]
    model_name = active_model_name()
    with transaction.atomic():
        model = SOURCE_MODELS[source_type]
        if source_type == SourceType.USER_FILE:
            user_file_versions_lock(source.workspace_id)  # before the file's row: the services' lock order
            # Every version's row, in id order (the module's lock order), not only this one's: activating
            # this version below updates the current one's row, and a recovery batch may hold chunks of
            # both versions, its worker locking their rows in id order.
            root = source.document_id
            list(UserFile.objects.select_for_update().filter(workspace_id=source.workspace_id)
                 .filter(Q(pk=source.pk) | Q(pk=root) | Q(version_of_id=root)).order_by("pk")
                 .values_list("pk", flat=True))
        else:
            # Lock the source row: two workers re-chunking the same document serialise here.
            model.objects.select_for_update().filter(pk=source.pk).first()
        reusable = Q(**{fk: source.pk})
        if source_type == SourceType.USER_FILE:
            # A new version mostly repeats the old one: its unchanged passages keep their vectors.
            reusable |= Q(user_file__in=user_file_versions(source).values("pk"))
        old = {
            row["content_hash"]: (row["embedding"], row["embedding_model"])
            for row in ContentChunk.objects.filter(reusable, embedding__isnull=False, embedding_model=model_name)
            .values("content_hash", "embedding", "embedding_model")
        }
        # Bundled statutes come with precomputed vectors, keyed by the embedded text's hash.
        shipped = shipped_vectors() if source_type == SourceType.LEGAL_DOCUMENT else None
        # The chunks in id order before deleting them: a DELETE would lock them in whatever order it
        # finds them (see the module's lock order).
        chunks_lock(ContentChunk.objects.filter(**{fk: source.pk}))
        ContentChunk.objects.filter(**{fk: source.pk}).delete()
        # A repealed statute chunked again (a re-chunk, a new chunker) stays out of ordinary retrieval.
        repealed = (source_type == SourceType.LEGAL_DOCUMENT
                    and StatuteRepeal.objects.filter(document_id=source.pk).exists())
        new_chunks = []
        for draft in drafts:
            chash = content_hash(passage_text(draft.header, draft.text))
            embedding, emb_model = old.get(chash, (None, ""))
            if embedding is None and shipped is not None and (vector := shipped.get(chash)) is not None:
                embedding, emb_model = vector, model_name
                result.shipped_embeddings += 1
            new_chunks.append(ContentChunk(
                source_type=source_type, **{fk: source}, header=draft.header[:1000], path=draft.path,
                ordinal=draft.ordinal, citation=(draft.citation or "")[:200], chapter=draft.chapter or "",
                section=draft.section or "", page=draft.page, kind=draft.kind, retrievable=draft.retrievable,
                document_repealed=repealed, text=draft.text,
                token_count=draft.token_count, content_hash=chash, embedding=embedding,
                embedding_model=emb_model, **extra,
            ))
        created = ContentChunk.objects.bulk_create(new_chunks, batch_size=500)
        result.chunks = len(created)
        result.reused_embeddings = sum(1 for c in created if c.embedding is not None)
        result.to_embed = [c.pk for c in created if c.embedding is None]
        model.objects.filter(pk=source.pk).update(
            chunked_hash=digest, chunks_total=len(created), chunks_embedded=result.reused_embeddings,
            status=ProcessingStatus.DONE if not result.to_embed else ProcessingStatus.PROCESSING,
            processed_at=timezone.now() if not result.to_embed else None, error_message="",
        )
        if source_type == SourceType.USER_FILE:
            # A new version takes over from the old one together with its chunks, never before.
            user_file_version_activate(source.pk)
        workspace_id = extra.get("workspace_id")
        if workspace_id:
            workspace_touch_knowledge(workspace_id)
        else:
            # A shared statute changed: every workspace's cached retrievals may be stale.
            Workspace.objects.update(knowledge_version=F("knowledge_version") + 1)


def chunks_document_repealed_mark(document_id: int) -> int:
    """Take a repealed statute's chunks out of ordinary retrieval (a question naming it still finds them).
    Returns how many chunks were marked."""
    with transaction.atomic():
        marked = ContentChunk.objects.filter(legal_document_id=document_id, document_repealed=False).update(
            document_repealed=True)
        if marked:
            # Every workspace's cached retrievals may hold the statute's sections.
            Workspace.objects.update(knowledge_version=F("knowledge_version") + 1)
    return marked


def embed_chunk_batch(chunk_ids: list[int]) -> int:
    """Embed the chunks among `chunk_ids` that still need it. Returns how many were embedded."""
    model_name = active_model_name()
    pending = list(
        ContentChunk.objects.filter(pk__in=chunk_ids)
        .filter(Q(embedding__isnull=True) | ~Q(embedding_model=model_name))
        .only("id", "header", "text", "content_hash", "legal_document_id", "user_file_id", "assessment_id")
        .order_by("id")
    )
    if not pending:
        return 0
    vectors = shipped_for_pending(pending)
    to_compute = [c for c in pending if c.pk not in vectors]
    if to_compute:
        started = time.monotonic()
        computed = get_provider().embed_passages([passage_text(c.header, c.text) for c in to_compute])
        embedding_rate_record(len(to_compute), time.monotonic() - started)
        vectors.update((c.pk, vector) for c, vector in zip(to_compute, computed))
    # Vectors and progress commit together: a worker killed in between leaves both as they were.
    with transaction.atomic():
        # Sources first, then chunks (the module's lock order): a re-chunk of one of these sources
        # either finished before (its old chunks are gone and skipped here) or waits for this commit.
        sources_lock({chunk_source_key(c) for c in pending})
        # Another worker may have embedded some of these meanwhile (a redelivered or recovered batch):
        # the row locks serialise the two, and only chunks still there and still pending are written
        # and counted.
        still_pending = set(chunks_lock(
            ContentChunk.objects.filter(pk__in=[c.pk for c in pending])
            .filter(Q(embedding__isnull=True) | ~Q(embedding_model=model_name))
        ))
        todo = []
        for chunk in pending:
            if chunk.pk in still_pending:
                chunk.embedding = vectors[chunk.pk]
                chunk.embedding_model = model_name
                todo.append(chunk)
        ContentChunk.objects.bulk_update(todo, ["embedding", "embedding_model"], batch_size=200)
        source_progress_refresh({chunk_source_key(c) for c in todo})
    return len(todo)


def shipped_for_pending(pending: list[ContentChunk]) -> dict[int, np.ndarray]:
    """{chunk id: vector} for the statute chunks among `pending` whose exact text a shipped vector file
    covers. A statute chunked before a newer file arrived (an unchanged text is not re-chunked on reload)
    still takes the shipped vector instead of a model run: the same computation's result, by hash."""
    if not any(c.legal_document_id for c in pending):
        return {}
    shipped = shipped_vectors()
    if shipped is None:
        return {}
    return {c.pk: vector for c in pending
            if c.legal_document_id and (vector := shipped.get(c.content_hash)) is not None}


def sources_lock(sources: set[tuple[str, int]]) -> None:
    """Lock the rows of `sources` ((source type, id) pairs) in one global order, before any of their
    chunks. FOR NO KEY UPDATE: what the progress update takes anyway; it queues behind a re-chunk's
    FOR UPDATE and beside nothing else (new chunks referencing the row still go in)."""
    for source_type, source_id in sorted(sources):
        list(SOURCE_MODELS[SourceType(source_type)].objects.select_for_update(no_key=True)
             .filter(pk=source_id).values_list("pk", flat=True))


def chunks_lock(queryset: QuerySet[ContentChunk]) -> list[int]:
    """Lock the chunks `queryset` selects in id order; returns their ids (vanished ones are not among them)."""
    return list(queryset.select_for_update().order_by("id").values_list("id", flat=True))


def embedding_rate_record(chunks: int, seconds: float) -> None:
    """A moving average of the workers' chunks per second, for the time-left estimate (shared via the cache)."""
    if chunks <= 0 or seconds <= 0:
        return
    rate = chunks / seconds
    previous = cache.get(EMBED_RATE_CACHE_KEY)
    cache.set(EMBED_RATE_CACHE_KEY, rate if previous is None else 0.8 * previous + 0.2 * rate, timeout=86400)


def chunk_source_key(chunk: ContentChunk) -> tuple[str, int]:
    if chunk.legal_document_id:
        return SourceType.LEGAL_DOCUMENT, chunk.legal_document_id
    if chunk.user_file_id:
        return SourceType.USER_FILE, chunk.user_file_id
    return SourceType.ASSESSMENT, chunk.assessment_id


def source_progress_refresh(sources: set[tuple[str, int]]) -> None:
    """Progress is counted, never incremented: a redelivered batch cannot double it."""
    model_name = active_model_name()
    for source_type, source_id in sorted(sources):  # one lock order: concurrent batches never deadlock
        fk = SOURCE_FK[source_type]
        counts = ContentChunk.objects.filter(**{fk: source_id}).aggregate(
            total=Count("id"), embedded=Count("id", filter=Q(embedding__isnull=False, embedding_model=model_name)),
        )
        done = counts["total"] > 0 and counts["embedded"] == counts["total"]
        update = {"chunks_total": counts["total"], "chunks_embedded": counts["embedded"]}
        if done:
            update.update(status=ProcessingStatus.DONE, processed_at=timezone.now())
        SOURCE_MODELS[source_type].objects.filter(pk=source_id).exclude(status=ProcessingStatus.FAILED).update(**update)


def chunk_ids_needing_embedding(*, limit: int | None = None) -> list[int]:
    """Chunks without a vector of the active model, in document order (for reembed / recovery)."""
    qs = (ContentChunk.objects.filter(Q(embedding__isnull=True) | ~Q(embedding_model=active_model_name()))
          .order_by("legal_document_id", "user_file_id", "assessment_id", "path").values_list("id", flat=True))
    return list(qs[:limit] if limit else qs)


def chunk_ids_stalled(*, older_than_s: float, exclude: set[int], limit: int | None = None) -> list[int]:
    """Chunks without a vector of the active model, created more than `older_than_s` ago, not in `exclude`."""
    cutoff = timezone.now() - timedelta(seconds=older_than_s)
    qs = (ContentChunk.objects.filter(Q(embedding__isnull=True) | ~Q(embedding_model=active_model_name()))
          .filter(created_at__lt=cutoff).order_by("id").values_list("id", flat=True))
    stalled = []
    for cid in qs.iterator(chunk_size=2000):
        if cid not in exclude:
            stalled.append(cid)
            if limit and len(stalled) >= limit:
                break
    return stalled


def batches_by_length(chunk_ids: list[int], batch_size: int) -> list[list[int]]:
    """Group chunks of similar length: the model pads each batch to its longest text."""
    lengths = dict(ContentChunk.objects.filter(pk__in=chunk_ids).values_list("id", "token_count"))
    ordered = sorted(chunk_ids, key=lambda cid: lengths.get(cid, 0))
    return [ordered[i:i + batch_size] for i in range(0, len(ordered), batch_size)]


def embedding_record_error(message: str) -> None:
    """Record that the last embedding attempt failed (the Kunskapsbas page shows the model as "fel")."""
    cache.set(EMBEDDING_ERROR_CACHE_KEY, (message or "fel")[:500], timeout=None)


def embedding_record_ok() -> None:
    """Record that an embedding attempt succeeded: clears a recorded error."""
    cache.delete(EMBEDDING_ERROR_CACHE_KEY)


_DROP_KWARG = {SourceType.LEGAL_DOCUMENT: "legal_document_ids", SourceType.USER_FILE: "user_file_ids",
               SourceType.ASSESSMENT: "assessment_ids"}


def embeddings_drop(*, legal_document_ids: Iterable[int] = (), user_file_ids: Iterable[int] = (),
                    assessment_ids: Iterable[int] = ()) -> list[int]:
    """Clear the vectors of the given sources; returns the ids of the chunks to embed again."""
    legal_document_ids, user_file_ids, assessment_ids = (list(legal_document_ids), list(user_file_ids),
                                                         list(assessment_ids))
    sources = ({(SourceType.LEGAL_DOCUMENT, i) for i in legal_document_ids}
               | {(SourceType.USER_FILE, i) for i in user_file_ids}
               | {(SourceType.ASSESSMENT, i) for i in assessment_ids})
    with transaction.atomic():
        sources_lock(sources)  # the module's lock order, as a worker writing these vectors takes it
        ids = chunks_lock(ContentChunk.objects.filter(
            Q(legal_document_id__in=list(legal_document_ids)) | Q(user_file_id__in=list(user_file_ids))
            | Q(assessment_id__in=list(assessment_ids))
        ))
        ContentChunk.objects.filter(pk__in=ids).update(embedding=None, embedding_model="")
    return ids


def embeddings_drop_all() -> list[int]:
    """Clear every chunk's vector (`reembed --all`), a few sources per transaction (short lock holds)."""
    ids: list[int] = []
    for source_type, kwarg in _DROP_KWARG.items():
        fk = f"{SOURCE_FK[source_type]}_id"
        source_ids = sorted(set(ContentChunk.objects.filter(source_type=source_type).values_list(fk, flat=True)))
        for start in range(0, len(source_ids), 50):
            ids += embeddings_drop(**{kwarg: source_ids[start:start + 50]})
    return ids
