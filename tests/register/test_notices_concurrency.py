"""Two creators at once, each on its own database connection: one notice, one flag, one digest.

The first creator holds its transaction open after inserting; the second, which read before that insert
committed, must wait on the unique constraint and then find the row. The test waits until Postgres shows the
second one blocked on that lock before letting the first commit, so the race is the one that matters, every run.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.core.mail import EmailMessage
from django.db import connection, connections, transaction
from pytest_django import Settings

from law.models import StatuteChange, StatuteVersion
from register.models import ChangeNotice, DigestSent
from register.notices.digests import digests_send
from register.notices.services import notices_create_for_versions
from tests.chunks.conftest import wait_for
from tests.law.sfs_records_fixtures import provforetag_statute, record
from tests.register.notices_fixtures import sync_records, workspace_with

pytestmark = pytest.mark.django_db(transaction=True)


def _blocked_on_a_lock() -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT COUNT(*) AS waiting FROM pg_stat_activity WHERE datname = current_database()"
                       " AND wait_event_type = 'Lock'")
        return cursor.fetchone()[0] > 0


def _remove_notices_keep_versions() -> None:
    """As if the import had died after applying the version, before notifying."""
    ChangeNotice.objects.all().delete()


@dataclass(frozen=True)
class RaceResult:
    first: int
    second: int


def _race(run: Callable[[], int], *, what: str) -> RaceResult:
    """Run `run` twice on two connections: the first holds its transaction open after running until Postgres
    shows the second blocked on a lock (`what` names it in a timeout), then commits; both results come back."""
    results: dict[str, int] = {}
    errors: list[BaseException] = []
    first_inserted, release_first = threading.Event(), threading.Event()

    def first() -> None:
        try:
            with transaction.atomic():
                results["first"] = run()
                first_inserted.set()
                release_first.wait(timeout=60)
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)
            first_inserted.set()
        finally:
            connections.close_all()

    def second() -> None:
        try:
            results["second"] = run()
        except BaseException as exc:
            errors.append(exc)
        finally:
            connections.close_all()

    a = threading.Thread(target=first)
    a.start()
    assert first_inserted.wait(timeout=60)
    b = threading.Thread(target=second)
    b.start()
    wait_for(_blocked_on_a_lock, timeout=30, what=what)
    release_first.set()
    a.join(timeout=60)
    b.join(timeout=60)
    assert errors == []
    return RaceResult(first=results["first"], second=results["second"])


def test_two_creators_at_once_make_one_notice(clean_queue: None, settings: Settings, tmp_path: Path) -> None:
    settings.SFS_VECTORS_PATH = str(tmp_path / "none.npz")
    doc = provforetag_statute()
    ws, _, (item,) = workspace_with("Alices AB", owner_name="alice", documents=[doc])
    sync_records(tmp_path, [record("2099:1")])
    assert StatuteChange.objects.exists() and ChangeNotice.objects.count() == 1
    _remove_notices_keep_versions()
    item.needs_reassessment = False
    item.save(update_fields=["needs_reassessment"])

    result = _race(lambda: notices_create_for_versions().total,
                   what="the second creator to wait on the first one's insert")
    assert result == RaceResult(first=1, second=0)
    notice = ChangeNotice.objects.get()
    assert notice.workspace == ws and notice.version == StatuteVersion.objects.get(document=doc, is_current=True)
    item.refresh_from_db()
    assert item.needs_reassessment is True


def test_two_digest_senders_at_once_send_once(clean_queue: None, settings: Settings, tmp_path: Path,
                                              mailoutbox: list[EmailMessage]) -> None:
    settings.SFS_VECTORS_PATH = str(tmp_path / "none.npz")
    settings.NOTICE_DIGEST_HOUR = 0
    doc = provforetag_statute()
    workspace_with("Alices AB", owner_name="alice", documents=[doc])
    sync_records(tmp_path, [record("2099:1")])

    result = _race(lambda: digests_send().sent, what="the second sender to wait on the first one's row")
    assert result == RaceResult(first=1, second=0)
    assert len(mailoutbox) == 1 and DigestSent.objects.count() == 1
