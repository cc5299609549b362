"""How the assistant is doing: aggregates over RetrievalLog, Message and Feedback.

Everything is computed by Postgres (GROUP BY, COUNT ... FILTER, percentile_cont);
Python only adds up the (at most 90) day rows and fills in the days without questions. `workspace_ids=None` means
every workspace and is for staff callers only: the pages decide who may ask.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, time, timedelta

from django.contrib.postgres.fields import ArrayField
from django.core.cache import cache
from django.db import connection, transaction
from django.db.models import Aggregate, Count, F, FloatField, Max, Q, Sum
from django.db.models.functions import Lower, Trim, TruncDate
from django.utils import timezone

from .models import Feedback, Message, RetrievalLog

PERIODS = (7, 30, 90)
DEFAULT_PERIOD = 30
INTENTS = ("greeting", "meta", "factual", "task")
ANSWER_MODES = tuple(v for v in Message.AnswerMode.values if v)
LATEST_NEGATIVE = 20
FOUND_NOTHING = 20
CACHE_SECONDS = 600


class Percentiles(Aggregate):
    """Postgres's percentile_cont over an array of fractions: one sort gives p50 and p95,
    interpolated like numpy's default."""

    function = "percentile_cont"
    template = "%(function)s(ARRAY[%(fractions)s]::float8[]) WITHIN GROUP (ORDER BY %(expressions)s)"
    output_field = ArrayField(FloatField())

    def __init__(self, expression, fractions=(0.5, 0.95), **extra):
        super().__init__(expression, fractions=", ".join(str(float(f)) for f in fractions), **extra)


def period_start(days: int, *, now: datetime | None = None) -> datetime:
    """Midnight (local time) `days - 1` days ago: a 7-day period is today and the six days before."""
    today = timezone.localdate(now or timezone.now())
    first = today - timedelta(days=days - 1)
    return timezone.make_aware(datetime.combine(first, time.min))


def _logs(workspace_ids: Sequence[int] | None, since: datetime):
    logs = RetrievalLog.objects.filter(created_at__gte=since)
    return logs if workspace_ids is None else logs.filter(workspace_id__in=list(workspace_ids))


_COUNTS = ("questions", *(f"intent_{i}" for i in INTENTS), *(f"mode_{m}" for m in ANSWER_MODES), "retrieving",
           "zero_match", "cache_hit", "degraded", "considered_sum", "included_sum", "tokens_sum")


def _day_figures() -> dict:
    """Each day's aggregates: counts and sums (which add up to the period's) and the day's percentiles."""
    retrieving = Q(skipped=False)
    return {
        "questions": Count("id"),
        **{f"intent_{i}": Count("id", filter=Q(intent=i)) for i in INTENTS},
        **{f"mode_{m}": Count("id", filter=Q(answer_mode=m)) for m in ANSWER_MODES},
        "retrieving": Count("id", filter=retrieving),
        "zero_match": Count("id", filter=retrieving & Q(zero_match=True)),
        "cache_hit": Count("id", filter=retrieving & Q(cache_hit=True)),
        # Degraded: the search fell back (embedder down) or the model failed.
        "degraded": Count("id", filter=Q(degraded=True) | Q(answer_mode=Message.AnswerMode.ERROR)),
        "considered_sum": Sum("chunks_considered", filter=retrieving, default=0),
        "included_sum": Sum("chunks_included", filter=retrieving, default=0),
        "tokens_sum": Sum("tokens_used", filter=retrieving, default=0),
        "retrieval": Percentiles("retrieval_ms"),
        "total": Percentiles("total_ms"),
    }


def _shape(row: dict) -> dict:
    """A row of raw aggregates as the dashboard shows it: rates in 0..1, times in ms, rounded."""
    retrieving, questions = row["retrieving"], row["questions"]

    def rate(n, of):
        return round(n / of, 4) if of else None

    def avg(total, digits=1):
        return round(total / retrieving, digits) if retrieving else None

    def pct(values):
        values = [v for v in (values or []) if v is not None]
        return {"p50": round(values[0], 1), "p95": round(values[1], 1)} if values else {"p50": None, "p95": None}

    return {
        "questions": questions,
        "by_intent": {i: row[f"intent_{i}"] for i in INTENTS},
        "by_answer_mode": {m: row[f"mode_{m}"] for m in ANSWER_MODES},
        "retrieving": retrieving,
        "zero_match": row["zero_match"],
        "zero_match_rate": rate(row["zero_match"], retrieving),
        "cache_hit_rate": rate(row["cache_hit"], retrieving),
        "degraded": row["degraded"],
        "degraded_rate": rate(row["degraded"], questions),
        "retrieval_ms": pct(row.get("retrieval")),
        "total_ms": pct(row.get("total")),
        "sources_considered_avg": avg(row["considered_sum"]),
        "sources_included_avg": avg(row["included_sum"]),
        "context_tokens_avg": avg(row["tokens_sum"], 0),
    }


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
    """The dashboard's figures for the last `days` days (today included) of the given workspaces.

    Two passes over the period's logs: one GROUP BY day (counts, sums, the day's percentiles),
    whose counts and sums add up to the period's, and one for the period's percentiles.
    """
    if days not in PERIODS:
        raise ValueError(f"days must be one of {PERIODS}")
    since = period_start(days, now=now)
    logs = _logs(workspace_ids, since).order_by()
    with transaction.atomic():
        # Sorting a period's latencies for the percentiles must not spill to disk.
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL work_mem = '32MB'")
        rows = list(logs.annotate(day=TruncDate("created_at")).values("day").annotate(**_day_figures())
                    .order_by("day"))
        period = logs.aggregate(retrieval=Percentiles("retrieval_ms"), total=Percentiles("total_ms"))
    totals = {key: sum(row[key] for row in rows) for key in _COUNTS}
    empty = _shape(dict.fromkeys(_COUNTS, 0))
    by_day = {row["day"]: _shape(row) for row in rows}
    first = since.date()
    daily = [{"date": (first + timedelta(days=n)).isoformat(), **by_day.get(first + timedelta(days=n), empty)}
             for n in range(days)]
    return {
        "days": days, "start": first.isoformat(), "end": (first + timedelta(days=days - 1)).isoformat(),
        "totals": _shape({**totals, **period}), "daily": daily, "feedback": _feedback(workspace_ids, since),
        "found_nothing": _found_nothing(logs),
    }


def _version(workspace_ids: Sequence[int] | None) -> str:
    """What changes when the figures may have: the newest log and the newest rating (two index look-ups)."""
    logs = RetrievalLog.objects.all() if workspace_ids is None else \
        RetrievalLog.objects.filter(workspace_id__in=list(workspace_ids))
    newest = logs.order_by("-created_at").values_list("id", flat=True).first()
    feedback = Feedback.objects.all() if workspace_ids is None else \
        Feedback.objects.filter(message__conversation__workspace_id__in=list(workspace_ids))
    rated = feedback.aggregate(last=Max("updated_at"), n=Count("id"))
    return f"{newest}:{rated['last'].timestamp() if rated['last'] else 0}:{rated['n']}"


def retrieval_stats_cached(*, workspace_ids: Sequence[int] | None, days: int) -> dict:
    """retrieval_stats, reused until a new turn is logged, an answer is rated or the day changes.

    Reading the page again (another owner, the period switch back and forth) then costs two index
    look-ups instead of two passes over the period's logs.
    """
    if days not in PERIODS:
        raise ValueError(f"days must be one of {PERIODS}")
    scope = "all" if workspace_ids is None else ",".join(str(i) for i in sorted(workspace_ids))
    key = f"dashboard:stats:{scope}:{days}:{timezone.localdate().isoformat()}:{_version(workspace_ids)}"
    stats = cache.get(key)
    if stats is None:
        stats = retrieval_stats(workspace_ids=workspace_ids, days=days)
        cache.set(key, stats, CACHE_SECONDS)
    return stats
