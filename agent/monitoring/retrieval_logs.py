"""The retrieval logs' life cycle: old rows are pruned after a retention period."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from agent.models import RetrievalLog, RetrievalLogDay
from compliance.clock import swedish_date

from .dashboard import rollup_day_again


def retrieval_log_prune(*, days: int | None = None, now: datetime | None = None) -> int:
    """Delete the logs older than `days` (RETRIEVAL_LOG_RETENTION_DAYS); returns how many went.

    Nothing points at a RetrievalLog, so Django deletes them with one DELETE, not row by row.
    The dashboard's daily rollup follows: days before the cutoff's go, the cutoff's own day (pruned
    in part) is aggregated again.
    """
    days = settings.RETRIEVAL_LOG_RETENTION_DAYS if days is None else days
    cutoff = (now or timezone.now()) - timedelta(days=days)
    deleted, _ = RetrievalLog.objects.filter(created_at__lt=cutoff).delete()
    cutoff_day = swedish_date(cutoff)
    RetrievalLogDay.objects.filter(day__lt=cutoff_day).delete()
    rollup_day_again(cutoff_day)
    return deleted
