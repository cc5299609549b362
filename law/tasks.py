"""Celery entry points of the legal corpus."""

from __future__ import annotations

from celery import shared_task
from django.core.management import call_command


@shared_task(name="law.tasks.sync_sfs_daily", ignore_result=True)
def sync_sfs_daily() -> None:
    # The command is the one place that applies records and then chunks what changed (law may not
    # import chunks); called by name, so this module does not import it either.
    call_command("sync_sfs", "--service", "--no-progress")
