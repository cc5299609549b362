"""The Celery app. Tasks live in each app's tasks.py and stay thin."""

from __future__ import annotations

import logging
import os
from typing import Any

from celery import Celery
from celery.signals import worker_init, worker_process_init
from django.conf import settings

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "compliance.settings")

log = logging.getLogger(__name__)

app = Celery("lagrum")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

AUTOGROUP = "/proc/self/autogroup"


def lower_priority(nice: int) -> None:
    """Run this process at niceness `nice` (never higher priority than it has), so embedding
    uploads yields the CPU to web requests on the same cores.

    With autogroup scheduling (Linux's default on desktops and many servers) the CPU is first
    shared between sessions and nice orders processes only within one: a worker in its own
    session (bench_load, systemd, a container) would still take half the CPU from the web
    server. So a worker that leads its session also sets its autogroup's nice. One that does
    not (started from a shell with the web server, as scripts/run.sh does) shares the web
    server's autogroup already, where its own nice suffices; writing the group's would lower
    the web server's priority too.
    """
    if nice <= 0:
        return
    current = os.nice(0)
    if current < nice:
        os.nice(nice - current)
    if os.path.exists(AUTOGROUP) and os.getsid(0) == os.getpid():
        try:
            with open(AUTOGROUP, "w") as f:
                f.write(f"{nice}\n")
        except OSError as exc:  # best effort: a read-only /proc or a kernel without it
            log.info("could not set the autogroup's nice: %s", exc)


@worker_init.connect
def _worker_nice(**kwargs: Any) -> None:
    lower_priority(settings.WORKER_NICE)


@worker_process_init.connect
def _pool_process_nice(**kwargs: Any) -> None:
    # Pool processes inherit the main process's nice; this covers a pool started otherwise.
    lower_priority(settings.WORKER_NICE)
