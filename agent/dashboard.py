"""How the assistant is doing: aggregates over RetrievalLog, Message and Feedback.

Everything is computed by Postgres (GROUP BY, COUNT ... FILTER, percentile_cont);
Python only fills in the days without questions. `workspace_ids=None` means
every workspace and is for staff callers only: the pages decide who may ask.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, time, timedelta

from django.db.models import Aggregate, Avg, Count, F, FloatField, Max, Q
from django.db.models.functions import Lower, Trim, TruncDate
from django.utils import timezone

from .models import Feedback, Message, RetrievalLog

PERIODS = (7, 30, 90)
DEFAULT_PERIOD = 30
INTENTS = ("greeting", "meta", "factual", "task")
ANSWER_MODES = tuple(v for v in Message.AnswerMode.values if v)
LATEST_NEGATIVE = 20
FOUND_NOTHING = 20


class Percentile(Aggregate):
    """Postgres's percentile_cont: the interpolated percentile, like numpy's default."""

    function = "percentile_cont"
    template = "%(function)s(%(fraction)s) WITHIN GROUP (ORDER BY %(expressions)s)"
    output_field = FloatField()

    def __init__(self, expression, fraction: float, **extra):
        super().__init__(expression, fraction=float(fraction), **extra)


def period_start(days: int, *, now: datetime | None = None) -> datetime:
    """Midnight (local time) `days - 1` days ago: a 7-day period is today and the six days before."""
    today = timezone.localdate(now or timezone.now())
    first = today - timedelta(days=days - 1)
    return timezone.make_aware(datetime.combine(first, time.min))


def _logs(workspace_ids: Sequence[int] | None, since: datetime):
    logs = RetrievalLog.objects.filter(created_at__gte=since)
    return logs if workspace_ids is None else logs.filter(workspace_id__in=list(workspace_ids))


def _figures() -> dict:
    """The aggregates shared by the period's totals and each day's row."""
    retrieving = Q(skipped=False)
    return {
        "questions": Count("id"),
        **{f"intent_{i}": Count("id", filter=Q(intent=i)) for i in INTENTS},
        **{f"mode_{m}": Count("id", filter=Q(message__answer_mode=m)) for m in ANSWER_MODES},
        "retrieving": Count("id", filter=retrieving),
        "zero_match": Count("id", filter=retrieving & Q(zero_match=True)),
        "cache_hit": Count("id", filter=retrieving & Q(cache_hit=True)),
        "degraded": Count("id", filter=Q(degraded=True) | Q(message__degraded=True)),
        "retrieval_p50": Percentile("retrieval_ms", 0.5),
        "retrieval_p95": Percentile("retrieval_ms", 0.95),
        "total_p50": Percentile("total_ms", 0.5),
        "total_p95": Percentile("total_ms", 0.95),
        "considered_avg": Avg("chunks_considered", filter=retrieving),
        "included_avg": Avg("chunks_included", filter=retrieving),
        "tokens_avg": Avg("tokens_used", filter=retrieving),
    }


def _shape(row: dict) -> dict:
    """A row of raw aggregates as the dashboard shows it: rates in 0..1, times in ms, rounded."""
    retrieving = row["retrieving"]

    def rate(n):
        return round(n / retrieving, 4) if retrieving else None

    def r(value, digits=1):
        return None if value is None else round(float(value), digits)

    return {
        "questions": row["questions"],
        "by_intent": {i: row[f"intent_{i}"] for i in INTENTS},
        "by_answer_mode": {m: row[f"mode_{m}"] for m in ANSWER_MODES},
        "retrieving": retrieving,
        "zero_match": row["zero_match"],
        "zero_match_rate": rate(row["zero_match"]),
        "cache_hit_rate": rate(row["cache_hit"]),
        "degraded": row["degraded"],
        "degraded_rate": round(row["degraded"] / row["questions"], 4) if row["questions"] else None,
        "retrieval_ms": {"p50": r(row["retrieval_p50"]), "p95": r(row["retrieval_p95"])},
        "total_ms": {"p50": r(row["total_p50"]), "p95": r(row["total_p95"])},
        "sources_considered_avg": r(row["considered_avg"]),
        "sources_included_avg": r(row["included_avg"]),
        "context_tokens_avg": r(row["tokens_avg"], 0),
    }


def _empty_day() -> dict:
    return _shape({"questions": 0, **{f"intent_{i}": 0 for i in INTENTS}, **{f"mode_{m}": 0 for m in ANSWER_MODES},
                   "retrieving": 0, "zero_match": 0, "cache_hit": 0, "degraded": 0, "retrieval_p50": None,
                   "retrieval_p95": None, "total_p50": None, "total_p95": None, "considered_avg": None,
                   "included_avg": None, "tokens_avg": None})


def _feedback(workspace_ids: Sequence[int] | None, since: datetime) -> dict:
    feedback = Feedback.objects.filter(created_at__gte=since)
    if workspace_ids is not None:
        feedback = feedback.filter(message__conversation__workspace_id__in=list(workspace_ids))
    counts = feedback.aggregate(good=Count("id", filter=Q(rating=1)), bad=Count("id", filter=Q(rating=-1)))
    total = counts["good"] + counts["bad"]
    latest = (
        feedback.filter(rating=-1).order_by("-created_at", "-id")
        .values("id", "comment", "created_at", "message_id", conversation_id=F("message__conversation_id"), workspace_slug=F("message__conversation__workspace__slug"),
                answer=F("message__content"))[:LATEST_NEGATIVE]
    )
    return {
        "good": counts["good"], "bad": counts["bad"],
        "good_share": round(counts["good"] / total, 4) if total else None,
        "bad_share": round(counts["bad"] / total, 4) if total else None,
        "latest_bad": [{**row, "created_at": row["created_at"].isoformat(), "answer": row["answer"][:300]}
                       for row in latest],
    }


def _found_nothing(logs) -> list[dict]:
    """The questions that found nothing, most frequent first; the same words in another case count as one.

    Grouped per workspace, so one workspace's question never carries another's link.
    """
    rows = (
        logs.filter(skipped=False, zero_match=True).exclude(query="")
        .values("workspace_id", normalised=Lower(Trim("query")))
        .annotate(count=Count("id"), question=Max("query"), last_at=Max("created_at"),
                  conversation_id=Max("message__conversation_id"), workspace_slug=Max("workspace__slug"))
        .order_by("-count", "-last_at")[:FOUND_NOTHING]
    )
    return [{"question": row["question"][:500], "count": row["count"], "last_at": row["last_at"].isoformat(),
             "conversation_id": row["conversation_id"], "workspace_slug": row["workspace_slug"]} for row in rows]


def retrieval_stats(*, workspace_ids: Sequence[int] | None, days: int, now: datetime | None = None) -> dict:
    """The dashboard's figures for the last `days` days (today included) of the given workspaces."""
    if days not in PERIODS:
        raise ValueError(f"days must be one of {PERIODS}")
    since = period_start(days, now=now)
    logs = _logs(workspace_ids, since)
    totals = _shape(logs.aggregate(**_figures()))
    by_day = {
        row["day"]: _shape(row)
        for row in logs.annotate(day=TruncDate("created_at")).values("day").annotate(**_figures()).order_by("day")
    }
    first = since.date()
    daily = [{"date": (first + timedelta(days=n)).isoformat(), **by_day.get(first + timedelta(days=n), _empty_day())}
             for n in range(days)]
    return {
        "days": days, "start": first.isoformat(), "end": (first + timedelta(days=days - 1)).isoformat(),
        "totals": totals, "daily": daily, "feedback": _feedback(workspace_ids, since),
        "found_nothing": _found_nothing(logs),
    }
