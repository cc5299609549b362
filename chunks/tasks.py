"""Celery entry points. Thin: each calls a service and enqueues the next step."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings
from django.db import transaction

from . import services
from .embedding import EmbeddingError


@shared_task(acks_late=True, reject_on_worker_lost=True)
def process_document(source_type: str, source_id: int, force: bool = False) -> dict:
    result = services.chunk_document(source_type, source_id, force=force)
    enqueue_embedding(result.to_embed or [])
    return {"chunks": result.chunks, "to_embed": len(result.to_embed or []), "skipped": result.skipped,
            "failed": result.failed}


def enqueue_processing(source_type: str, source_id: int, force: bool = False) -> None:
    """What the domain's processing port (compliance.processing) calls once a source is saved."""
    process_document.delay(source_type, source_id, force=force)


def enqueue_embedding(chunk_ids: list[int]) -> int:
    batches = services.batches_by_length(chunk_ids, settings.EMBEDDING_BATCH_SIZE) if chunk_ids else []
    for batch in batches:
        embed_chunks.delay(batch)
    return len(batches)


def reembed_sources(*, legal_document_ids=(), user_file_ids=(), assessment_ids=()) -> int:
    """Drop the vectors of the given sources and enqueue them again, once the transaction commits."""
    ids = services.embeddings_drop(legal_document_ids=legal_document_ids, user_file_ids=user_file_ids,
                                   assessment_ids=assessment_ids)
    transaction.on_commit(lambda: enqueue_embedding(ids))
    return len(ids)


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(EmbeddingError, ConnectionError, TimeoutError),
    retry_backoff=2,
    retry_backoff_max=300,
    retry_jitter=True,
    max_retries=8,
)
def embed_chunks(chunk_ids: list[int]) -> int:
    try:
        embedded = services.embed_chunk_batch(chunk_ids)
    except EmbeddingError as exc:
        services.embedding_record_error(str(exc))  # the knowledge base shows the model as "fel"
        raise
    services.embedding_record_ok()
    return embedded
