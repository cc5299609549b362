"""Celery entry points. Thin: each calls a service and enqueues the next step."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from . import services
from .embedding import EmbeddingError


@shared_task(acks_late=True, reject_on_worker_lost=True)
def process_document(source_type: str, source_id: int, force: bool = False) -> dict:
    result = services.chunk_document(source_type, source_id, force=force)
    enqueue_embedding(result.to_embed or [])
    return {"chunks": result.chunks, "to_embed": len(result.to_embed or []), "skipped": result.skipped,
            "failed": result.failed}


def enqueue_embedding(chunk_ids: list[int]) -> int:
    batches = services.batches_by_length(chunk_ids, settings.EMBEDDING_BATCH_SIZE) if chunk_ids else []
    for batch in batches:
        embed_chunks.delay(batch)
    return len(batches)


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
    from compliance.services import embedding_record_error, embedding_record_ok

    try:
        embedded = services.embed_chunk_batch(chunk_ids)
    except EmbeddingError as exc:
        embedding_record_error(str(exc))  # the knowledge base shows the model as "fel"
        raise
    embedding_record_ok()
    return embedded


@shared_task(acks_late=True)
def embed_pending() -> int:
    """Re-enqueue every chunk still lacking a vector: recovery after a crash, or a model change."""
    return enqueue_embedding(services.chunk_ids_needing_embedding())
