"""Celery entry points. Thin: each calls a service and enqueues the next step.

Two queues: a user's own work (an uploaded file, a saved assessment, their
vectors) goes to INTERACTIVE_QUEUE, which workers always serve first; bulk
work (the statutes, re-embedding after a model change) to BULK_QUEUE.
`route_task` (CELERY_TASK_ROUTES) picks the queue from the source type or the
`bulk` flag, so callers never name a queue.
"""

from __future__ import annotations

import base64
import json
import logging
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from celery import Celery, Task, current_app, shared_task
from django.conf import settings
from django.db import transaction

from compliance.models import Assessment, ProcessingStatus, UserFile, Workspace

from . import services, vector_index
from .embedding import EmbeddingError
from .models import ContentChunk, SourceType
from .selectors import stale_sources, workspace_backlog, workspace_chunk_ids

if TYPE_CHECKING:  # for annotations only: every process imports this module, and kombu loads its transport itself
    from kombu.transport.redis import Channel
    from redis import Redis

log = logging.getLogger(__name__)

INTERACTIVE_QUEUE = "lagrum"
BULK_QUEUE = "lagrum-bulk"
QUEUES = (INTERACTIVE_QUEUE, BULK_QUEUE)  # in priority order (see CELERY_BROKER_TRANSPORT_OPTIONS)
RECOVERY_LOCK = "lagrum:embedding-recovery"

# Fairness across workspaces on the one interactive queue. The Redis transport keeps a list per
# queue and priority step (0, 3, 6, 9) and a worker takes from them step by step, lowest first,
# each queue in order within a step. A workspace's embedding batches get a step by their place in
# that workspace's backlog (chunks still waiting for a vector): its first FAIR_FIRST_BATCHES go
# at step 0, the next FAIR_NEXT_BATCHES at 3, the rest at 6. So a small upload in one workspace
# goes ahead of another workspace's deep backlog (a 2 MB file: ~70 batches), instead of after it,
# and two large uploads share the worker by turns of those sizes. Chunking (process_document)
# stays at step 0: keyword search works once a file is chunked. Bulk work (statutes, re-embeds)
# goes at step 9, after every interactive step: uploads still come before it.
FAIR_FIRST_BATCHES = 2
FAIR_NEXT_BATCHES = 8
BULK_PRIORITY = 9


def interactive_priority(position: int) -> int:
    """The priority step of a workspace's embedding batch at `position` (0-based) in its backlog."""
    if position < FAIR_FIRST_BATCHES:
        return 0
    if position < FAIR_FIRST_BATCHES + FAIR_NEXT_BATCHES:
        return 3
    return 6


def route_task(name: str, args: Sequence[Any], kwargs: dict[str, Any], options: dict[str, Any],
               task: Task | None = None, **kw: Any) -> dict[str, str | int]:
    """Celery router: statutes and re-embeds are bulk, everything a user is waiting for is interactive.
    An explicit priority (enqueue_embedding's fair steps) overrides the one given here."""
    if name == "chunks.tasks.process_document":
        source_type = args[0] if args else kwargs.get("source_type")
        bulk = source_type == SourceType.LEGAL_DOCUMENT
    elif name == "chunks.tasks.embed_chunks":
        bulk = bool((kwargs or {}).get("bulk"))
    else:
        bulk = False
    return {"queue": BULK_QUEUE, "priority": BULK_PRIORITY} if bulk else {"queue": INTERACTIVE_QUEUE}


@shared_task(acks_late=True, reject_on_worker_lost=True)
def process_document(source_type: str, source_id: int, force: bool = False) -> dict:
    result = services.chunk_document(source_type, source_id, force=force)
    enqueue_embedding(result.to_embed or [], bulk=source_type == SourceType.LEGAL_DOCUMENT)
    return {"chunks": result.chunks, "to_embed": len(result.to_embed or []), "skipped": result.skipped,
            "failed": result.failed}


def enqueue_processing(source_type: str, source_id: int, force: bool = False) -> None:
    """What the domain's processing port (compliance.processing) calls once a source is saved."""
    process_document.delay(source_type, source_id, force=force)


def enqueue_embedding(chunk_ids: list[int], *, bulk: bool | None = None) -> int:
    """Queue length-sorted batches. `bulk` None: statute chunks are bulk, a workspace's own interactive."""
    if not chunk_ids:
        return 0
    if bulk is None:
        statute = set(ContentChunk.objects.filter(pk__in=chunk_ids, source_type=SourceType.LEGAL_DOCUMENT)
                      .values_list("id", flat=True))
        groups = [(False, [c for c in chunk_ids if c not in statute]), (True, [c for c in chunk_ids if c in statute])]
    else:
        groups = [(bulk, list(chunk_ids))]
    n = 0
    for is_bulk, ids in groups:
        if not ids:
            continue
        if is_bulk:
            for batch in services.batches_by_length(ids, settings.EMBEDDING_BATCH_SIZE):
                embed_chunks.apply_async((batch,), {"bulk": True})
                n += 1
            continue
        # Per workspace, after what it already has waiting (see interactive_priority).
        for workspace_id, ws_ids in workspace_chunk_ids(ids).items():
            ahead = -(-workspace_backlog(workspace_id, exclude=ws_ids) // settings.EMBEDDING_BATCH_SIZE)
            for i, batch in enumerate(services.batches_by_length(ws_ids, settings.EMBEDDING_BATCH_SIZE)):
                embed_chunks.apply_async((batch,), {}, priority=interactive_priority(ahead + i))
                n += 1
    return n


def reembed_sources(*, legal_document_ids: Iterable[int] = (), user_file_ids: Iterable[int] = (),
                    assessment_ids: Iterable[int] = ()) -> int:
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
def embed_chunks(chunk_ids: list[int], bulk: bool = False) -> int:
    """`bulk` only routes the task (route_task). Returns how many chunks this call gave a vector."""
    try:
        embedded = services.embed_chunk_batch(chunk_ids)
    except EmbeddingError as exc:
        services.embedding_record_error(str(exc))  # the knowledge base shows the model as "fel"
        raise
    services.embedding_record_ok()
    return embedded


@shared_task(ignore_result=True)
def vector_index_repair() -> float | None:
    """Celery beat: build the vector graph if a load that dropped it to build it once died before it could
    (chunks/vector_index.py). Returns the build's seconds, or None when there was nothing to build."""
    return vector_index.vector_index_repair()


@shared_task(ignore_result=True)
def recover_stalled_embeddings() -> int:
    """Celery beat: re-enqueue chunks that have waited for a vector with no live task.

    A worker killed whole (main process and pool child) leaves its batch in the
    broker's unacknowledged set until the visibility timeout (an hour). Chunks
    older than EMBEDDING_RECOVERY_AFTER_SECONDS that no queued message and no
    running or reserved task on a live worker mentions are queued again.
    Idempotent: a chunk embedded twice is written and counted once
    (services.embed_chunk_batch). Returns how many chunks it queued.
    """
    app = current_app
    with app.connection_for_write() as conn:
        if conn.transport.driver_type != "redis":
            return 0  # listing waiting messages below is Redis-specific
        client = conn.default_channel.client
        # One recovery at a time across workers and hosts; expires on its own if this worker dies.
        if not client.set(RECOVERY_LOCK, "1", nx=True, ex=max(settings.EMBEDDING_RECOVERY_INTERVAL_SECONDS, 5)):
            return 0
        try:
            # Order matters: a message leaves the list for a worker, then its chunks get vectors; looking
            # at the list, then the workers, then the database, a batch is seen in at least one place.
            queued = _queued_chunk_ids(client, conn.default_channel)
            after = settings.EMBEDDING_RECOVERY_AFTER_SECONDS
            if not services.chunk_ids_stalled(older_than_s=after, exclude=queued, limit=1):
                return 0  # the usual case: asks no worker anything
            running = _running_chunk_ids(app)
            if running is None:
                return 0  # a worker did not answer: better wait than duplicate its batch
            stalled = services.chunk_ids_stalled(older_than_s=after, exclude=queued | running)
            if stalled:
                log.warning("re-enqueueing %d chunks that waited for a vector with no live task", len(stalled))
                enqueue_embedding(stalled)
            return len(stalled)
        finally:
            client.delete(RECOVERY_LOCK)


def _chunk_ids_of(name: str, args: Sequence[Any], kwargs: dict[str, Any]) -> list[int]:
    if name != embed_chunks.name:
        return []
    ids = args[0] if args else (kwargs or {}).get("chunk_ids", [])
    return [int(i) for i in ids]


def _queued_chunk_ids(client: Redis, channel: Channel) -> set[int]:
    """Chunk ids of every embed_chunks message waiting in our queues (every priority sub-list)."""
    ids: set[int] = set()
    for queue in QUEUES:
        for key in {channel._q_for_pri(queue, pri) for pri in channel.priority_steps}:
            for raw in client.lrange(key, 0, -1):
                message = json.loads(raw)
                body = message["body"]
                if message["properties"].get("body_encoding") == "base64":
                    body = base64.b64decode(body)
                args, kwargs, _embed = json.loads(body)
                ids.update(_chunk_ids_of(message["headers"].get("task"), args, kwargs))
    return ids


def _running_chunk_ids(app: Celery) -> set[int] | None:
    """Chunk ids of tasks running or reserved on live workers; None if a worker gave no answer."""
    inspect = app.control.inspect(timeout=settings.EMBEDDING_RECOVERY_INSPECT_TIMEOUT)
    pings = inspect.ping() or {}
    ids: set[int] = set()
    answered: set[str] = set()
    for reply in (inspect.active() or {}, inspect.reserved() or {}):
        for worker, tasks in reply.items():
            answered.add(worker)
            for task in tasks:
                ids.update(_chunk_ids_of(task.get("name"), task.get("args") or [], task.get("kwargs") or {}))
    if set(pings) - answered:
        return None
    return ids


def sync_workspace(workspace: Workspace) -> int:
    """"Synka nu": every own source whose text or embedding model changed is processed again, on the bulk
    queue (a user waiting on a single upload still goes first). Returns how many sources were queued."""
    stale = stale_sources(workspace)
    with transaction.atomic():
        UserFile.objects.filter(pk__in=stale["user_files"]).update(status=ProcessingStatus.PENDING, error_message="")
        Assessment.objects.filter(pk__in=stale["assessments"]).update(status=ProcessingStatus.PENDING,
                                                                      error_message="")
        ids = services.embeddings_drop(user_file_ids=stale["reembed_user_files"],
                                       assessment_ids=stale["reembed_assessments"])

        def enqueue() -> None:
            for source_type, key in ((SourceType.USER_FILE, "user_files"), (SourceType.ASSESSMENT, "assessments")):
                for source_id in stale[key]:
                    process_document.apply_async((source_type, source_id), {"force": True}, queue=BULK_QUEUE,
                                                 priority=BULK_PRIORITY)
            enqueue_embedding(ids, bulk=True)

        transaction.on_commit(enqueue)
    return (len(stale["user_files"]) + len(stale["assessments"]) + len(stale["reembed_user_files"])
            + len(stale["reembed_assessments"]))
