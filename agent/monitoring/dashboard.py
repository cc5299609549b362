"""How the assistant is doing: aggregates over RetrievalLog, Message and Feedback.

Everything is computed by Postgres (GROUP BY, COUNT ... FILTER, percentile_cont);
Python only adds up the (at most 90) day rows and fills in the days without questions. `workspace_ids=None` means
every workspace and is for staff callers only: the pages decide who may ask.

Closed days are aggregated once into RetrievalLogDay (per workspace, and for every workspace together) by
`rollup_through`, which celery beat runs every few minutes and a read runs itself when beat is behind; a
period is then its rolled-up days plus the logs since (today, live). A day is rolled up ROLLUP_GRACE after
it ends, so the answer mode a turn started before midnight writes after it still lands in its day.
The period's percentiles are exact (sorted by Postgres) up to EXACT_PERCENTILE_ROWS logs; above that they
are merged from the days' latency histograms (buckets LATENCY_RATIO wide: within 1 % of the exact value).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from django.contrib.postgres.fields import ArrayField
from django.core.cache import cache
from django.db import connection, transaction
from django.db.models import (
    Aggregate,
    Count,
    F,
    FloatField,
    Func,
    IntegerField,
    Max,
    Q,
    QuerySet,
    Sum,
)
from django.db.models.expressions import Combinable
from django.db.models.functions import Lower, Trim, TruncDate
from django.utils import timezone

from agent.models import Feedback, Message, RetrievalLog, RetrievalLogDay, RollupState
from compliance.clock import STOCKHOLM, swedish_date, swedish_midnight, swedish_today
from compliance.models import Workspace
from compliance.sql import dict_cursor

from .dashboard_version import dashboard_version

PERIODS = (7, 30, 90)
DEFAULT_PERIOD = 30
INTENTS = ("greeting", "meta", "factual", "task")
ANSWER_MODES = tuple(v for v in Message.AnswerMode.values if v)
LATEST_NEGATIVE = 20
FOUND_NOTHING = 20
WORDS_LISTED = 20  # of the words no source used, and of the glossary's terms used
CACHE_SECONDS = 600
# The shape of retrieval_stats' result, in its cache key: figures cached by a release with other keys are not served.
STATS_SHAPE = 2
ROLLUP_GRACE = timedelta(minutes=15)
ROLLUP_NAME = "retrieval_logs"
EXACT_PERCENTILE_ROWS = 20_000
LATENCY_MIN_MS = 0.01
LATENCY_RATIO = 1.02


class Percentiles(Aggregate):
    """Postgres's percentile_cont over an array of fractions: one sort gives p50 and p95,
    interpolated like numpy's default."""

    function = "percentile_cont"
    template = "%(function)s(ARRAY[%(fractions)s]::float8[]) WITHIN GROUP (ORDER BY %(expressions)s)"
    output_field = ArrayField(FloatField())

    def __init__(self, expression: str | Combinable, fractions: Sequence[float] = (0.5, 0.95), **extra: Any) -> None:
        super().__init__(expression, fractions=", ".join(str(float(f)) for f in fractions), **extra)


class LatencyBucket(Func):
    """A latency's histogram bucket: geometric, LATENCY_RATIO wide, from LATENCY_MIN_MS up."""

    template = (f"floor(ln(greatest(%(expressions)s, {LATENCY_MIN_MS}::float8) / {LATENCY_MIN_MS}::float8)"
                f" / ln({LATENCY_RATIO}::float8))::int")
    output_field = IntegerField()


def _bucket_value(bucket: int) -> float:
    """The bucket's geometric middle: at most half a bucket (about 1 %) from any value in it."""
    return LATENCY_MIN_MS * LATENCY_RATIO ** (bucket + 0.5)


def sketch_percentiles(histogram: dict[int, int], fractions: Sequence[float] = (0.5, 0.95)) -> list[float] | None:
    """percentile_cont's interpolation over a histogram's bucket values (None when it is empty)."""
    n = sum(histogram.values())
    if not n:
        return None
    ordered = sorted(histogram.items())

    def value_at(rank: int) -> float:
        seen = 0
        for bucket, count in ordered:
            seen += count
            if rank < seen:
                return _bucket_value(bucket)
        return _bucket_value(ordered[-1][0])

    out = []
    for fraction in fractions:
        position = fraction * (n - 1)
        low = math.floor(position)
        a, b = value_at(low), value_at(min(low + 1, n - 1))
        out.append(a + (b - a) * (position - low))
    return out


def period_start(days: int, *, now: datetime | None = None) -> datetime:
    """Midnight (Stockholm) `days - 1` days ago: a 7-day period is today and the six days before."""
    return swedish_midnight(swedish_date(now or timezone.now()) - timedelta(days=days - 1))


def _logs(workspace_ids: Sequence[int] | None, since: datetime) -> QuerySet[RetrievalLog]:
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

    def rate(n: int, of: int) -> float | None:
        return round(n / of, 4) if of else None

    def avg(total: int, digits: int = 1) -> float | None:
        return round(total / retrieving, digits) if retrieving else None

    def pct(values: list[float | None] | None) -> dict[str, float | None]:
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


def _found_nothing(logs: QuerySet[RetrievalLog]) -> list[dict]:
    """The questions that found nothing, most frequent first; the same words in another case count as one.

    Grouped per workspace, so one workspace's question never carries another's link. The links (the
    conversation of the group's newest message, the workspace's slug) are looked up for the listed
    groups only: joining every zero-match log to its message made Postgres read all messages.
    """
    rows = list(
        logs.filter(skipped=False, zero_match=True).exclude(query="")
        .values("workspace_id", normalised=Lower(Trim("query")))
        .annotate(count=Count("*"), question=Max("query"), last_at=Max("created_at"), message_id=Max("message_id"))
        .order_by("-count", "-last_at")[:FOUND_NOTHING]
    )
    conversations = dict(Message.objects.filter(pk__in=[r["message_id"] for r in rows if r["message_id"]])
                         .values_list("id", "conversation_id"))
    slugs = dict(Workspace.objects.filter(pk__in={r["workspace_id"] for r in rows}).values_list("id", "slug"))
    return [{"question": row["question"][:500], "count": row["count"], "last_at": row["last_at"].isoformat(),
             "conversation_id": conversations.get(row["message_id"]), "workspace_slug": slugs.get(row["workspace_id"])}
            for row in rows]


def _words(logs: QuerySet[RetrievalLog], column: str) -> list[dict]:
    """The words of the logs' list `column`, most asked first; the same word in another case counts as one.

    Grouped per workspace like `_found_nothing`: a word is listed with the workspace whose questions wrote it,
    and a workspace's page reads only its own logs. Each word counts the questions (not the times) it was in:
    a question's words are made distinct where they are read, so the groups need no count(DISTINCT), which
    sorted every group (a quarter of the query's time over 100k logs); nor is the subquery ordered.
    """
    subquery = logs.exclude(**{column: []}).order_by().values("id", "workspace_id", column, "created_at")
    sql, params = subquery.query.sql_with_params()
    with dict_cursor() as cursor:
        cursor.execute(f"""
            SELECT l.workspace_id, w.word, count(*) AS count, max(l.created_at) AS last_at
            FROM ({sql}) AS l,
                 LATERAL (SELECT DISTINCT lower(x.word) AS word FROM jsonb_array_elements_text(l.{column}) AS x(word)) AS w
            GROUP BY l.workspace_id, w.word
            ORDER BY count DESC, last_at DESC, w.word
            LIMIT %s""", [*params, WORDS_LISTED])
        rows = cursor.fetchall()
    slugs = dict(Workspace.objects.filter(pk__in={r["workspace_id"] for r in rows}).values_list("id", "slug"))
    return [{"word": row["word"], "count": row["count"], "last_at": row["last_at"].isoformat(),
             "workspace_slug": slugs.get(row["workspace_id"])} for row in rows]


_DAY_FIELDS = (*_COUNTS, "retrieval_p50", "retrieval_p95", "total_p50", "total_p95", "retrieval_buckets",
               "retrieval_counts", "total_buckets", "total_counts")


def _histograms(logs: QuerySet[RetrievalLog], key_fields: tuple[str, ...]) -> dict[str, dict[tuple, dict[int, int]]]:
    """Latency histograms of `logs` per key (e.g. workspace and day): {metric: {key: {bucket: count}}}."""
    out: dict[str, dict[tuple, dict[int, int]]] = {}
    for metric in ("retrieval", "total"):
        column = f"{metric}_ms"
        rows = (logs.filter(**{f"{column}__isnull": False}).annotate(bucket=LatencyBucket(column))
                .values(*key_fields, "bucket").annotate(n=Count("id")))
        hist: dict[tuple, dict[int, int]] = defaultdict(dict)
        for row in rows:
            hist[tuple(row[k] for k in key_fields)][row["bucket"]] = row["n"]
        out[metric] = hist
    return out


def _rollup_days(first: date, last: date, *, per_workspace: bool = True) -> int:
    """(Re)aggregate the logs of days first..last into RetrievalLogDay (per workspace and for all, or
    only for all); returns the rows written."""
    logs = RetrievalLog.objects.filter(created_at__gte=swedish_midnight(first),
                                       created_at__lt=swedish_midnight(last + timedelta(days=1))).order_by()
    dated = logs.annotate(day=TruncDate("created_at", tzinfo=STOCKHOLM))
    rows = []
    for keys in ((("workspace_id", "day"), ("day",)) if per_workspace else (("day",),)):
        figures = list(dated.values(*keys).annotate(**_day_figures()))
        hist = _histograms(dated, keys)
        for row in figures:
            key = tuple(row[k] for k in keys)
            retrieval, total = row.pop("retrieval") or [None, None], row.pop("total") or [None, None]
            r_hist, t_hist = hist["retrieval"].get(key, {}), hist["total"].get(key, {})
            rows.append(RetrievalLogDay(
                **row, retrieval_p50=retrieval[0], retrieval_p95=retrieval[1], total_p50=total[0],
                total_p95=total[1], retrieval_buckets=sorted(r_hist), retrieval_counts=[r_hist[b] for b in sorted(r_hist)],
                total_buckets=sorted(t_hist), total_counts=[t_hist[b] for b in sorted(t_hist)]))
    with transaction.atomic():
        stale = RetrievalLogDay.objects.filter(day__gte=first, day__lte=last)
        (stale if per_workspace else stale.filter(workspace__isnull=True)).delete()
        RetrievalLogDay.objects.bulk_create(rows, batch_size=1000)
    return len(rows)


def rollup_through(*, now: datetime | None = None) -> date | None:
    """Roll up every closed day not yet in RetrievalLogDay; returns the last day that is (None: no logs yet).

    A day counts as closed ROLLUP_GRACE after its midnight. Concurrent callers (beat, two page views)
    wait for each other on the state row, so a day is never aggregated twice at once.
    """
    target = swedish_date((now or timezone.now()) - ROLLUP_GRACE) - timedelta(days=1)
    state = RollupState.objects.filter(name=ROLLUP_NAME).values_list("through", flat=True).first()
    if state is not None and state >= target:
        return state
    with transaction.atomic():
        RollupState.objects.get_or_create(name=ROLLUP_NAME)
        locked = RollupState.objects.select_for_update().get(name=ROLLUP_NAME)
        if locked.through is not None and locked.through >= target:
            return locked.through
        if locked.through is not None:
            first = locked.through + timedelta(days=1)
        else:
            oldest = RetrievalLog.objects.order_by("created_at").values_list("created_at", flat=True).first()
            first = swedish_date(oldest) if oldest else target + timedelta(days=1)
        if first <= target:
            _rollup_days(first, target)
        locked.through = target
        locked.save(update_fields=["through"])
    return target


def rollup_day_again(day: date) -> None:
    """Re-aggregate one day already rolled up (its logs changed: retention pruning cut into it)."""
    through = RollupState.objects.filter(name=ROLLUP_NAME).values_list("through", flat=True).first()
    if through is not None and day <= through:
        _rollup_days(day, day)


def rollup_after_workspace_delete(**kwargs: Any) -> None:
    """A deleted workspace's logs and rolled-up days go by cascade; every workspace's days counted them.
    Aggregate those again for the longest period the dashboard shows, and drop older ones (never shown)."""
    through = RollupState.objects.filter(name=ROLLUP_NAME).values_list("through", flat=True).first()
    if through is None:
        return
    first = swedish_today() - timedelta(days=max(PERIODS))
    RetrievalLogDay.objects.filter(workspace__isnull=True, day__lt=first).delete()
    if first <= through:
        _rollup_days(first, through, per_workspace=False)


def rollup_reset() -> None:
    """Forget every rolled-up day: the next read aggregates all history again (after logs were back-dated)."""
    with transaction.atomic():
        RollupState.objects.filter(name=ROLLUP_NAME).delete()
        RetrievalLogDay.objects.all().delete()


def _merge(rows: list[dict], metric: str) -> dict[int, int]:
    hist: dict[int, int] = defaultdict(int)
    for r in rows:
        for bucket, count in zip(r[f"{metric}_buckets"], r[f"{metric}_counts"], strict=True):
            hist[bucket] += count
    return hist


@dataclass(frozen=True)
class _RolledDays:
    """The rolled-up days of a scope: each day's raw figures (its workspaces' rows added up), and the stored
    rows themselves, whose latency histograms a large period's percentiles are merged from."""

    by_day: dict[date, dict]
    rows: list[dict]


def _rolled_days(workspace_ids: Sequence[int] | None, first: date, last: date) -> _RolledDays:
    """The rolled-up days first..last of the scope."""
    days = RetrievalLogDay.objects.filter(day__gte=first, day__lte=last)
    days = days.filter(workspace__isnull=True) if workspace_ids is None else \
        days.filter(workspace_id__in=list(workspace_ids))
    stored = list(days.values("day", *_DAY_FIELDS))
    by_day: dict[date, list[dict]] = defaultdict(list)
    for row in stored:
        by_day[row["day"]].append(row)
    out = {}
    for day, rows in by_day.items():
        combined = {key: sum(r[key] for r in rows) for key in _COUNTS}
        if len(rows) == 1:  # one workspace, or every workspace's own row: the day's exact percentiles
            r = rows[0]
            combined["retrieval"] = [r["retrieval_p50"], r["retrieval_p95"]] if r["retrieval_p50"] is not None else None
            combined["total"] = [r["total_p50"], r["total_p95"]] if r["total_p50"] is not None else None
        else:  # several chosen workspaces: their days' histograms merged
            combined["retrieval"] = sketch_percentiles(_merge(rows, "retrieval"))
            combined["total"] = sketch_percentiles(_merge(rows, "total"))
        out[day] = combined
    return _RolledDays(by_day=out, rows=stored)


def retrieval_stats(*, workspace_ids: Sequence[int] | None, days: int, now: datetime | None = None,
                    rollup: bool = True) -> dict:
    """The dashboard's figures for the last `days` days (today included) of the given workspaces.

    Closed days come from RetrievalLogDay (see `rollup_through`), the rest from the logs themselves in
    one GROUP BY day. `rollup=False` aggregates every log of the period (for checking the rollup).
    """
    if days not in PERIODS:
        raise ValueError(f"days must be one of {PERIODS}")
    since = period_start(days, now=now)
    first = since.date()
    through = rollup_through(now=now) if rollup else None
    rolled: _RolledDays | None = None  # None: every day of the period is read from the logs
    live_since = since
    if through is not None and through >= first:
        rolled = _rolled_days(workspace_ids, first, through)
        live_since = swedish_midnight(through + timedelta(days=1))
    rolled_by_day = rolled.by_day if rolled is not None else {}
    logs = _logs(workspace_ids, since).order_by()
    live = _logs(workspace_ids, live_since).order_by()
    with transaction.atomic():
        # Sorting a period's latencies for the percentiles must not spill to disk.
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL work_mem = '32MB'")
        rows = list(live.annotate(day=TruncDate("created_at", tzinfo=STOCKHOLM)).values("day").annotate(**_day_figures())
                    .order_by("day"))
        questions = sum(r["questions"] for r in rows) + sum(r["questions"] for r in rolled_by_day.values())
        if rolled is None or questions <= EXACT_PERCENTILE_ROWS:
            period = logs.aggregate(retrieval=Percentiles("retrieval_ms"), total=Percentiles("total_ms"))
        else:
            live_hist = _histograms(live, ())
            period = {}
            for metric in ("retrieval", "total"):
                merged = _merge(rolled.rows, metric)
                for bucket, count in live_hist[metric].get((), {}).items():
                    merged[bucket] += count
                period[metric] = sketch_percentiles(merged)
    by_day = {**rolled_by_day, **{row["day"]: row for row in rows}}
    totals = {key: sum(row[key] for row in by_day.values()) for key in _COUNTS}
    empty = _shape(dict.fromkeys(_COUNTS, 0))
    shaped = {day: _shape(row) for day, row in by_day.items()}
    daily = [{"date": (first + timedelta(days=n)).isoformat(), **shaped.get(first + timedelta(days=n), empty)}
             for n in range(days)]
    return {
        "days": days, "start": first.isoformat(), "end": (first + timedelta(days=days - 1)).isoformat(),
        "totals": _shape({**totals, **period}), "daily": daily, "feedback": _feedback(workspace_ids, since),
        "found_nothing": _found_nothing(logs), "unknown_words": _words(logs, "unknown_words"),
        "glossary_words": _words(logs, "glossary_words"),
    }


def retrieval_stats_cached(*, workspace_ids: Sequence[int] | None, days: int) -> dict:
    """retrieval_stats, reused until a log or rating of the scope is added, changed or deleted, or the
    (Stockholm) day changes, which moves every period's first and last day.

    Reading the page again (another owner, the period switch back and forth) then costs one look-up of
    the sum of the scope's change stamps (agent/dashboard_version.py) instead of two passes over the period's logs.
    """
    if days not in PERIODS:
        raise ValueError(f"days must be one of {PERIODS}")
    scope = "all" if workspace_ids is None else ",".join(str(i) for i in sorted(workspace_ids))
    key = (f"dashboard:stats:v{STATS_SHAPE}:{scope}:{days}:{swedish_today().isoformat()}:"
           f"{dashboard_version(workspace_ids)}")
    stats = cache.get(key)
    if stats is None:
        stats = retrieval_stats(workspace_ids=workspace_ids, days=days)
        cache.set(key, stats, CACHE_SECONDS)
    return stats
