"""Per-workspace keyword statistics under concurrent writers.

Two transactions adding chunks to one workspace in several statements each must both commit:
each statement locks the workspace's statistics row before any of its term rows, so the
second writer queues behind the first instead of holding a term row the first still needs
(a deadlock, and a lost chunking transaction, without that order).
"""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection, connections, transaction

from chunks.models import ContentChunk
from compliance.models import Assessment, Workspace, content_hash
from tests.helpers import run_at_once

pytestmark = pytest.mark.django_db(transaction=True)


def _add_chunk(workspace: Workspace, text: str) -> None:
    assessment = Assessment.objects.create(workspace=workspace, title="Bedömning", notes=text, status="done")
    ContentChunk.objects.create(
        source_type="ASSESSMENT", assessment=assessment, workspace=workspace, document_title="Bedömning",
        header="Bedömning", path="00000", ordinal=0, citation="", text=text, token_count=5,
        content_hash=content_hash(text))


def _waits_for_a_lock(pid: int) -> bool | None:
    with connections["default"].cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")  # else a transaction sees its first snapshot only
        cursor.execute("SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s", [pid])
        row = cursor.fetchone()
        return row and row[0] == "Lock"


def test_two_writers_in_one_workspace_both_commit() -> None:
    workspace = Workspace.objects.create(name="Samtidigt AB", slug="samtidigt")
    first_written, pids = threading.Event(), {}

    def writer_a() -> None:
        with transaction.atomic():
            pids["a"] = connection.connection.info.backend_pid
            _add_chunk(workspace, "Mötesprotokoll")  # holds the row of "mötesprotokoll"
            first_written.set()
            deadline = time.monotonic() + 10
            while not _waits_for_a_lock(pids.get("b", -1)) and time.monotonic() < deadline:
                time.sleep(0.05)
            _add_chunk(workspace, "Avvikelserapport")  # needs "avvikelserapport", which b wants too

    def writer_b() -> None:
        first_written.wait(10)
        with transaction.atomic():
            pids["b"] = connection.connection.info.backend_pid
            _add_chunk(workspace, "Avvikelserapport och mötesprotokoll")

    assert run_at_once(writer_a, writer_b, timeout=30) == []
    with connection.cursor() as cursor:
        cursor.execute("SELECT lexeme, df FROM chunks_scopetermstat WHERE workspace_id = %s", [workspace.pk])
        df = dict(cursor.fetchall())
        assert (df["avvikelserapport"], df["mötesprotokoll"]) == (2, 2)
        cursor.execute("SELECT n_docs FROM chunks_scopestat WHERE workspace_id = %s", [workspace.pk])
        assert cursor.fetchone()[0] == 3
