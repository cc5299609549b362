"""The worker lowers its own CPU priority, so embedding uploads yields to web requests (WORKER_NICE)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from compliance.celery import lower_priority
from tests.chunks.conftest import WorkerFactory, wait_for


def _nice(pid: int) -> int:
    # Field 19 of /proc/<pid>/stat; the command name before it may hold spaces, so split after ")".
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16])


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_started_worker_runs_at_the_configured_niceness_in_its_own_autogroup(worker_factory: WorkerFactory) -> None:
    # 19: above whatever niceness the test run itself has, so only the worker's setting can explain it.
    worker = worker_factory("nice", pool="prefork", extra_env={"WORKER_NICE": "19"})
    assert _nice(worker.proc.pid) == 19
    # The pool process embeds; it runs at the same priority.
    children = wait_for(worker.children, timeout=30, what="the pool process")
    assert all(_nice(pid) == 19 for pid in children)
    # Started in a session of its own, the worker also lowers its autogroup's share against the web's.
    autogroup = Path(f"/proc/{worker.proc.pid}/autogroup")
    if autogroup.exists():
        assert autogroup.read_text().split()[-1] == "19"


def test_zero_leaves_the_priority_alone() -> None:
    before = os.nice(0)
    lower_priority(0)
    assert os.nice(0) == before
