"""A worker killed in the middle of embedding a statute: nothing lost, nothing done twice.

Real parts only: a `celery worker` process on the Redis broker, the test
database, the local embedding model. The statute is small (1998:209, nine
chunks) and the worker embeds two chunks per task, so there are several
batches to be in the middle of.
"""

from __future__ import annotations

import re

import pytest

from chunks.embedding import active_model_name
from chunks.models import ContentChunk
from compliance.models import LegalDocument, ProcessingStatus
from compliance.services import LegalDocumentData, legal_document_upsert
from tests.chunks.conftest import WORKER_BATCH_SIZE, WorkerFactory, queued_task_calls, wait_for
from tests.corpus import corpus_record

SFS = "1998:209"
EMBED = "chunks.tasks.embed_chunks"
EMBED_RECEIVED = re.compile(r"Task chunks\.tasks\.embed_chunks\[[0-9a-f-]+\] received")
DONE_TIMEOUT = 300


def _progress(doc_id: int) -> tuple[int, int]:
    chunks = ContentChunk.objects.filter(legal_document_id=doc_id)
    return chunks.count(), chunks.filter(embedding__isnull=False, embedding_model=active_model_name()).count()


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_worker_killed_mid_batch_resumes_and_embeds_each_chunk_once(worker_factory: WorkerFactory) -> None:
    first = worker_factory("kill-me")
    record = corpus_record(SFS)

    # Committed, so the upsert's on_commit hook enqueues process_document for the worker.
    upserted = legal_document_upsert(LegalDocumentData(sfs_number=SFS, title=record["title"],
                                                       full_text=record["text"]))
    assert upserted.changed
    doc = upserted.document

    def in_the_middle_of_a_batch() -> tuple[int, int] | bool:
        # Some chunks embedded, not all, and a batch running: received, not yet succeeded. Its message is then held
        # unacknowledged, and the broker gives it back. Killed between two batches instead, the worker may die
        # after kombu's Redis transport has popped the next message and before it records it as unacknowledged;
        # such a message is the beat's recovery to find (the next test), not the broker's.
        total, embedded = _progress(doc.pk)
        running = len(EMBED_RECEIVED.findall(first.log())) > len(first.results(EMBED))
        return running and total > WORKER_BATCH_SIZE and 0 < embedded < total and (total, embedded)

    total, embedded_at_kill = wait_for(in_the_middle_of_a_batch, timeout=DONE_TIMEOUT, interval=0.02,
                                       what="the worker to be in the middle of a batch after its first")
    first.kill()
    assert not first.alive

    doc.refresh_from_db()
    assert doc.status == ProcessingStatus.PROCESSING
    assert doc.processed_at is None
    after_kill_total, after_kill_embedded = _progress(doc.pk)
    assert after_kill_total == total
    assert after_kill_embedded < total  # the kill really left work undone
    assert doc.chunks_embedded == after_kill_embedded  # progress is counted, not guessed

    second = worker_factory("take-over")

    def done() -> bool:
        doc.refresh_from_db()
        return doc.status == ProcessingStatus.DONE

    wait_for(done, timeout=DONE_TIMEOUT, interval=0.25, what="the new worker to finish the statute")

    chunks = list(ContentChunk.objects.filter(legal_document=doc))
    assert len(chunks) == total
    assert len({c.path for c in chunks}) == total  # no section was written twice
    assert all(c.embedding is not None and c.embedding_model == active_model_name() for c in chunks)
    assert doc.chunks_total == doc.chunks_embedded == total
    assert doc.processed_at is not None
    assert LegalDocument.objects.get(pk=doc.pk).error_message == ""

    # The observable for "nothing embedded twice": every succeeded embed_chunks task logs how many
    # passages it embedded. The take-over embeds exactly what the dead worker had not committed: a
    # redelivered batch embeds only its chunks still without a vector, and one already done returns 0.
    # (The dead worker's own log can lack its last committed batch: the kill may land between that
    # batch's commit and its "succeeded" line, so the sum over both workers is not the invariant.)
    first_counts = [int(r) for r in first.results(EMBED)]
    second_counts = [int(r) for r in second.results(EMBED)]
    assert all(0 <= n <= WORKER_BATCH_SIZE for n in first_counts + second_counts)
    assert sum(second_counts) == total - after_kill_embedded, (first_counts, second_counts, after_kill_embedded)
    # A batch logs "succeeded" only after its commit: the dead worker logged at most what it committed.
    assert sum(first_counts) <= after_kill_embedded
    assert sum(second_counts) > 0
    # process_document ran once, on the first worker.
    assert len(first.results("chunks.tasks.process_document")) == 1
    assert second.results("chunks.tasks.process_document") == []


# Recovery settings for the workers and beat below: a chunk counts as stalled after 3 s without a live
# task, checked every 2 s. The visibility timeout is the production hour, so the broker itself gives
# nothing back: only the recovery task can finish the statute.
RECOVERY_ENV = {"EMBEDDING_RECOVERY_AFTER_SECONDS": "3", "EMBEDDING_RECOVERY_INTERVAL_SECONDS": "2",
                "CELERY_VISIBILITY_TIMEOUT": "3600"}


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_whole_worker_killed_is_recovered_by_the_beat_task_and_embeds_each_chunk_once(worker_factory: WorkerFactory) -> None:
    worker_factory.stop_all()
    record = corpus_record(SFS)
    doc = legal_document_upsert(LegalDocumentData(sfs_number=SFS, title=record["title"],
                                                  full_text=record["text"])).document

    def some_but_not_all_embedded() -> tuple[int, int] | bool:
        total, embedded = _progress(doc.pk)
        return total > WORKER_BATCH_SIZE and 0 < embedded < total and (total, embedded)

    def lost_chunks() -> set[int]:
        """Chunks still without a vector that no queued call will embed: only recovery can finish them."""
        queued = {chunk_id for args, _ in queued_task_calls(EMBED) for chunk_id in args[0]}
        missing = ContentChunk.objects.filter(legal_document=doc, embedding__isnull=True).values_list("id", flat=True)
        return set(missing) - queued

    # Kill while the worker is in the middle of a batch. A kill that falls after a batch has committed
    # and before the next one starts loses nothing (the rest is still queued): try again then.
    killed = []
    for attempt in range(3):
        worker = worker_factory(f"kill-whole-{attempt}", pool="prefork", extra_env=RECOVERY_ENV)
        assert worker.children(), "a prefork worker has a pool child"
        killed.append(worker)
        total, _ = wait_for(some_but_not_all_embedded, timeout=DONE_TIMEOUT, interval=0.02,
                            what="the worker to be in the middle of the statute")
        children = worker.kill_whole()
        assert children and not worker.alive
        if lost := lost_chunks():
            break
    assert lost, "three kills in a row fell between two batches"
    _, embedded_at_kill = _progress(doc.pk)
    assert embedded_at_kill < total

    second = worker_factory("after-whole-kill", extra_env=RECOVERY_ENV)
    beat = worker_factory("beat", extra_env=RECOVERY_ENV, beat=True)

    def done() -> bool:
        doc.refresh_from_db()
        return doc.status == ProcessingStatus.DONE

    wait_for(done, timeout=DONE_TIMEOUT, interval=0.25, what="recovery to finish the statute")

    chunks = list(ContentChunk.objects.filter(legal_document=doc))
    assert len(chunks) == total == len({c.path for c in chunks})
    assert all(c.embedding is not None and c.embedding_model == active_model_name() for c in chunks)
    assert doc.chunks_total == doc.chunks_embedded == total
    # Each chunk was embedded and counted once: the killed batch committed nothing, and after the kills the
    # recovered batch and every other one wrote only chunks still lacking a vector. (A killed worker's log can
    # lack a batch it committed just before the kill, so the sum over every worker is not the invariant.)
    killed_counts = [int(r) for w in killed for r in w.results(EMBED)]
    second_counts = [int(r) for r in second.results(EMBED)]
    assert sum(second_counts) == total - embedded_at_kill, (killed_counts, second_counts, embedded_at_kill)
    assert sum(killed_counts) <= embedded_at_kill
    # The lost batch came back through the recovery task, not the broker (its visibility timeout is an hour).
    recovered = [int(r) for r in second.results("chunks.tasks.recover_stalled_embeddings")]
    assert sum(recovered) > 0, second.log()[-3000:]
    assert "chunks.tasks.recover_stalled_embeddings" in beat.log()
    # Once everything is embedded, recovery finds nothing more to do.
    runs = len(recovered)
    wait_for(lambda: len(second.results("chunks.tasks.recover_stalled_embeddings")) > runs + 1, timeout=60,
             what="two more recovery runs")
    later = [int(r) for r in second.results("chunks.tasks.recover_stalled_embeddings")][runs + 1:]
    assert later and all(n == 0 for n in later), later


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_two_workers_on_one_broker_embed_a_large_statute_exactly_once(worker_factory: WorkerFactory) -> None:
    """Scaling out: several workers (on one host here, on several in production) share the queues."""
    sfs = "1972:207"  # 42 chunks: 21 batches to share
    worker_factory.stop_all()
    # No worker is killed here, so the broker need give nothing back: with the factory's 10 s visibility timeout a
    # batch slower than that on a busy host would be delivered to the other worker too.
    no_redelivery = {"CELERY_VISIBILITY_TIMEOUT": "3600"}
    workers = [worker_factory("share-1", extra_env=no_redelivery), worker_factory("share-2", extra_env=no_redelivery)]
    record = corpus_record(sfs)
    doc = legal_document_upsert(LegalDocumentData(sfs_number=sfs, title=record["title"],
                                                  full_text=record["text"])).document

    def done() -> bool:
        doc.refresh_from_db()
        return doc.status == ProcessingStatus.DONE

    wait_for(done, timeout=DONE_TIMEOUT, interval=0.25, what="two workers to embed the statute")

    total, embedded = _progress(doc.pk)
    assert total == embedded == doc.chunks_embedded == 42
    batches = -(-total // WORKER_BATCH_SIZE)
    per_worker = [[int(r) for r in w.results("chunks.tasks.embed_chunks")] for w in workers]
    # Every batch was delivered to exactly one worker, and every chunk was embedded exactly once.
    assert sum(len(counts) for counts in per_worker) == batches, per_worker
    assert sum(sum(counts) for counts in per_worker) == total
    assert all(counts for counts in per_worker), per_worker  # both took a share
    assert sum(len(w.results("chunks.tasks.process_document")) for w in workers) == 1
