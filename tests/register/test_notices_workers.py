"""Real Celery workers: a statute applied by an import that died before notifying is noticed by the hourly
scan, and two workers scanning at once make the notice once."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytest_django import Settings

from law.models import StatuteVersion
from law.services import statute_record_apply
from law.sfs_records import parse_record
from register.models import ChangeNotice
from register.notices.tasks import notices_scan
from register.selectors import audit_trail
from tests.chunks.conftest import WorkerFactory, wait_for
from tests.law.sfs_records_fixtures import provforetag_statute, record
from tests.register.notices_fixtures import workspace_with

pytestmark = pytest.mark.django_db(transaction=True)
TASK = "register.notices.tasks.notices_scan"


def test_two_workers_scanning_at_once_notice_an_orphaned_version_once(worker_factory: WorkerFactory, settings: Settings,
                                                                      tmp_path: Path) -> None:
    settings.SFS_VECTORS_PATH = str(tmp_path / "none.npz")
    doc = provforetag_statute()
    ws, _, (item,) = workspace_with("Alices AB", owner_name="alice", documents=[doc])
    # The import applied the version and died before its notices: nothing notified yet.
    statute_record_apply(parse_record(record("2099:1")), origin=StatuteVersion.Origin.FILE, source_name="r.jsonl",
                         new_since=None, process=False)
    assert not ChangeNotice.objects.exists()

    first, second = worker_factory("notices-1"), worker_factory("notices-2")
    notices_scan.delay()
    notices_scan.delay()
    wait_for(lambda: len(first.results(TASK)) + len(second.results(TASK)) == 2, timeout=120,
             what="both scans to finish")

    assert sorted(first.results(TASK) + second.results(TASK)) == ["0", "1"]
    notice = ChangeNotice.objects.get()
    assert (notice.workspace, notice.item) == (ws, item)
    item.refresh_from_db()
    assert item.needs_reassessment is True
    flags = [e for e in audit_trail(ws, item=item) if "needs_reassessment" in e.changes_dict
             and e.changes_dict["needs_reassessment"] == [False, True]]
    assert len(flags) == 1
