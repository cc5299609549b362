"""The HNSW graph over the chunks' vectors (`chunk_embedding_hnsw`), and when a bulk load builds it once.

A chunk written with a vector is linked into the graph as it is inserted, and each insert costs in proportion
to the graph's build list (`ef_construction`, chunks/models.py): on 2 cores about 6 ms a chunk at 256, against
under 1 ms a chunk when the whole graph is built at once from the table (docs/retrieval.md, "How well the HNSW
graph is built"). So a load that writes a large share of what the graph holds drops the graph first and builds
it once at the end (`vector_index_plan`, `vector_index_rebuilt_after`). Searches meanwhile scan the vectors
exactly: the same results, only slower (about 0.3 s a question at 35,000 chunks), which is why a load onto a
database that is serving users can keep the graph and pay per chunk instead (the loaders' --keep-vector-index).

A loader that dies between the drop and the build leaves no graph. The next load builds it, and so does the
periodic check (chunks.tasks.vector_index_repair); a session advisory lock, which Postgres releases when the
loader's connection ends, keeps the check from building a graph that a running load dropped on purpose.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from django.conf import settings
from django.db import connection
from pgvector.django import HnswIndex

from compliance.sql import dict_cursor

from .models import ContentChunk

log = logging.getLogger(__name__)

VECTOR_INDEX_NAME = "chunk_embedding_hnsw"
# pg_advisory_lock key held while a load has the graph dropped (an arbitrary constant of our own).
GRAPH_ABSENT_LOCK = 7_140_301
# How often a load waiting for that lock tries it again (_take_graph_absent_lock says why it does not block).
GRAPH_LOCK_POLL_SECONDS = 0.5


def _model_index() -> HnswIndex:
    return next(index for index in ContentChunk._meta.indexes if index.name == VECTOR_INDEX_NAME)


@dataclass(frozen=True)
class VectorIndexStatus:
    exists: bool
    valid: bool  # false: a concurrent build that failed half-way left it (Postgres keeps such an index, unused)
    m: int | None
    ef_construction: int | None

    @property
    def usable(self) -> bool:
        return self.exists and self.valid


def vector_index_status() -> VectorIndexStatus:
    """Whether the graph is there for searches to use, and the parameters it was built with."""
    with dict_cursor() as cursor:
        cursor.execute(
            "SELECT i.indisvalid AS valid, c.reloptions AS options FROM pg_class c "
            "JOIN pg_index i ON i.indexrelid = c.oid WHERE c.relname = %s AND c.relkind = 'i'",
            [VECTOR_INDEX_NAME])
        row = cursor.fetchone()
    if row is None:
        return VectorIndexStatus(exists=False, valid=False, m=None, ef_construction=None)
    options = dict(option.split("=", 1) for option in row["options"] or [])
    return VectorIndexStatus(exists=True, valid=row["valid"], m=int(options.get("m", 16)),
                             ef_construction=int(options.get("ef_construction", 64)))


@dataclass(frozen=True)
class VectorIndexPlan:
    rebuild: bool
    reason: str  # "missing", "bulk" (the load is large against the graph), "small", "kept", "nothing"
    pending_chars: int  # text the load will chunk
    indexed_chars: int  # text of the chunks the graph holds now

    def describe(self) -> str:
        """One Swedish line for the loaders' output."""
        if self.reason == "missing":
            return "Vektorindexet saknas: det byggs när inläsningen är klar."
        if self.rebuild:
            return ("Vektorindexet byggs om när inläsningen är klar (snabbare än att lägga in avsnitt för avsnitt; "
                    "vektorsökningar är långsammare under tiden).")
        return ""


def indexed_text_chars() -> int:
    """Characters of text in the chunks that have a vector: what the graph holds, in the units a loader's
    pending work is measured in (a document's text, before it is chunked)."""
    with dict_cursor() as cursor:
        cursor.execute("SELECT coalesce(sum(length(text)), 0) AS chars FROM chunks_contentchunk "
                       "WHERE embedding IS NOT NULL")
        return int(cursor.fetchone()["chars"])


def vector_index_plan(*, pending_chars: int, keep: bool = False) -> VectorIndexPlan:
    """Whether a load that will chunk `pending_chars` of text should build the graph once at its end.

    Yes when there is no usable graph, or when the text is at least VECTOR_INDEX_REBUILD_SHARE of what the
    graph holds: per-chunk inserts then cost more than building the whole graph again. `keep` keeps a usable
    graph regardless (a database that is serving searches), and so does a load inside a transaction."""
    if not vector_index_status().usable:
        return VectorIndexPlan(rebuild=True, reason="missing", pending_chars=pending_chars, indexed_chars=0)
    if pending_chars <= 0:
        return VectorIndexPlan(rebuild=False, reason="nothing", pending_chars=0, indexed_chars=0)
    if keep or connection.in_atomic_block:
        # Inside a caller's transaction the graph could only be dropped with the table locked against every
        # search until that transaction ends, and built without CONCURRENTLY: it stays, and takes the chunks.
        return VectorIndexPlan(rebuild=False, reason="kept", pending_chars=pending_chars, indexed_chars=0)
    indexed = indexed_text_chars()
    bulk = pending_chars >= settings.VECTOR_INDEX_REBUILD_SHARE * indexed
    return VectorIndexPlan(rebuild=bulk, reason="bulk" if bulk else "small", pending_chars=pending_chars,
                           indexed_chars=indexed)


def _concurrently() -> bool:
    """CREATE/DROP INDEX CONCURRENTLY cannot run inside a transaction block (a test's, or a caller's atomic()):
    there the plain statements do the same, locking out writes to the table while they run. Postgres refuses
    those while the transaction has deferred foreign-key checks pending on the table, so they are run first."""
    if not connection.in_atomic_block:
        return True
    connection.check_constraints()
    return False


def vector_index_drop() -> None:
    with connection.schema_editor(atomic=False) as editor:
        editor.remove_index(ContentChunk, _model_index(), concurrently=_concurrently())


def vector_index_build() -> float:
    """Build the graph from the table as chunks/models.py defines it (dropping a half-built one first);
    returns the seconds it took. Concurrently where it can: writes go on meanwhile."""
    started = time.perf_counter()
    status = vector_index_status()
    if status.usable:
        return 0.0
    if status.exists:
        vector_index_drop()
    with connection.cursor() as cursor:
        # The graph is built in memory as long as it fits; past it the build slows several times over.
        cursor.execute(f"SET maintenance_work_mem = '{int(settings.VECTOR_INDEX_BUILD_MEMORY_MB)}MB'")
    try:
        with connection.schema_editor(atomic=False) as editor:
            editor.add_index(ContentChunk, _model_index(), concurrently=_concurrently())
    finally:
        with connection.cursor() as cursor:
            cursor.execute("RESET maintenance_work_mem")
    seconds = time.perf_counter() - started
    log.info("built %s in %.1f s", VECTOR_INDEX_NAME, seconds)
    return seconds


@dataclass
class VectorIndexRebuild:
    """What `vector_index_rebuilt_after` did: filled in as it goes, read by the loaders' report."""
    plan: VectorIndexPlan
    build_seconds: float | None = None


@contextmanager
def vector_index_rebuilt_after(plan: VectorIndexPlan, *,
                               plan_again: Callable[[], VectorIndexPlan] | None = None) -> Iterator[VectorIndexRebuild]:
    """Run a load with the graph dropped and build it once at the end, if `plan` says so; otherwise a no-op.

    The build runs however the load ends (an error, Ctrl-C): searches get their graph back. Held meanwhile:
    the session advisory lock that tells vector_index_repair a load is under way, and that makes a second bulk
    load wait its turn. A load that had to wait plans again (by `plan_again`, which measures the load's work anew,
    if given): the load that held the lock may have built the graph this one found missing, and written the very
    documents this one was about to."""
    outcome = VectorIndexRebuild(plan=plan)
    if not plan.rebuild:
        yield outcome
        return
    with _graph_absent_lock(wait=True) as lock:
        if lock.waited:
            outcome.plan = plan_again() if plan_again else vector_index_plan(pending_chars=plan.pending_chars)
        if outcome.plan.rebuild:
            if vector_index_status().exists:
                vector_index_drop()
            try:
                yield outcome
            finally:
                outcome.build_seconds = round(vector_index_build(), 1)
            return
    yield outcome


@dataclass(frozen=True)
class _GraphLock:
    taken: bool
    waited: bool  # another session held it first: what that session did meanwhile is worth looking at again


@contextmanager
def _graph_absent_lock(*, wait: bool) -> Iterator[_GraphLock]:
    """The advisory lock a load holds while the graph is dropped (`wait`: take it once it is free). For the session,
    which Postgres ends with the loader's connection; inside a caller's transaction, for that transaction (a session
    lock taken there would outlive a rollback that left no chance to unlock it)."""
    in_transaction = connection.in_atomic_block
    lock = _take_graph_absent_lock(wait=wait, in_transaction=in_transaction)
    try:
        yield lock
    finally:
        if lock.taken and not in_transaction:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [GRAPH_ABSENT_LOCK])


def _try_graph_absent_lock(scope: str) -> bool:
    with dict_cursor() as cursor:
        cursor.execute(f"SELECT pg_try_advisory{scope}_lock(%s) AS got", [GRAPH_ABSENT_LOCK])
        return cursor.fetchone()["got"]


def _take_graph_absent_lock(*, wait: bool, in_transaction: bool) -> _GraphLock:
    scope = "_xact" if in_transaction else ""
    if _try_graph_absent_lock(scope):
        return _GraphLock(taken=True, waited=False)
    if not wait:
        return _GraphLock(taken=False, waited=False)
    if in_transaction:
        # The caller's transaction holds its snapshot however this waits, so it may as well block.
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [GRAPH_ABSENT_LOCK])
        return _GraphLock(taken=True, waited=True)
    # A session waits with a try-lock now and then, never in a blocking call: a statement blocked on the lock holds
    # a snapshot, and the load holding the lock builds its graph CONCURRENTLY, which waits for every older snapshot
    # to end. The two would wait on each other until Postgres aborted the build as a deadlock.
    log.info("another load holds the vector graph dropped: waiting for it to build the graph")
    while not _try_graph_absent_lock(scope):
        time.sleep(GRAPH_LOCK_POLL_SECONDS)
    return _GraphLock(taken=True, waited=True)


def vector_index_repair() -> float | None:
    """Build the graph if it is missing or half-built and no load is running; the seconds it took, or None if
    there was nothing to do (or a load holds it dropped)."""
    if vector_index_status().usable:
        return None
    with _graph_absent_lock(wait=False) as lock:
        return vector_index_build() if lock.taken else None
