"""Latency of the whole pre-model step (agent.answering.prepare.prepare_context) and its context size.

For each question: a cache miss (the retrieval cache and the query-vector
cache are cleared first, so the local embedder runs), then a cache hit (the
same question again). The context it builds is compared with simply pasting
the top 20 chunks (their token counts plus their header lines).
Runs as the eval user in the eval workspace. The step builds a RetrievalLog
that its caller saves after the answer (the chat) or at once (the context API):
its INSERT is timed apart, as "log_write", and the rows are deleted afterwards.
"""

from __future__ import annotations

import random
import time
from typing import Any

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.core.management.base import BaseCommand, CommandError, CommandParser

from agent.answering.prepare import prepare_context
from agent.evaluation.benchmarking import (
    eval_user_and_workspace,
    latency_summary,
    machine_info,
    ms_since,
    read_jsonl,
    write_json,
)
from agent.models import RetrievalLog
from agent.monitoring.retrieval_logs import retrieval_log_save
from agent.retrieval.cache import get_retrieval_cache
from agent.retrieval.hybrid import RetrievalOptions, retrieve_context
from agent.retrieval.query_vector_cache import query_vectors
from chunks.embedding import get_provider
from chunks.tokens import count_tokens
from compliance.models import Workspace
from compliance.services import preference_clear, preference_update, profile_clear, profile_fact_add, profile_update

EXTRA_QUESTIONS = [
    "Hur länge får en anställd jobba övertid per år?",
    "Måste vi ha ett skyddsombud på arbetsplatsen?",
    "Vad säger 3 kap. 2 a § arbetsmiljölagen?",
    "Hur många semesterdagar har man rätt till?",
    "Vilka regler gäller för turordning enligt LAS?",
]


def pick_questions(count: int, seed: int = 5) -> list[str]:
    path = settings.BASE_DIR / "data" / "sfs" / "dev_questions.jsonl.gz"
    dev = [q["question"] for q in read_jsonl(path)] if path.exists() else []
    random.Random(seed).shuffle(dev)
    n_extra = min(len(EXTRA_QUESTIONS), max(1, count // 5))
    picked = EXTRA_QUESTIONS[:n_extra] + dev[:count - n_extra]
    return list(dict.fromkeys(picked))[:count]


def fill_profile(workspace: Workspace, user: AbstractBaseUser) -> None:
    """Every profile field, ten free-text facts and every preference: the largest usual Användarprofil."""
    profile_clear(workspace=workspace)
    profile_update(workspace=workspace, user=user, values={
        "employee_count": 45, "industry": "Bemanning", "sni_code": "78.200", "has_collective_agreement": True,
        "collective_agreement": "Unionen och Kommunal", "sector": "private", "processes_sensitive_data": True,
        "location": "Umeå"})
    for i in range(10):
        profile_fact_add(workspace=workspace, user=user,
                         text=f"Uppgift {i + 1}: vi har verksamhet på flera orter och hyr ut personal till kunder "
                              f"inom vård, industri och handel.")
    preference_update(workspace=workspace, user=user, values={
        "role": "HR-chef", "expertise": "novice", "answer_length": "short", "tone": "plain", "language": "sv"})


class Command(BaseCommand):
    help = "p50/p95 of prepare_context on a cache miss and a hit, and context tokens vs. the top 20 chunks."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--questions", type=int, default=40)
        parser.add_argument("--json", action="store_true")
        parser.add_argument("--profile", action="store_true",
                            help="time it with a full company profile and personal preferences (removed afterwards)")

    def handle(self, *args: Any, **opts: Any) -> None:
        questions = pick_questions(max(1, opts["questions"]))
        if not questions:
            raise CommandError("no questions")
        account = eval_user_and_workspace()
        user, workspace = account.user, account.workspace
        if opts["profile"]:
            fill_profile(workspace, user)
        cache = get_retrieval_cache()
        get_provider().embed_query("uppvärmning")  # load the model outside the timings
        prepare_context([{"role": "user", "content": "Vad gäller för uppvärmning?"}], workspace, user)

        cache.clear()

        miss, hit, log_write, stages = [], [], [], {}
        context_tokens, top20_tokens, included, hit_flags = [], [], [], 0
        for question in questions:
            messages = [{"role": "user", "content": question}]
            cache.clear()
            query_vectors.clear()
            t0 = time.perf_counter()
            prepared = prepare_context(messages, workspace, user)
            miss.append(ms_since(t0))
            for stage, value in prepared.metrics["latency_ms"].items():
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    stages.setdefault(stage, []).append(float(value))
            t0 = time.perf_counter()
            again = prepare_context(messages, workspace, user)
            hit.append(ms_since(t0))
            for turn in (prepared, again):
                t0 = time.perf_counter()
                retrieval_log_save(turn.log)
                log_write.append(ms_since(t0))
            hit_flags += bool(again.metrics.get("cache_hit"))
            context_tokens.append(prepared.metrics["tokens_used"])
            included.append(prepared.metrics["chunks_included"])
            # The naive alternative: paste the top 20 chunks with their header lines.
            top = retrieve_context(question, workspace, user=user, options=RetrievalOptions(top_k=20)).chunks
            top20_tokens.append(sum(c.token_count + count_tokens(c.header) for c in top))
        cache.clear()
        deleted, _ = RetrievalLog.objects.filter(workspace=workspace).delete()
        if opts["profile"]:
            profile_clear(workspace=workspace)
            preference_clear(workspace=workspace, user=user)

        n = len(questions)
        avg_ctx = sum(context_tokens) / n
        avg_top = sum(top20_tokens) / n
        report = {
            "questions": n,
            "machine": machine_info(),
            "miss": latency_summary(miss),
            "hit": latency_summary(hit, digits=3),
            "log_write": latency_summary(log_write, digits=3),
            "hits_served_from_cache": hit_flags,
            "miss_stages_p50_ms": {k: round(sorted(v)[len(v) // 2], 2) for k, v in sorted(stages.items())},
            "miss_stages_p95_ms": {k: round(sorted(v)[min(len(v) - 1, int(len(v) * 0.95))], 2)
                                   for k, v in sorted(stages.items())},
            "avg_context_tokens": round(avg_ctx, 1),
            "avg_top20_tokens": round(avg_top, 1),
            "context_vs_top20": round(avg_ctx / avg_top, 3) if avg_top else None,
            "avg_chunks_included": round(sum(included) / n, 2),
            "token_budget": settings.RETRIEVAL_MAX_TOKENS,
            "profile": opts["profile"],
            "profile_lines": prepared.metrics.get("profile_lines", 0),
            "profile_token_budget": settings.PROFILE_TOKEN_BUDGET,
            "targets": {"miss_p95_ms": 100, "hit_p95_ms": 5},
            "retrieval_logs_deleted": deleted,
            "machine_after": machine_info(),
        }
        if opts["json"]:
            write_json(self.stdout, report)
            return
        w = self.stdout.write
        w(f"{n} questions; load {report['machine']['loadavg']}")
        w(f"miss: p50 {report['miss']['p50_ms']} ms, p95 {report['miss']['p95_ms']} ms (target < 100)")
        w(f"hit:  p50 {report['hit']['p50_ms']} ms, p95 {report['hit']['p95_ms']} ms (target < 5)")
        w(f"log write (after the answer): p50 {report['log_write']['p50_ms']} ms, p95 {report['log_write']['p95_ms']} ms")
        w(f"miss stages p50: {report['miss_stages_p50_ms']}")
        w(f"context tokens: {report['avg_context_tokens']} vs top-20 {report['avg_top20_tokens']} "
          f"({report['context_vs_top20']}x)")
