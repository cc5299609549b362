"""What a workspace's glossary costs, printed as JSON.

    manage.py bench_glossary --json [--terms 500] [--questions 100]

In a throwaway workspace (deleted afterwards): the look-up every question that misses the retrieval cache makes
(`glossary_matches`, before the question is embedded) with the glossary empty and with `terms` terms (the bound is
glossary.services.MAX_TERMS), over our own questions (data/eval/relevance_questions.jsonl) asked twice; and the
import of a CSV of `terms` terms through the page's path (glossary.transfer.read_terms, services.term_import),
once into the empty glossary and once more with the same file (idempotent: nothing changes). The terms are words of
the corpus's own vocabulary (chunks_termstat's most frequent lexemes), each with the next one as its law words, so
some questions use a term, as they would.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from auditlog.context import disable_auditlog
from auditlog.models import LogEntry
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from agent.evaluation.benchmarking import latency_summary, machine_info, ms_since, read_jsonl, write_json
from agent.retrieval.workspace_glossary import glossary_matches
from compliance.models import Membership, Workspace
from compliance.sql import dict_cursor
from glossary import services, transfer
from glossary.models import Term

QUESTIONS = "data/eval/relevance_questions.jsonl"
# The look-up is one step of a cache miss, whose whole budget is 100 ms p95 (bench_context).
TARGET_LOOKUP_P95_MS = 2


def vocabulary(count: int) -> list[str]:
    """The corpus's `count` + 1 most frequent lexemes of 6–12 letters: words, not a list of ours."""
    with dict_cursor() as cursor:
        cursor.execute("SELECT lexeme FROM chunks_termstat WHERE lexeme ~ '^[a-zåäö]{6,12}$' "
                       "ORDER BY df DESC, lexeme LIMIT %s", [count + 1])
        return [row["lexeme"] for row in cursor.fetchall()]


def glossary_csv(words: list[str]) -> bytes:
    lines = ["Ord;Lagens ord", *(f"{word};{law_words}" for word, law_words in zip(words, words[1:], strict=False))]
    return ("\r\n".join(lines) + "\r\n").encode("utf-8")


class Command(BaseCommand):
    help = "Measure the glossary's look-up per question and an import of many terms."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--terms", type=int, default=services.MAX_TERMS)
        parser.add_argument("--questions", type=int, default=100)
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, terms: int, questions: int, **opts: Any) -> None:
        if not 1 <= terms <= services.MAX_TERMS or questions < 1:
            raise CommandError(f"--terms måste vara 1–{services.MAX_TERMS} och --questions minst 1.")
        asked = [q["question"] for q in read_jsonl(QUESTIONS)][:questions] * 2
        words = vocabulary(terms)
        if len(words) < terms + 1:
            raise CommandError("Korpusen har för få ord: läs in författningarna först (load_sfs).")
        suffix = uuid.uuid4().hex[:8]
        user = get_user_model().objects.create_user(username=f"bench-glossary-{suffix}", email="bench@example.invalid")
        workspace = Workspace.objects.create(name="Mätning av ordlistan", slug=f"bench-glossary-{suffix}")
        Membership.objects.create(user=user, workspace=workspace, role=Membership.Role.OWNER)

        def lookups() -> list[float]:
            times = []
            for question in asked:
                t0 = time.perf_counter()
                glossary_matches(question, (workspace.pk,))
                times.append(ms_since(t0))
            return times

        try:
            empty = lookups()
            content = glossary_csv(words)
            imports = {}
            for name in ("first", "again"):
                t0 = time.perf_counter()
                result = services.term_import(workspace=workspace, user=user,
                                              rows=transfer.read_terms("ordlista.csv", content))
                imports[name] = {"ms": round(ms_since(t0), 1), "added": result.added, "changed": result.changed,
                                 "unchanged": result.unchanged}
            full = lookups()
            used = sum(bool(glossary_matches(question, (workspace.pk,))) for question in set(asked))
            stored = Term.objects.filter(workspace=workspace).count()
        finally:
            # The import's audit entries and the workspace, without a trail of the clean-up itself.
            LogEntry.objects.filter(actor=user).delete()
            with disable_auditlog():
                workspace.delete()
            user.delete()
        full_summary = latency_summary(full, digits=3)
        write_json(self.stdout, {
            "terms": stored, "questions": len(set(asked)), "lookups": len(asked), "questions_using_a_term": used,
            "lookup_empty": latency_summary(empty, digits=3), "lookup_full": full_summary,
            "import": imports,
            "targets": {"lookup_p95_ms": TARGET_LOOKUP_P95_MS},
            "target_met": full_summary["p95_ms"] < TARGET_LOOKUP_P95_MS,
            "machine": machine_info(),
        })
