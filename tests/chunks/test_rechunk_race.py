"""Re-chunking a document while a real worker writes its vectors: no deadlock, nothing lost (issue #31, 3).

`chunk_document(force=True)` (admin's "Bearbeta om", "Synka nu", an amended statute) deletes a
document's chunks and writes new ones while a `celery worker` process may be writing vectors
to the old ones in `embed_chunk_batch`. Both are real transactions on the test database: a
thread of this process re-chunks, the worker embeds.

Left to chance the two overlap only when the re-chunk lands within milliseconds of the
worker's commit (40 random rounds never hit it), so each round makes them meet in the middle:
a third connection (the gate) holds a row lock on the second chunk of the worker's batch, so
the worker's write transaction stops halfway through the batch, holding whatever it locked
before it. Then the re-chunk starts; once both wait, the gate lets go. With the two paths
taking their locks in opposite orders (chunks then document, document then chunks) Postgres
finds a deadlock every round and aborts one side: either the re-chunk raises here, or the
worker's task fails and logs it. The test counts both.
"""

from __future__ import annotations

import threading
from pathlib import Path

import psycopg
import pytest
from django.db import OperationalError, connection
from pytest_django import Settings

from chunks.embedding import active_model_name
from chunks.models import ContentChunk, SourceType
from chunks.services import chunk_document, embed_chunk_batch
from chunks.tasks import embed_chunks, enqueue_embedding
from compliance.models import LegalDocument, ProcessingStatus
from compliance.services import LegalDocumentData, legal_document_upsert
from tests.chunks.conftest import WorkerFactory, wait_for
from tests.corpus import corpus_record

SFS = "1998:209"  # nine chunks
ROUNDS = 8
EMBED = "chunks.tasks.embed_chunks"
TIMEOUT = 120


def _gate_connection() -> psycopg.Connection:
    db = connection.settings_dict
    return psycopg.connect(host=db["HOST"], port=db["PORT"], user=db["USER"], password=db["PASSWORD"],
                           dbname=db["NAME"])


def _waiting_backends(gate: psycopg.Connection) -> int:
    """How many sessions on the test database wait for a lock right now."""
    row = gate.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                       " AND cardinality(pg_blocking_pids(pid)) > 0").fetchone()
    return row[0]


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_rechunking_while_the_worker_writes_vectors_never_deadlocks(worker_factory: WorkerFactory, settings: Settings,
                                                                    tmp_path: Path) -> None:
    settings.SFS_VECTORS_PATH = str(tmp_path / "none.npz")  # every new chunk needs the worker's model
    worker_factory.stop_all()
    worker = worker_factory("rechunk-race")
    record = corpus_record(SFS)
    doc = legal_document_upsert(LegalDocumentData(sfs_number=SFS, title=record["title"],
                                                  full_text=record["text"]), process=False).document
    to_embed = chunk_document(SourceType.LEGAL_DOCUMENT, doc.pk).to_embed
    first_ids = list(to_embed)

    gate = _gate_connection()
    monitor = _gate_connection()
    monitor.autocommit = True
    deadlocks_here: list[str] = []
    met_mid_batch = 0
    try:
        for round_no in range(ROUNDS):
            c1, c2 = sorted(to_embed)[:2]
            # A new title changes every chunk's header, hence its hash: the re-chunk reuses no vector.
            # (Before the worker's batch starts: its write transaction may hold the document's row.)
            LegalDocument.objects.filter(pk=doc.pk).update(title=f"{record['title']} (omgång {round_no})")
            # The gate holds the batch's second chunk: the worker's write transaction stops there.
            gate.execute("SELECT id FROM chunks_contentchunk WHERE id = %s FOR UPDATE", [c2])
            waiting_before = _waiting_backends(monitor)
            embed_chunks.apply_async(([c1, c2],), {"bulk": True})
            wait_for(lambda: _waiting_backends(monitor) > waiting_before, timeout=TIMEOUT, interval=0.02,
                     what=f"the worker's batch to wait at the gate (round {round_no})")

            outcome: dict = {}

            def rechunk() -> None:
                try:
                    outcome["result"] = chunk_document(SourceType.LEGAL_DOCUMENT, doc.pk, force=True)
                except OperationalError as exc:
                    outcome["error"] = str(exc)
                finally:
                    connection.close()

            thread = threading.Thread(target=rechunk)
            thread.start()
            wait_for(lambda: _waiting_backends(monitor) > waiting_before + 1 or not thread.is_alive(),
                     timeout=TIMEOUT, interval=0.02, what=f"the re-chunk to wait for the worker (round {round_no})")
            # The re-chunk really met the worker's open transaction: it waits, it has not finished.
            met_mid_batch += thread.is_alive()
            gate.rollback()  # the gate opens: the worker and the re-chunk meet
            thread.join(timeout=TIMEOUT)
            assert not thread.is_alive()
            wait_for(lambda: len(worker.results(EMBED)) + worker.log().count("raised unexpected") > round_no,
                     timeout=TIMEOUT, what=f"the worker to finish its batch (round {round_no})")
            if "error" in outcome:
                deadlocks_here.append(outcome["error"])
                # Alone, the re-chunk goes through: the next round has a fresh document to meet in.
                outcome["result"] = chunk_document(SourceType.LEGAL_DOCUMENT, doc.pk, force=True)
            to_embed = outcome["result"].to_embed
    finally:
        gate.close()
        monitor.close()

    assert met_mid_batch == ROUNDS
    worker_deadlocks = worker.log().count("deadlock detected")
    assert (deadlocks_here, worker_deadlocks) == ([], 0), (deadlocks_here, worker.log()[-3000:])
    assert "raised unexpected" not in worker.log(), worker.log()[-3000:]

    # A batch whose chunks a re-chunk replaced meanwhile writes nothing (and embeds nothing).
    assert not ContentChunk.objects.filter(pk__in=first_ids).exists()
    assert embed_chunk_batch(first_ids) == 0

    # Everything still missing gets its vector; the last round's chunks are all there, each embedded.
    enqueue_embedding(to_embed, bulk=True)

    def done() -> bool:
        doc.refresh_from_db()
        return doc.status == ProcessingStatus.DONE

    wait_for(done, timeout=TIMEOUT * 3, interval=0.25, what="the worker to embed the last round")
    chunks = list(ContentChunk.objects.filter(legal_document=doc))
    assert len(chunks) == 9 == len({c.path for c in chunks})
    assert all(c.embedding is not None and c.embedding_model == active_model_name() for c in chunks)
    assert all(f"(omgång {ROUNDS - 1})" in c.header for c in chunks)
    assert doc.chunks_total == doc.chunks_embedded == 9
