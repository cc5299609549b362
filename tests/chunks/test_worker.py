"""A worker killed in the middle of embedding a statute: nothing lost, nothing done twice.

Real parts only: a `celery worker` process on the Redis broker, the test
database, the local embedding model. The statute is small (1998:209, nine
chunks) and the worker embeds two chunks per task, so there are several
batches to be in the middle of.
"""

from __future__ import annotations

import pytest

from chunks.embedding import active_model_name
from chunks.models import ContentChunk
from compliance.models import LegalDocument, ProcessingStatus
from compliance.services import LegalDocumentData, legal_document_upsert
from tests.chunks.conftest import WORKER_BATCH_SIZE, wait_for
from tests.corpus import corpus_record

SFS = "1998:209"
DONE_TIMEOUT = 300


def _progress(doc_id: int) -> tuple[int, int]:
    chunks = ContentChunk.objects.filter(legal_document_id=doc_id)
    return chunks.count(), chunks.filter(embedding__isnull=False, embedding_model=active_model_name()).count()


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_worker_killed_mid_batch_resumes_and_embeds_each_chunk_once(worker_factory):
    first = worker_factory("kill-me")
    record = corpus_record(SFS)

    # Committed, so the upsert's on_commit hook enqueues process_document for the worker.
    doc, changed = legal_document_upsert(LegalDocumentData(sfs_number=SFS, title=record["title"],
                                                           full_text=record["text"]))
    assert changed

    def some_but_not_all_embedded():
        total, embedded = _progress(doc.pk)
        return total > WORKER_BATCH_SIZE and 0 < embedded < total and (total, embedded)

    total, embedded_at_kill = wait_for(some_but_not_all_embedded, timeout=DONE_TIMEOUT, interval=0.02,
                                       what="the worker to embed its first batch")
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

    def done():
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
    # passages it embedded. The killed batch logged nothing; its redelivery embeds its chunks once,
    # and a batch whose chunks are already done returns 0. The sum is exactly the chunk count.
    embedded_counts = [int(r) for w in (first, second) for r in w.results("chunks.tasks.embed_chunks")]
    assert sum(embedded_counts) == total, embedded_counts
    assert all(0 <= n <= WORKER_BATCH_SIZE for n in embedded_counts)
    # A batch logs "succeeded" only after its commit: the dead worker logged at most what it committed.
    assert sum(int(r) for r in first.results("chunks.tasks.embed_chunks")) <= after_kill_embedded
    assert sum(int(r) for r in second.results("chunks.tasks.embed_chunks")) > 0
    # process_document ran once, on the first worker.
    assert len(first.results("chunks.tasks.process_document")) == 1
    assert second.results("chunks.tasks.process_document") == []
