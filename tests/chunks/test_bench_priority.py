"""bench_priority end to end: real workers it starts itself, a bulk re-embed, an uploaded policy (figures not asserted)."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from chunks.models import ContentChunk
from compliance.models import ProcessingStatus, UserFile
from tests.corpus import load_statutes

SFS = "1998:209"


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_bench_priority_times_the_upload_and_restores_the_statutes(clean_queue):
    load_statutes(SFS)
    out = io.StringIO()
    call_command("bench_priority", "--layouts", "priority", "--warmup", "0", "--json", stdout=out)

    report = json.loads(out.getvalue())
    (run,) = report["runs"]
    assert run["layout"] == "priority" and run["workers"] == ["lagrum,lagrum-bulk"]
    assert run["policy_status"] == ProcessingStatus.DONE and run["policy_chunks"] >= 20
    assert 0 < run["keyword_s"] <= run["vector_s"]
    assert run["bulk_chunks_queued"] == 9 == report["statute_chunks"]
    assert set(report["targets_s"]) == {"keyword", "vector"}
    # Afterwards the statute has its vectors back and the benchmark's upload is gone.
    chunks = ContentChunk.objects.filter(document_number=SFS)
    assert chunks.count() == 9 and not chunks.filter(embedding__isnull=True).exists()
    assert not UserFile.objects.exists()
