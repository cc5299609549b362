"""The dashboard's aggregates against a seeded set of logs whose answers are worked out by hand."""

from __future__ import annotations

from datetime import datetime, time, timedelta

import pytest
from django.utils import timezone

from agent.models import Conversation, Feedback, Message, RetrievalLog
from agent.monitoring.dashboard import retrieval_stats, retrieval_stats_cached
from agent.monitoring.dashboard_version import dashboard_version
from tests.helpers import BaseTestCase

pytestmark = pytest.mark.clock


def seeded_at(days_ago: int) -> datetime:
    """Noon of a past (Stockholm) day; for today, halfway between its midnight and now: never in the future,
    whatever the hour the suite runs."""
    now = timezone.now()
    midnight = timezone.make_aware(datetime.combine(timezone.localdate(now), time.min))
    if days_ago == 0:
        return midnight + (now - midnight) / 2
    return timezone.make_aware(datetime.combine(timezone.localdate(now) - timedelta(days=days_ago), time(12)))


class DashboardSeed(BaseTestCase):
    @classmethod
    def setUpTestData(cls) -> None:
        super().setUpTestData()
        cls.conv_x = Conversation.objects.create(workspace=cls.workspace, user=cls.alice, title="X")
        cls.conv_y = Conversation.objects.create(workspace=cls.workspace, user=cls.bob, title="Y")
        cls.conv_c = Conversation.objects.create(workspace=cls.charlies_workspace, user=cls.charlie, title="C")
        ws, cws = cls.workspace, cls.charlies_workspace
        cls.logs = {}
        # name: (workspace, days ago, conversation, answer mode, fields)
        seed = {
            "a1": (ws, 0, cls.conv_x, "model", dict(intent="factual", query="Vad gäller för skyddsombud?",
                                                    unknown_words=["Visselblåsare"], glossary_words=["hyrpersonal"],
                                                    retrieval_ms=10, total_ms=20, chunks_considered=5,
                                                    chunks_included=3, tokens_used=100)),
            "a2": (ws, 0, cls.conv_x, "extractive", dict(intent="factual", query="Semester?", retrieval_ms=20,
                                                         total_ms=30, chunks_considered=5, chunks_included=5,
                                                         tokens_used=300)),
            "a3": (ws, 0, cls.conv_x, "extractive", dict(intent="task", query="Regler för drönare?", zero_match=True,
                                                         retrieval_ms=30, total_ms=40)),
            "a4": (ws, 0, cls.conv_x, "direct", dict(intent="greeting", query="Hej", skipped=True, total_ms=1)),
            "a5": (ws, 2, cls.conv_y, "error", dict(intent="factual", query="  regler för drönare?", zero_match=True,
                                                    unknown_words=["visselblåsare", "mejl"], degraded=True, retrieval_ms=40, total_ms=50)),
            "a6": (ws, 2, cls.conv_y, "model", dict(intent="factual", query="Semester igen", cache_hit=True,
                                                    glossary_words=["Hyrpersonal", "OVK"],
                                                    total_ms=5, chunks_considered=4, chunks_included=4,
                                                    tokens_used=200)),
            "a7": (ws, 40, cls.conv_y, "model", dict(intent="factual", query="Gammal fråga", zero_match=True,
                                                     unknown_words=["mejl"],
                                                     retrieval_ms=1000, total_ms=1000)),
            "c1": (cws, 0, cls.conv_c, "extractive", dict(intent="factual", query="Charlies hemliga fråga",
                                                          unknown_words=["Kvarkvisslan"], glossary_words=["charliesord"],
                                                          zero_match=True, retrieval_ms=5, total_ms=6)),
        }
        cls.messages = {}
        for name, (workspace, days_ago, conv, mode, fields) in seed.items():
            msg = Message.objects.create(conversation=conv, role="assistant", content=f"svar {name}",
                                         answer_mode=mode)
            log = RetrievalLog.objects.create(workspace=workspace, message=msg, answer_mode=mode, **fields)
            RetrievalLog.objects.filter(pk=log.pk).update(created_at=seeded_at(days_ago))
            cls.messages[name] = msg
        Feedback.objects.create(message=cls.messages["a1"], user=cls.alice, rating=1)
        Feedback.objects.create(message=cls.messages["a2"], user=cls.bob, rating=-1, comment="Fel paragraf")
        Feedback.objects.create(message=cls.messages["a3"], user=cls.alice, rating=-1, comment="Inget svar")
        Feedback.objects.create(message=cls.messages["c1"], user=cls.charlie, rating=-1, comment="Charlies kommentar")


class RetrievalStatsTests(DashboardSeed):
    def test_totals_of_the_owners_workspace(self) -> None:
        t = retrieval_stats(workspace_ids=[self.workspace.pk], days=30)["totals"]
        self.assertEqual(t["questions"], 6)
        self.assertEqual(t["by_intent"], {"greeting": 1, "meta": 0, "factual": 4, "task": 1})
        self.assertEqual(t["by_answer_mode"], {"model": 2, "extractive": 2, "direct": 1, "error": 1})
        self.assertEqual(t["retrieving"], 5)
        self.assertEqual((t["zero_match"], t["zero_match_rate"], t["cache_hit_rate"]), (2, 0.4, 0.2))
        self.assertEqual((t["degraded"], t["degraded_rate"]), (1, 0.1667))
        # percentile_cont over [10, 20, 30, 40] and [1, 5, 20, 30, 40, 50]
        self.assertEqual(t["retrieval_ms"], {"p50": 25.0, "p95": 38.5})
        self.assertEqual(t["total_ms"], {"p50": 25.0, "p95": 47.5})
        self.assertEqual((t["sources_considered_avg"], t["sources_included_avg"], t["context_tokens_avg"]),
                         (2.8, 2.4, 120.0))

    def test_daily_rows_cover_every_day_of_the_period(self) -> None:
        stats = retrieval_stats(workspace_ids=[self.workspace.pk], days=7)
        daily = stats["daily"]
        self.assertEqual(len(daily), 7)
        self.assertEqual(daily[-1]["date"], timezone.localdate().isoformat())
        self.assertEqual((stats["start"], stats["end"]), (daily[0]["date"], daily[-1]["date"]))
        self.assertEqual([d["questions"] for d in daily], [0, 0, 0, 0, 2, 0, 4])
        today, two_days_ago = daily[-1], daily[-3]
        self.assertEqual(today["by_intent"], {"greeting": 1, "meta": 0, "factual": 2, "task": 1})
        self.assertEqual(today["retrieval_ms"], {"p50": 20.0, "p95": 29.0})
        self.assertEqual(two_days_ago["by_answer_mode"], {"model": 1, "extractive": 0, "direct": 0, "error": 1})
        self.assertEqual((two_days_ago["zero_match_rate"], two_days_ago["cache_hit_rate"]), (0.5, 0.5))
        self.assertEqual(daily[0]["retrieval_ms"], {"p50": None, "p95": None})

    def test_period_decides_what_counts(self) -> None:
        ninety = retrieval_stats(workspace_ids=[self.workspace.pk], days=90)
        self.assertEqual(ninety["totals"]["questions"], 7)
        self.assertIn("Gammal fråga", [q["question"] for q in ninety["found_nothing"]])
        with self.assertRaises(ValueError):
            retrieval_stats(workspace_ids=[self.workspace.pk], days=14)

    def test_found_nothing_groups_case_and_space_and_links_the_latest_conversation(self) -> None:
        found = retrieval_stats(workspace_ids=[self.workspace.pk], days=30)["found_nothing"]
        self.assertEqual(len(found), 1)
        self.assertEqual(found[0]["question"].strip().lower(), "regler för drönare?")
        self.assertEqual((found[0]["count"], found[0]["conversation_id"], found[0]["workspace_slug"]),
                         (2, self.conv_y.pk, "alices-ab"))

    def test_words_no_source_used_count_questions_per_word_whatever_the_case(self) -> None:
        words = retrieval_stats(workspace_ids=[self.workspace.pk], days=30)["unknown_words"]
        self.assertEqual([(w["word"], w["count"], w["workspace_slug"]) for w in words],
                         [("visselblåsare", 2, "alices-ab"), ("mejl", 1, "alices-ab")])
        # The period decides: a question 40 days old counts in 90 days only.
        ninety = retrieval_stats(workspace_ids=[self.workspace.pk], days=90)["unknown_words"]
        # As many questions each: the word asked most recently first.
        self.assertEqual([(w["word"], w["count"]) for w in ninety], [("visselblåsare", 2), ("mejl", 2)])

    def test_the_glossarys_terms_used_count_questions_per_term_whatever_the_case(self) -> None:
        terms = retrieval_stats(workspace_ids=[self.workspace.pk], days=30)["glossary_words"]
        self.assertEqual([(w["word"], w["count"], w["workspace_slug"]) for w in terms],
                         [("hyrpersonal", 2, "alices-ab"), ("ovk", 1, "alices-ab")])

    def test_feedback_shares_and_latest_bad_answers(self) -> None:
        fb = retrieval_stats(workspace_ids=[self.workspace.pk], days=30)["feedback"]
        self.assertEqual((fb["good"], fb["bad"], fb["good_share"], fb["bad_share"]), (1, 2, 0.3333, 0.6667))
        self.assertEqual([b["comment"] for b in fb["latest_bad"]], ["Inget svar", "Fel paragraf"])
        self.assertEqual(fb["latest_bad"][0]["conversation_id"], self.conv_x.pk)
        self.assertEqual(fb["latest_bad"][0]["message_id"], self.messages["a3"].pk)

    def test_one_workspace_never_sees_anothers_questions(self) -> None:
        mine = retrieval_stats(workspace_ids=[self.workspace.pk], days=90)
        self.assertNotIn("Charlies", str(mine))
        charlies = retrieval_stats(workspace_ids=[self.charlies_workspace.pk], days=30)
        self.assertEqual(charlies["totals"]["questions"], 1)
        self.assertNotIn("drönare", str(charlies))
        self.assertNotIn("kvarkvisslan", str(mine))
        self.assertEqual([w["word"] for w in charlies["unknown_words"]], ["kvarkvisslan"])
        self.assertEqual([w["word"] for w in charlies["glossary_words"]], ["charliesord"])
        self.assertNotIn("charliesord", str(mine))
        self.assertNotIn("Fel paragraf", str(charlies))

    def test_staff_see_every_workspace(self) -> None:
        everything = retrieval_stats(workspace_ids=None, days=30)
        self.assertEqual(everything["totals"]["questions"], 7)
        self.assertEqual([(q["workspace_slug"], q["count"]) for q in everything["found_nothing"]],
                         [("alices-ab", 2), ("charlies-ab", 1)])
        self.assertEqual(everything["feedback"]["bad"], 3)
        self.assertEqual(sorted((w["word"], w["workspace_slug"]) for w in everything["unknown_words"]),
                         [("kvarkvisslan", "charlies-ab"), ("mejl", "alices-ab"), ("visselblåsare", "alices-ab")])


class CachedFiguresTests(DashboardSeed):
    """The cached figures follow every change to the scope's logs and ratings, whatever its timestamp:
    a version read from the newest timestamp missed a row written with an earlier one."""

    def assert_cached_equals_fresh(self, workspace_ids: list[int]) -> dict:
        cached = retrieval_stats_cached(workspace_ids=workspace_ids, days=30)
        self.assertEqual(cached, retrieval_stats(workspace_ids=workspace_ids, days=30))
        return cached

    def test_a_backdated_changed_or_deleted_log_moves_the_figures(self) -> None:
        scope = [self.workspace.pk]
        self.assertEqual(self.assert_cached_equals_fresh(scope)["totals"]["questions"], 6)
        log = RetrievalLog.objects.create(workspace=self.workspace, query="Importerad", intent="factual",
                                          answer_mode="model")
        # Written with a timestamp older than today's seeded logs (another host's clock, an import).
        earlier = RetrievalLog.objects.filter(workspace=self.workspace).order_by("-created_at")[0].created_at
        RetrievalLog.objects.filter(pk=log.pk).update(created_at=earlier - timedelta(microseconds=1))
        self.assertEqual(self.assert_cached_equals_fresh(scope)["totals"]["questions"], 7)
        RetrievalLog.objects.filter(pk=log.pk).update(answer_mode="error")
        self.assertEqual(self.assert_cached_equals_fresh(scope)["totals"]["by_answer_mode"]["error"], 2)
        RetrievalLog.objects.filter(pk=log.pk).delete()
        self.assertEqual(self.assert_cached_equals_fresh(scope)["totals"]["questions"], 6)

    def test_a_rating_added_changed_or_deleted_moves_the_figures(self) -> None:
        scope = [self.workspace.pk]
        self.assertEqual(self.assert_cached_equals_fresh(scope)["feedback"]["good"], 1)
        Feedback.objects.create(message=self.messages["a6"], user=self.alice, rating=1)
        self.assertEqual(self.assert_cached_equals_fresh(scope)["feedback"]["good"], 2)
        Feedback.objects.filter(message=self.messages["a6"]).update(rating=-1)  # updated_at not touched
        self.assertEqual(self.assert_cached_equals_fresh(scope)["feedback"]["bad"], 3)
        Feedback.objects.filter(message=self.messages["a6"]).delete()
        self.assertEqual(self.assert_cached_equals_fresh(scope)["feedback"]["bad"], 2)

    def test_only_the_scopes_own_changes_move_its_version(self) -> None:
        mine, everyone = dashboard_version([self.workspace.pk]), dashboard_version(None)
        RetrievalLog.objects.create(workspace=self.charlies_workspace, query="Annan", intent="factual")
        self.assertEqual(dashboard_version([self.workspace.pk]), mine)
        self.assertGreater(dashboard_version(None), everyone)
        self.assertGreater(dashboard_version([self.workspace.pk, self.charlies_workspace.pk]), mine)

    def test_a_deleted_workspace_never_brings_the_sum_back_to_an_earlier_value(self) -> None:
        everyone = dashboard_version(None)
        self.charlies_workspace.delete()  # its logs go by cascade: a change every workspace's figures saw
        self.assertGreater(dashboard_version(None), everyone)
