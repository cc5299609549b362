"""Queues and recovery without a worker: which queue each kind of work lands on, and what recovery re-enqueues.

The queued messages are read back from the real Redis broker.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.utils import timezone
from pytest_django import Settings

from chunks.models import ContentChunk
from chunks.services import chunk_document
from chunks.tasks import (
    BULK_QUEUE,
    INTERACTIVE_QUEUE,
    enqueue_embedding,
    recover_stalled_embeddings,
)
from compliance.services import user_file_upload, workspace_create
from tests.chunks.conftest import queued_in_consumption_order, queued_task_calls
from tests.corpus import load_statutes
from tests.helpers import make_user

pytestmark = pytest.mark.django_db(transaction=True)

SMALL_SFS = "1998:209"


def queued_by_queue(task_name: str) -> dict[str, list]:
    """{queue: [args of each queued call of task_name]} read from the broker's lists (every priority step)."""
    found: dict[str, list] = {}
    for message in queued_in_consumption_order():
        if message.task == task_name:
            found.setdefault(message.queue, []).append(message.args)
    return found


@pytest.fixture
def alice() -> User:
    return make_user("alice")


def test_statutes_go_to_the_bulk_queue_and_a_users_file_to_the_interactive_one(clean_queue: None, alice: User,
                                                                               settings: Settings,
                                                                               tmp_path: Path) -> None:
    workspace = workspace_create(name="Exempel AB", owner=alice)
    settings.SFS_VECTORS_PATH = str(tmp_path / "none.npz")  # the statute's chunks need the model
    call_command("load_sfs", "--only", SMALL_SFS, "--no-progress")  # chunking on the worker
    upload = SimpleUploadedFile("rutin.txt", "Rutin för tillbud.\n\nChefen utreder tillbud.".encode(),
                                content_type="text/plain")
    user_file = user_file_upload(workspace=workspace, user=alice, uploaded=upload)

    processing = queued_by_queue("chunks.tasks.process_document")
    assert processing[BULK_QUEUE] == [["LEGAL_DOCUMENT", processing[BULK_QUEUE][0][1]]]
    assert processing[INTERACTIVE_QUEUE] == [["USER_FILE", user_file.pk]]

    statute_ids = chunk_document("LEGAL_DOCUMENT", processing[BULK_QUEUE][0][1]).to_embed
    file_ids = chunk_document("USER_FILE", user_file.pk).to_embed
    assert statute_ids and file_ids
    assert enqueue_embedding(statute_ids + file_ids) == 2  # split by source, never mixed in one batch
    embedding = queued_by_queue("chunks.tasks.embed_chunks")
    assert [sorted(ids) for (ids,) in embedding[BULK_QUEUE]] == [sorted(statute_ids)]
    assert [sorted(ids) for (ids,) in embedding[INTERACTIVE_QUEUE]] == [sorted(file_ids)]

    # Re-embedding everything after a model change is bulk, whatever the source.
    call_command("reembed", "--all", stdout=open("/dev/null", "w"))
    embedding = queued_by_queue("chunks.tasks.embed_chunks")
    assert len(embedding[INTERACTIVE_QUEUE]) == 1
    assert sorted(i for (ids,) in embedding[BULK_QUEUE] for i in ids) == sorted(statute_ids * 2 + file_ids)


def test_recovery_requeues_only_old_chunks_no_task_mentions_and_is_idempotent(clean_queue: None, settings: Settings,
                                                                              tmp_path: Path) -> None:
    settings.EMBEDDING_RECOVERY_AFTER_SECONDS = 60
    settings.EMBEDDING_RECOVERY_INSPECT_TIMEOUT = 0.2
    (doc,) = load_statutes(SMALL_SFS)
    chunks = list(ContentChunk.objects.filter(legal_document=doc).order_by("path").values_list("id", flat=True))
    lost, queued, fresh = chunks[:3], chunks[3:5], chunks[5:7]
    ContentChunk.objects.filter(pk__in=lost + queued + fresh).update(embedding=None, embedding_model="")
    long_ago = timezone.now() - timedelta(minutes=10)
    ContentChunk.objects.filter(pk__in=lost + queued).update(created_at=long_ago)
    enqueue_embedding(queued)  # still waiting in the queue: a live task

    assert recover_stalled_embeddings() == 3

    calls = [sorted(ids) for (ids,), _ in queued_task_calls("chunks.tasks.embed_chunks")]
    assert sorted(calls) == sorted([sorted(queued), sorted(lost)])  # fresh chunks are left to their own task
    # The lost chunks are queued now: running again re-enqueues nothing.
    assert recover_stalled_embeddings() == 0
    assert len(queued_task_calls("chunks.tasks.embed_chunks")) == 2
