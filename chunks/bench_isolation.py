"""What lets a benchmark run beside a user's instance without damaging it (issue #31, 3).

- A broker namespace of its own: every Redis key this process and the benchmark's workers use
  (queues, unacknowledged messages) starts with a prefix made for the run (kombu's
  `global_keyprefix`), so the instance's own worker never takes a benchmark task and the
  benchmark never purges or takes the instance's.
- An exact restore of the vectors it drops: they are copied into a table first, committed, and
  written back afterwards, however the run ends. A run killed outright leaves the table behind,
  and the next run (or `--restore`) writes it back before anything else.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import redis
from django.conf import settings
from django.db import connection, transaction
from django.db.backends.utils import CursorWrapper

from compliance.celery import app

from .models import ContentChunk, SourceType
from .services import chunks_lock, source_progress_refresh, sources_lock

SNAPSHOT_TABLE = "bench_vector_snapshot"
KEYPREFIX_ENV = "LAGRUM_BENCH_KEYPREFIX"
RESTORE_DOCS_PER_TRANSACTION = 20

# `celery worker` on the benchmark's broker namespace (the prefix comes from the environment).
WORKER_MAIN = (
    "import os, sys\n"
    "from compliance.celery import app\n"
    "app.conf.broker_transport_options = {**app.conf.broker_transport_options,\n"
    f"    'global_keyprefix': os.environ['{KEYPREFIX_ENV}']}}\n"
    "app.worker_main(sys.argv[1:])\n"
)


def new_keyprefix(name: str) -> str:
    return f"{name}-{uuid.uuid4().hex[:8]}:"


def _reset_producer_pools() -> None:
    # The app caches its connection and producer pools, taken from kombu's registry keyed by the
    # connection's transport options: dropping the app's references makes the next message use the
    # options set now. Never closed: the registry hands the same pool out again when they return.
    app._pool = None
    amqp = app.__dict__.get("amqp")
    if amqp is not None:
        amqp._producer_pool = None


@contextmanager
def private_broker(prefix: str) -> Iterator[None]:
    """Within the block, every task this process sends goes to keys starting with `prefix`."""
    original = app.conf.broker_transport_options
    app.conf.broker_transport_options = {**original, "global_keyprefix": prefix}
    _reset_producer_pools()
    try:
        yield
    finally:
        app.conf.broker_transport_options = original
        _reset_producer_pools()
        purge_namespace(prefix)


def purge_namespace(prefix: str) -> int:
    """Delete every broker key of the benchmark's namespace (and nothing else). Returns how many."""
    assert prefix.endswith(":") and len(prefix) > 8, prefix  # never a pattern that could match the instance's keys
    client = redis.Redis.from_url(app.conf.broker_url)
    keys = list(client.scan_iter(match=prefix + "*", count=1000))
    if keys:
        client.delete(*keys)
    return len(keys)


def start_worker(name: str, queues: str, prefix: str, log_path: Path) -> subprocess.Popen:
    """A `celery worker` (concurrency 1) on this process's database and broker, in the namespace `prefix`."""
    db = connection.settings_dict
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "MEDIA_ROOT": str(settings.MEDIA_ROOT), KEYPREFIX_ENV: prefix,
           # Where this process really enqueues: Celery's own env override can differ from settings.
           "CELERY_BROKER_URL": app.conf.broker_url,
           "DATABASE_URL": f"postgres://{db['USER']}:{db['PASSWORD']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"}
    with open(log_path, "wb") as log:  # the child keeps its own copy of the descriptor
        return subprocess.Popen(
            [sys.executable, "-c", WORKER_MAIN, "worker", "-l", "info", "--concurrency", "1", "-Q", queues,
             "-n", f"{name}@%h", "--without-gossip", "--without-mingle", "--without-heartbeat"],
            cwd=settings.BASE_DIR, env=env, stdout=log, stderr=subprocess.STDOUT,
        )


def stop_workers(workers: list[subprocess.Popen]) -> None:
    for proc in workers:
        proc.terminate()
    for proc in workers:
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)


def _rows(cursor: CursorWrapper) -> list[dict]:
    names = [col.name for col in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]


def snapshot_pending() -> int:
    """Rows a previous run left in the snapshot (it was killed before restoring); 0 when none."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass(%s) IS NOT NULL AS present", [SNAPSHOT_TABLE])
        if not _rows(cursor)[0]["present"]:
            return 0
        cursor.execute(f"SELECT count(*) AS n FROM {SNAPSHOT_TABLE}")
        return _rows(cursor)[0]["n"]


def snapshot_statute_vectors() -> int:
    """Copy every statute chunk's vector (NULL ones too: restoring NULL is exact) and commit it."""
    if snapshot_pending():
        raise RuntimeError(f"{SNAPSHOT_TABLE} still holds a previous run's vectors: restore them first")
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {SNAPSHOT_TABLE}")
        cursor.execute(f"CREATE TABLE {SNAPSHOT_TABLE} (id bigint PRIMARY KEY, legal_document_id bigint NOT NULL,"
                       " embedding vector, embedding_model varchar(100) NOT NULL)")
        cursor.execute(f"INSERT INTO {SNAPSHOT_TABLE} SELECT id, legal_document_id, embedding, embedding_model"
                       " FROM chunks_contentchunk WHERE source_type = %s", [SourceType.LEGAL_DOCUMENT])
        return cursor.rowcount


def restore_statute_vectors() -> int:
    """Write the snapshot back (chunks deleted since are skipped), recount progress, drop the snapshot.

    Each transaction takes the locks in the order the embedding services take them (the documents'
    rows, then their chunks in id order), so a worker still writing vectors cannot deadlock it.
    Returns how many chunks it wrote."""
    if not snapshot_pending():
        with connection.cursor() as cursor:
            cursor.execute(f"DROP TABLE IF EXISTS {SNAPSHOT_TABLE}")
        return 0
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT DISTINCT legal_document_id FROM {SNAPSHOT_TABLE} ORDER BY legal_document_id")
        doc_ids = [row["legal_document_id"] for row in _rows(cursor)]
    written = 0
    for start in range(0, len(doc_ids), RESTORE_DOCS_PER_TRANSACTION):
        part = doc_ids[start:start + RESTORE_DOCS_PER_TRANSACTION]
        sources = {(SourceType.LEGAL_DOCUMENT, doc_id) for doc_id in part}
        with transaction.atomic(), connection.cursor() as cursor:
            sources_lock(sources)
            chunks_lock(ContentChunk.objects.filter(legal_document_id__in=part))
            cursor.execute(
                f"UPDATE chunks_contentchunk c SET embedding = s.embedding, embedding_model = s.embedding_model"
                f" FROM {SNAPSHOT_TABLE} s WHERE c.id = s.id AND s.legal_document_id = ANY(%s)", [part])
            written += cursor.rowcount
            source_progress_refresh(sources)
            cursor.execute(f"DELETE FROM {SNAPSHOT_TABLE} WHERE legal_document_id = ANY(%s)", [part])
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {SNAPSHOT_TABLE}")
    return written
