"""The dashboard's daily rollup: the same figures as aggregating every log, after new logs, after
retention pruning, across midnight, and per workspace."""

from __future__ import annotations

import random
from datetime import date, datetime, time, timedelta
from typing import Any
from unittest import mock

import pytest
from django.utils import timezone

from agent.models import (
    Conversation,
    Message,
    RetrievalLog,
    RetrievalLogDay,
    RollupState,
)
from agent.monitoring import dashboard
from agent.monitoring.dashboard import retrieval_stats, rollup_through, sketch_percentiles
from agent.monitoring.retrieval_logs import retrieval_log_prune
from agent.tasks import rollup_retrieval_logs
from compliance.models import Workspace
from tests.helpers import BaseTestCase

pytestmark = pytest.mark.clock

INTENTS = ("factual", "factual", "task", "greeting", "meta")
MODES = ("model", "extractive", "direct", "error")


def local(day: date, hour: int = 12, minute: int = 0, second: int = 0) -> datetime:
    return timezone.make_aware(datetime.combine(day, time(hour, minute, second)))


class RollupTests(BaseTestCase):
    @classmethod
    def setUpTestData(cls) -> None:
        super().setUpTestData()
        cls.conv = Conversation.objects.create(workspace=cls.workspace, user=cls.alice, title="X")
        cls.conv_c = Conversation.objects.create(workspace=cls.charlies_workspace, user=cls.charlie, title="C")

    def setUp(self) -> None:
        self.today = timezone.localdate()
        self.now = local(self.today, 12)
        self.rng = random.Random(14)

    def add_log(self, when: datetime, workspace: Workspace | None = None, **fields: Any) -> RetrievalLog:
        workspace = workspace or self.workspace
        conv = self.conv if workspace == self.workspace else self.conv_c
        mode = fields.pop("answer_mode", self.rng.choice(MODES))
        intent = fields.pop("intent", self.rng.choice(INTENTS))
        skipped = intent in ("greeting", "meta")
        msg = Message.objects.create(conversation=conv, role="assistant", content="svar", answer_mode=mode)
        values = dict(
            intent=intent, skipped=skipped, query=f"fråga {self.rng.randint(1, 5)}",
            zero_match=not skipped and self.rng.random() < 0.3, cache_hit=not skipped and self.rng.random() < 0.2,
            degraded=self.rng.random() < 0.1, chunks_considered=self.rng.randint(0, 20),
            chunks_included=self.rng.randint(0, 8), tokens_used=self.rng.randint(0, 4000),
            retrieval_ms=None if skipped else round(self.rng.uniform(1, 400), 3),
            total_ms=round(self.rng.uniform(1, 900), 3))
        values.update(fields)
        log = RetrievalLog.objects.create(workspace=workspace, message=msg, answer_mode=mode, **values)
        RetrievalLog.objects.filter(pk=log.pk).update(created_at=when)
        return log

    def seed(self, days_back: int = 40, per_day: int = 4) -> None:
        for n in range(days_back):
            day = self.today - timedelta(days=n)
            for k in range(per_day):
                self.add_log(local(day, 8 + k), self.workspace)
            self.add_log(local(day, 9), self.charlies_workspace)

    def assert_same_as_raw(self, workspace_ids: list[int] | None, days: int, now: datetime | None = None) -> dict:
        now = now or self.now
        rolled = retrieval_stats(workspace_ids=workspace_ids, days=days, now=now)
        raw = retrieval_stats(workspace_ids=workspace_ids, days=days, now=now, rollup=False)
        self.assertEqual(rolled, raw)
        return rolled

    def test_rolled_up_figures_equal_the_figures_of_every_log(self) -> None:
        self.seed()
        for scope in ([self.workspace.pk], [self.charlies_workspace.pk], None,
                      [self.workspace.pk, self.charlies_workspace.pk]):
            for days in (7, 30, 90):
                if scope is not None and len(scope) == 2:
                    # Several chosen workspaces: the days' percentiles come from merged histograms.
                    self.assert_close_to_raw(scope, days)
                else:
                    self.assert_same_as_raw(scope, days)
        # Closed days are stored once per workspace and once for all; today is never stored.
        through = RollupState.objects.get().through
        self.assertEqual(through, self.today - timedelta(days=1))
        self.assertFalse(RetrievalLogDay.objects.filter(day=self.today).exists())
        self.assertEqual(RetrievalLogDay.objects.filter(day=through).count(), 3)

    def assert_close_to_raw(self, scope: list[int], days: int) -> None:
        rolled = retrieval_stats(workspace_ids=scope, days=days, now=self.now)
        raw = retrieval_stats(workspace_ids=scope, days=days, now=self.now, rollup=False)
        for a, b in zip(rolled["daily"], raw["daily"], strict=True):
            for metric in ("retrieval_ms", "total_ms"):
                for p in ("p50", "p95"):
                    if b[metric][p] is None:
                        self.assertIsNone(a[metric][p])
                    else:
                        self.assertAlmostEqual(a[metric][p], b[metric][p], delta=0.011 * b[metric][p] + 0.1)
            self.assertEqual({k: v for k, v in a.items() if not k.endswith("_ms")},
                             {k: v for k, v in b.items() if not k.endswith("_ms")})

    def test_new_logs_today_count_at_once_and_closed_days_are_not_read_again(self) -> None:
        self.seed(days_back=10)
        before = self.assert_same_as_raw([self.workspace.pk], 7)
        self.add_log(local(self.today, 11), self.workspace, intent="factual", answer_mode="model", zero_match=True,
                     skipped=False, query="Ny fråga utan träff")
        with mock.patch.object(dashboard, "_rollup_days", side_effect=AssertionError("rolled up again")):
            after = retrieval_stats(workspace_ids=[self.workspace.pk], days=7, now=self.now)
        self.assertEqual(after["totals"]["questions"], before["totals"]["questions"] + 1)
        self.assertEqual(after["daily"][-1]["questions"], before["daily"][-1]["questions"] + 1)
        self.assertIn("Ny fråga utan träff", [q["question"] for q in after["found_nothing"]])
        self.assertEqual(after, retrieval_stats(workspace_ids=[self.workspace.pk], days=7, now=self.now,
                                                rollup=False))

    def test_the_next_day_rolls_up_after_the_grace_period(self) -> None:
        self.add_log(local(self.today, 23, 59, 59), self.workspace, total_ms=100.0)
        tomorrow = self.today + timedelta(days=1)
        self.add_log(local(tomorrow, 0, 0, 1), self.workspace, total_ms=300.0)
        # Five past midnight: yesterday is still live (an answer begun before midnight may still be saving).
        early = local(tomorrow, 0, 5)
        self.assertEqual(rollup_through(now=early), self.today - timedelta(days=1))
        stats = self.assert_same_as_raw([self.workspace.pk], 7, now=early)
        self.assertEqual([d["questions"] for d in stats["daily"][-2:]], [1, 1])
        # Twenty past: yesterday is rolled up, with its own log only.
        late = local(tomorrow, 0, 20)
        self.assertEqual(rollup_through(now=late), self.today)
        day = RetrievalLogDay.objects.get(workspace=self.workspace, day=self.today)
        self.assertEqual((day.questions, day.total_p50), (1, 100.0))
        stats = self.assert_same_as_raw([self.workspace.pk], 7, now=late)
        self.assertEqual([d["total_ms"]["p50"] for d in stats["daily"][-2:]], [100.0, 300.0])

    def test_retention_pruning_removes_and_corrects_rolled_up_days(self) -> None:
        self.seed(days_back=12)
        rollup_through(now=self.now)
        # The cutoff falls at 10:30 five days ago: that day keeps its 11 o'clock log only.
        cutoff_now = local(self.today, 10, 30)
        retrieval_log_prune(days=5, now=cutoff_now)
        cutoff_day = self.today - timedelta(days=5)
        self.assertFalse(RetrievalLogDay.objects.filter(day__lt=cutoff_day).exists())
        kept = RetrievalLogDay.objects.get(workspace=self.workspace, day=cutoff_day)
        self.assertEqual(kept.questions, 1)
        self.assertFalse(RetrievalLogDay.objects.filter(workspace=self.charlies_workspace, day=cutoff_day).exists())
        self.assert_same_as_raw([self.workspace.pk], 7)
        self.assert_same_as_raw(None, 7)

    def test_workspaces_are_rolled_up_apart(self) -> None:
        yesterday = self.today - timedelta(days=1)
        self.add_log(local(yesterday, 10), self.workspace, intent="factual", skipped=False, retrieval_ms=10.0,
                     query="Alices fråga", zero_match=True)
        self.add_log(local(yesterday, 11), self.charlies_workspace, intent="factual", skipped=False,
                     retrieval_ms=500.0, query="Charlies hemliga fråga", zero_match=True)
        alice = self.assert_same_as_raw([self.workspace.pk], 7)
        charlie = self.assert_same_as_raw([self.charlies_workspace.pk], 7)
        self.assertEqual(alice["daily"][-2]["retrieval_ms"]["p50"], 10.0)
        self.assertEqual(charlie["daily"][-2]["retrieval_ms"]["p50"], 500.0)
        self.assertEqual(alice["totals"]["questions"], 1)
        self.assertNotIn("Charlies hemliga fråga", str(alice))
        everyone = self.assert_same_as_raw(None, 7)
        self.assertEqual(everyone["daily"][-2]["retrieval_ms"]["p50"], 255.0)
        # A deleted workspace takes its rolled-up days with it, and every workspace's days forget it.
        charlies = self.charlies_workspace.pk
        self.charlies_workspace.delete()
        self.assertFalse(RetrievalLogDay.objects.filter(workspace_id=charlies).exists())
        everyone = self.assert_same_as_raw(None, 7)
        self.assertEqual(everyone["daily"][-2]["retrieval_ms"]["p50"], 10.0)

    def test_large_periods_use_the_merged_histograms_within_one_percent(self) -> None:
        self.seed(days_back=20, per_day=6)
        with mock.patch.object(dashboard, "EXACT_PERCENTILE_ROWS", 10):
            rolled = retrieval_stats(workspace_ids=[self.workspace.pk], days=30, now=self.now)
        raw = retrieval_stats(workspace_ids=[self.workspace.pk], days=30, now=self.now, rollup=False)
        for metric in ("retrieval_ms", "total_ms"):
            for p in ("p50", "p95"):
                self.assertAlmostEqual(rolled["totals"][metric][p], raw["totals"][metric][p],
                                       delta=0.011 * raw["totals"][metric][p])
        self.assertEqual(rolled["daily"], raw["daily"])

    def test_sketch_percentiles_interpolate_like_percentile_cont(self) -> None:
        bucket = lambda ms: int(dashboard.math.log(ms / dashboard.LATENCY_MIN_MS) // dashboard.math.log(dashboard.LATENCY_RATIO))
        values = [10, 20, 30, 40]
        hist = {}
        for v in values:
            hist[bucket(v)] = hist.get(bucket(v), 0) + 1
        p50, p95 = sketch_percentiles(hist)
        self.assertAlmostEqual(p50, 25.0, delta=0.25)
        self.assertAlmostEqual(p95, 38.5, delta=0.4)
        self.assertIsNone(sketch_percentiles({}))

    def test_the_beat_task_rolls_up_closed_days(self) -> None:
        self.add_log(local(self.today - timedelta(days=3), 10), self.workspace)
        result = rollup_retrieval_logs.apply().get()
        self.assertEqual(result["through"], rollup_through().isoformat())
        self.assertTrue(RetrievalLogDay.objects.filter(workspace=self.workspace,
                                                       day=self.today - timedelta(days=3)).exists())
