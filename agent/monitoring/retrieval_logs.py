"""The retrieval logs' life cycle: written once per turn, pruned after a retention period."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from agent.models import Message, RetrievalLog, RetrievalLogDay
from compliance.clock import swedish_date

from .dashboard import rollup_day_again

log = logging.getLogger(__name__)


def retrieval_log_save(turn_log: RetrievalLog | None, *, message: Message | None = None,
                       answer_mode: str = "") -> RetrievalLog | None:
    """Save a turn's log (built by the pre-model step) with the answer it led to; a log already saved is left.

    One INSERT once the answer exists, rather than an INSERT before the model and an UPDATE after it: the
    pre-model step does not wait for the write, and a turn costs one statement less. A turn that ends without an
    answer (the stream abandoned, the context API) is saved without a message. The log is for the dashboard;
    failing to write it must not cost the answer, so the error is logged, not raised.
    """
    if turn_log is None or turn_log.pk is not None:
        return turn_log
    turn_log.message, turn_log.answer_mode = message, answer_mode
    try:
        turn_log.save(force_insert=True)
    except Exception:  # the dashboard's row; losing it must not lose the answer
        log.exception("could not save the retrieval log")
        return None
    return turn_log


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
