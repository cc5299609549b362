"""Fairness across workspaces (issue #31, 4): the order in which a real worker takes the embedding batches.

Workspace A has a large upload waiting (twelve batches), then workspace B uploads a one-line file, and
a bulk re-embed of a statute waits too. B's batch must not wait behind A's whole backlog: it comes after
A's first FAIR_FIRST_BATCHES, and every upload's batch comes before any bulk batch. The order is read
from the broker (what is queued, and at which priority step) and then from a real `celery worker`'s
log (what it received, in order): both must agree. No timing is asserted.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from pytest_django import Settings

from chunks.models import ContentChunk, SourceType
from chunks.services import chunk_document
from chunks.tasks import BULK_QUEUE, FAIR_FIRST_BATCHES, FAIR_NEXT_BATCHES, INTERACTIVE_QUEUE, enqueue_embedding
from compliance.models import ProcessingStatus, UserFile
from compliance.services import LegalDocumentData, legal_document_upsert, user_file_upload, workspace_create
from tests.chunks.conftest import (
    WORKER_BATCH_SIZE,
    WorkerFactory,
    purge_test_queue,
    queued_in_consumption_order,
    wait_for,
)
from tests.corpus import corpus_record
from tests.helpers import make_user

EMBED = "chunks.tasks.embed_chunks"
RECEIVED = re.compile(r"Task chunks\.tasks\.embed_chunks\[(?P<id>[0-9a-f-]+)\] received")
SFS = "1998:209"


def _large_policy(sections: int) -> str:
    return "".join(f"# Rutin {n}\n\nAvsnitt {n} av rutinen beskriver hur chefen följer upp arbetsmiljön"
                   f" i verksamhet {n} och dokumenterar åtgärderna.\n\n" for n in range(1, sections + 1))


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_small_upload_goes_ahead_of_another_workspaces_backlog_and_uploads_ahead_of_bulk(
        worker_factory: WorkerFactory, settings: Settings, tmp_path: Path) -> None:
    settings.EMBEDDING_BATCH_SIZE = WORKER_BATCH_SIZE  # batches as the worker would make them
    settings.SFS_VECTORS_PATH = str(tmp_path / "none.npz")
    worker_factory("fair-setup")
    worker_factory.stop_all()  # the queue is empty and stays ours: the next worker starts without a purge

    alice, bob = make_user("alice"), make_user("bob")
    ws_a, ws_b = workspace_create(name="Stora AB", owner=alice), workspace_create(name="Lilla AB", owner=bob)
    big = user_file_upload(workspace=ws_a, user=alice, uploaded=SimpleUploadedFile(
        "stor.md", _large_policy(24).encode(), content_type="text/markdown"))
    small = user_file_upload(workspace=ws_b, user=bob, uploaded=SimpleUploadedFile(
        "liten.txt", "Brandlarmet provas varje månad.".encode(), content_type="text/plain"))
    record = corpus_record(SFS)
    statute = legal_document_upsert(LegalDocumentData(sfs_number=SFS, title=record["title"],
                                                      full_text=record["text"]), process=False).document
    purge_test_queue()  # the uploads' processing messages: this test chunks the files itself
    statute_ids = chunk_document(SourceType.LEGAL_DOCUMENT, statute.pk).to_embed
    big_ids = chunk_document(SourceType.USER_FILE, big.pk).to_embed
    small_ids = chunk_document(SourceType.USER_FILE, small.pk).to_embed
    assert len(big_ids) >= 10 * WORKER_BATCH_SIZE and len(small_ids) == 1

    # In the order they arrive: the bulk re-embed, A's large file, then B's small one.
    enqueue_embedding(statute_ids, bulk=True)
    enqueue_embedding(big_ids)
    enqueue_embedding(small_ids)

    queued = [m for m in queued_in_consumption_order() if m.task == EMBED]
    owner = {cid: "B" if cid in small_ids else "A" if cid in big_ids else "bulk"
             for cid in statute_ids + big_ids + small_ids}
    order = [{owner[cid] for cid in m.args[0]} for m in queued]
    assert all(len(batch) == 1 for batch in order)  # a batch never mixes workspaces or bulk with uploads
    order = [batch.pop() for batch in order]
    n_big = -(-len(big_ids) // WORKER_BATCH_SIZE)
    n_bulk = -(-len(statute_ids) // WORKER_BATCH_SIZE)
    # B waits for A's first batches only, not for A's whole backlog; then the rest of A; bulk last.
    assert order == ["A"] * FAIR_FIRST_BATCHES + ["B"] + ["A"] * (n_big - FAIR_FIRST_BATCHES) + ["bulk"] * n_bulk
    assert [m.queue for m in queued] == [INTERACTIVE_QUEUE] * (n_big + 1) + [BULK_QUEUE] * n_bulk
    steps = [m.priority for m in queued if owner[m.args[0][0]] == "A"]
    assert steps == sorted(steps) and steps[:FAIR_FIRST_BATCHES] == [0] * FAIR_FIRST_BATCHES
    assert steps[FAIR_FIRST_BATCHES:FAIR_FIRST_BATCHES + FAIR_NEXT_BATCHES] == [3] * FAIR_NEXT_BATCHES

    # A real worker takes them in exactly that order, and embeds everything once.
    worker = worker_factory("fair")
    for user_file in (big, small):
        wait_for(lambda uf=user_file: UserFile.objects.get(pk=uf.pk).status == ProcessingStatus.DONE,
                 timeout=300, interval=0.25, what=f"{user_file.original_name} to be embedded")
    wait_for(lambda: not ContentChunk.objects.filter(legal_document=statute, embedding__isnull=True).exists(),
             timeout=300, interval=0.25, what="the statute to be embedded")
    received = RECEIVED.findall(worker.log())
    assert received == [m.task_id for m in queued]
    embedded = [int(r) for r in worker.results(EMBED)]
    assert sum(embedded) == len(statute_ids) + len(big_ids) + len(small_ids)
