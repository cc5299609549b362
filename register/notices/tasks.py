"""Celery entry points of lagbevakning (thin: the services do the work). Registered by register's AppConfig."""

from __future__ import annotations

from celery import shared_task

from . import digests, services


@shared_task(name="register.notices.tasks.notices_scan", ignore_result=True)
def notices_scan() -> int:
    # Idempotent and driven by the data: catches what an import left undone (a worker that died after
    # applying a version, before notifying). The count made is logged by the worker.
    return services.notices_create_for_versions().total


@shared_task(name="register.notices.tasks.digests_send", ignore_result=True)
def digests_send() -> int:
    return digests.digests_send().sent
