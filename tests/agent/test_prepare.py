"""The pre-model step: skip, retrieve or reuse, assemble, log; never raise into the chat."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from pytest_django import Settings

from agent.answering.prepare import PrepareOptions, PreparedContext, prepare_context
from agent.models import RetrievalLog
from agent.monitoring.retrieval_logs import retrieval_log_save
from agent.retrieval.cache import get_retrieval_cache
from agent.retrieval.hybrid import RetrievalOptions
from agent.tasks import prune_retrieval_logs
from compliance.models import LegalDocument, Membership, Workspace
from compliance.services import workspace_touch_knowledge
from tests.helpers import make_user, saved_log

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice_ws(loaded: list[LegalDocument]) -> tuple[User, Workspace]:
    get_retrieval_cache().clear()
    alice = make_user("alice")
    ws = Workspace.objects.create(name="Alices AB", slug="alices-ab")
    Membership.objects.create(user=alice, workspace=ws, role="owner")
    return alice, ws


def ask(text: str, ws: Workspace, user: User, history: Any = (), **opts: Any) -> PreparedContext:
    messages = [*history, {"role": "user", "content": text}]
    return prepare_context(messages, ws, user, PrepareOptions(**opts) if opts else None)


@pytest.mark.parametrize("text", ["Hej!", "God morgon", "Hello there", "Vad kan du göra?", "What can you do?",
                                  "Sammanfatta vårt samtal"])
def test_greeting_and_meta_skip_retrieval(alice_ws: tuple[User, Workspace], text: str) -> None:
    alice, ws = alice_ws
    prepared = ask(text, ws, alice)
    assert prepared.skipped and prepared.citations == [] and prepared.context_text == ""
    assert [m["role"] for m in prepared.messages] == ["system", "user"]
    log = saved_log(prepared)
    assert log.skipped and log.intent in ("greeting", "meta") and log.chunks_included == 0


def test_factual_question_gets_a_separate_context_message(alice_ws: tuple[User, Workspace]) -> None:
    alice, ws = alice_ws
    prepared = ask("Vad säger 3 kap. 2 a § arbetsmiljölagen?", ws, alice)
    roles = [m["role"] for m in prepared.messages]
    assert roles == ["system", "user", "user"]
    assert "Källa" not in prepared.messages[0]["content"].split("Regler")[0]
    context = prepared.messages[1]["content"]
    b = re.search(r"Koden ([0-9]{15}) är ny för varje fråga", context).group(1)
    assert f"--- {b} Källa [" in context and "Arbetsmiljölag (1977:1160)" in context
    assert context.index("Visar ") < context.index(f"--- {b} Källa [1]")
    assert prepared.messages[-1]["content"] == "Vad säger 3 kap. 2 a § arbetsmiljölagen?"
    by_n = {c["n"]: c for c in prepared.citations}
    assert all(f"--- {b} Källa [{n}]: {c['header']} ---" in context for n, c in by_n.items())
    m = prepared.metrics
    assert m["chunks_included"] == len(prepared.citations) and 0 < m["tokens_used"] <= m["token_budget"] == 8000
    log = saved_log(prepared)
    assert not log.skipped and not log.degraded and log.tokens_used == m["tokens_used"]
    assert {"intent", "analysis", "assemble", "retrieval_sql"} <= set(log.latency_ms)


def test_the_step_builds_its_log_and_its_caller_saves_it_once(alice_ws: tuple[User, Workspace]) -> None:
    alice, ws = alice_ws
    prepared = ask("Vad gäller för skyddsombud?", ws, alice)
    # Not written before the model runs: the chat saves it with the answer, in one INSERT.
    assert prepared.log is not None and prepared.log.pk is None and not RetrievalLog.objects.exists()
    first = retrieval_log_save(prepared.log)
    assert retrieval_log_save(prepared.log) is first  # saved once, however often asked
    assert RetrievalLog.objects.get().tokens_used == prepared.metrics["tokens_used"] > 0


def test_budget_shrinks_with_a_small_context_window(alice_ws: tuple[User, Workspace]) -> None:
    alice, ws = alice_ws
    prepared = ask("Vad gäller för skyddsombud?", ws, alice, context_window=6000)
    assert prepared.metrics["token_budget"] < 8000
    assert prepared.metrics["tokens_used"] <= prepared.metrics["token_budget"]


def test_same_topic_follow_up_hits_the_cache_until_knowledge_changes(alice_ws: tuple[User, Workspace]) -> None:
    alice, ws = alice_ws
    first = ask("turordning vid uppsägning", ws, alice)
    again = ask("Uppsägning och turordning?", ws, alice)
    assert not first.metrics["cache_hit"] and again.metrics["cache_hit"]
    assert [c["chunk_id"] for c in again.citations] == [c["chunk_id"] for c in first.citations]
    assert saved_log(again).cache_hit
    workspace_touch_knowledge(ws.pk)
    ws.refresh_from_db()
    assert not ask("turordning vid uppsägning", ws, alice).metrics["cache_hit"]


def test_short_follow_up_uses_the_conversation(alice_ws: tuple[User, Workspace]) -> None:
    alice, ws = alice_ws
    history = [{"role": "user", "content": "Vilka regler gäller för semester enligt LAS och arbetsmiljölagen?"},
               {"role": "assistant", "content": "Det beror på..."}]
    prepared = ask("och för minderåriga?", ws, alice, history=history)
    assert prepared.citations  # "och för minderåriga?" alone names nothing
    assert prepared.messages[-1]["content"] == "och för minderåriga?"


def test_retrieval_failure_degrades_instead_of_raising(alice_ws: tuple[User, Workspace]) -> None:
    alice, ws = alice_ws
    # An impossible date reaches Postgres, which refuses it: a real failure inside retrieval.
    prepared = ask("Vad gäller för skyddsombud?", ws, alice,
                   retrieval=RetrievalOptions(date_from="inte-ett-datum"))
    assert prepared.degraded and prepared.citations == []
    assert "misslyckades" in prepared.notice
    log = saved_log(prepared)
    assert log.degraded and log.error
    assert prepared.messages[-1]["content"] == "Vad gäller för skyddsombud?"


@pytest.mark.parametrize("text", ["", "   ", "🙂🙂", "och det"])
def test_empty_or_meaningless_messages_do_not_crash(alice_ws: tuple[User, Workspace], text: str) -> None:
    alice, ws = alice_ws
    prepared = ask(text, ws, alice)
    assert isinstance(prepared.citations, list) and prepared.messages[0]["role"] == "system"


def test_log_records_the_analysis_counts_and_timings(alice_ws: tuple[User, Workspace]) -> None:
    alice, ws = alice_ws
    prepared = ask("Vad säger 3 kap. 2 a § arbetsmiljölagen om arbetsgivarens ansvar 2024?", ws, alice)
    log = saved_log(prepared)
    assert log.intent == "factual" and 0 < log.intent_confidence <= 1
    assert "arbetsgivarens" in log.keywords and not log.fallback
    assert {"sfs": "1977:1160", "chapter": "3", "section": "2 a"}.items() <= log.references[0].items()
    assert log.dates["start"] == "2024-01-01" and log.dates["end"] == "2024-12-31"
    assert log.chunks_matched >= log.chunks_considered >= log.chunks_included > 0
    assert log.chunks_excluded_by_threshold is not None and log.chunks_excluded_by_privacy is None
    # The search's own time is part of the pre-model total.
    assert 0 < log.retrieval_ms == log.latency_ms["retrieve"] <= log.total_ms == log.latency_ms["total"]
    again = saved_log(ask("Vad säger 3 kap. 2 a § arbetsmiljölagen om arbetsgivarens ansvar 2024?",
                                            ws, alice))
    assert again.cache_hit and again.retrieval_ms is None and again.chunks_matched == log.chunks_matched
    assert again.chunks_excluded_by_threshold is None


def test_skipped_turn_logs_confidence_and_total_but_no_retrieval(alice_ws: tuple[User, Workspace]) -> None:
    alice, ws = alice_ws
    log = saved_log(ask("Hej!", ws, alice))
    assert log.skipped and log.intent_confidence == 0.95 and log.keywords == [] and log.retrieval_ms is None
    assert log.total_ms == log.latency_ms["total"] >= 0


def test_prune_deletes_only_logs_older_than_the_retention(alice_ws: tuple[User, Workspace], settings: Settings) -> None:
    _, ws = alice_ws
    old, edge, _ = (RetrievalLog.objects.create(workspace=ws, query=q, intent="factual") for q in "abc")
    now = timezone.now()
    RetrievalLog.objects.filter(pk=old.pk).update(created_at=now - timedelta(days=11))
    RetrievalLog.objects.filter(pk=edge.pk).update(created_at=now - timedelta(days=9))
    settings.RETRIEVAL_LOG_RETENTION_DAYS = 10
    assert prune_retrieval_logs.apply().get() == {"deleted": 1}
    assert set(RetrievalLog.objects.values_list("query", flat=True)) == {"b", "c"}
