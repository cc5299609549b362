"""bench_priority end to end: real workers it starts itself, a bulk re-embed, an uploaded policy (figures not asserted).

It must leave the instance it runs on as it found it (issue #31, 3): the instance's queue (a
message waits in it, with no worker) keeps its messages, every statute chunk has exactly the vector
it had, its workspace, user and upload are gone, and no key of its broker namespace is left; also
when the run fails, and when a run killed outright left its snapshot behind.
"""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError

from chunks import bench_isolation
from chunks.models import ContentChunk
from chunks.services import embeddings_drop
from chunks.tasks import embed_chunks
from compliance.models import LegalDocument, ProcessingStatus, UserFile, Workspace
from tests.chunks.conftest import _redis, queued_task_calls
from tests.corpus import load_statutes

SFS = "1998:209"
EMBED = "chunks.tasks.embed_chunks"
SENTINEL = [987654321]  # a chunk id no test creates: the message only has to stay queued


def _vectors() -> dict[int, tuple[list[float], str]]:
    return {c.pk: (np.asarray(c.embedding).tolist(), c.embedding_model)
            for c in ContentChunk.objects.filter(document_number=SFS)}


def _assert_left_as_found(before: dict) -> None:
    assert _vectors() == before  # the same chunks, each with exactly its vector and model
    doc = LegalDocument.objects.get(sfs_number=SFS)
    assert doc.status == ProcessingStatus.DONE and doc.chunks_embedded == doc.chunks_total == len(before)
    assert queued_task_calls(EMBED) == [([SENTINEL], {})]  # the instance's queue was neither purged nor served
    assert not UserFile.objects.exists()
    assert not Workspace.objects.filter(slug="bench-priority").exists()
    assert not get_user_model().objects.filter(username="bench").exists()
    assert bench_isolation.snapshot_pending() == 0
    assert not list(_redis().scan_iter(match="bench-priority-*"))


@pytest.fixture
def statute_and_waiting_message(clean_queue: None) -> dict[int, tuple[list[float], str]]:
    load_statutes(SFS)
    embed_chunks.apply_async((SENTINEL,))
    return _vectors()


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_bench_priority_times_the_upload_and_leaves_the_instance_as_it_found_it(statute_and_waiting_message: dict[int, tuple[list[float], str]]) -> None:
    out = io.StringIO()
    call_command("bench_priority", "--layouts", "priority", "--warmup", "0", "--json", stdout=out)

    report = json.loads(out.getvalue())
    (run,) = report["runs"]
    assert run["layout"] == "priority" and run["workers"] == ["lagrum,lagrum-bulk"]
    assert run["policy_status"] == ProcessingStatus.DONE and run["policy_chunks"] >= 20
    assert 0 < run["keyword_s"] <= run["vector_s"]
    assert run["bulk_chunks_queued"] == 9 == report["statute_chunks"]
    assert set(report["targets_s"]) == {"keyword", "vector"}
    _assert_left_as_found(statute_and_waiting_message)


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_failing_run_restores_what_it_touched(statute_and_waiting_message: dict[int, tuple[list[float], str]]) -> None:
    # No time at all to wait for the workers: the run fails after it dropped the statute vectors.
    with pytest.raises(CommandError, match="timed out"):
        call_command("bench_priority", "--layouts", "priority", "--warmup", "0", "--timeout", "0",
                     stdout=io.StringIO())
    _assert_left_as_found(statute_and_waiting_message)


@pytest.mark.django_db(transaction=True)
def test_vectors_a_killed_run_left_dropped_are_restored_first(statute_and_waiting_message: dict[int, tuple[list[float], str]]) -> None:
    # What a run killed with SIGKILL leaves: the snapshot committed, the vectors dropped.
    bench_isolation.snapshot_statute_vectors()
    doc = LegalDocument.objects.get(sfs_number=SFS)
    assert len(embeddings_drop(legal_document_ids=[doc.pk])) == 9
    assert bench_isolation.snapshot_pending() == 9

    err = io.StringIO()
    call_command("bench_priority", "--restore", stdout=io.StringIO(), stderr=err)
    assert "restored 9 statute vectors" in err.getvalue()
    _assert_left_as_found(statute_and_waiting_message)
