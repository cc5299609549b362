"""How the relevance threshold separates questions the knowledge base can answer from those it cannot.

Input: JSON lines with `question`, `on_topic` (bool) and, for on-topic questions,
`gold_refs` ([{"sfs": ..., "ref": ...}]); default data/eval/relevance_questions.jsonl
(50 questions about the bundled statutes and 50 about anything else, written for
this purpose). Extra `--questions` files of the eval_retrieval shape (every
question on topic) add the share of their gold sections the threshold keeps.

Per file it prints: off-topic questions that get no source at all, on-topic
questions whose gold section is still among the sources, and on-topic questions
left with no source; both with the threshold and without it (`min_relevance` 0),
so the cost and the gain are side by side.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.core.management.base import BaseCommand, CommandError, CommandParser

from agent.evaluation.benchmarking import eval_user_and_workspace, machine_info, read_jsonl, write_json
from agent.evaluation.company import add_company_arguments, company_for, company_from_options
from agent.retrieval.hybrid import RetrievalOptions, retrieve_context
from agent.retrieval.sources import RetrievedChunk
from compliance.errors import ApplicationError
from compliance.models import Workspace

DEFAULT_FILE = settings.BASE_DIR / "data" / "eval" / "relevance_questions.jsonl"


def gold_kept(chunks: list[RetrievedChunk], gold: set[tuple[str, str]]) -> bool:
    return any((c.document_number, c.citation) in gold for c in chunks)


class Command(BaseCommand):
    help = "Relevance threshold: off-topic questions with no sources, on-topic questions keeping their gold source."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--questions", action="append", default=[],
                            help="more JSON lines files (question + gold_refs, all on topic); repeatable")
        parser.add_argument("--set", default=str(DEFAULT_FILE), help="the on/off-topic set")
        parser.add_argument("--k", type=int, default=0, help="top_k (default: RETRIEVAL_TOP_K)")
        parser.add_argument("--mode", default="hybrid", choices=["hybrid", "vector", "keyword"])
        parser.add_argument("--json", action="store_true")
        add_company_arguments(parser)

    def handle(self, *args: Any, **opts: Any) -> None:
        account = eval_user_and_workspace()
        user, workspace = account.user, account.workspace
        report = {"machine": machine_info(), "min_relevance": settings.RETRIEVAL_MIN_RELEVANCE,
                  "min_relevance_alone": settings.RETRIEVAL_MIN_RELEVANCE_ALONE,
                  "band_keyword_coverage": settings.RETRIEVAL_BAND_KEYWORD_COVERAGE,
                  "min_keyword_coverage": settings.RETRIEVAL_MIN_KEYWORD_COVERAGE, "mode": opts["mode"], "files": {}}
        files = {}
        for path in [opts["set"], *opts["questions"]]:
            try:
                files[str(path)] = [q for q in read_jsonl(path) if q.get("question")]
            except OSError as exc:
                raise CommandError(f"cannot read {path}: {exc}") from exc
            if not files[str(path)]:
                raise CommandError(f"no questions in {path}")
        try:
            with company_for(account, company_from_options(opts)) as setup:
                if setup is not None:
                    report["company"] = asdict(setup)
                for path, questions in files.items():
                    report["files"][path] = {
                        label: self._measure(questions, workspace, user, opts, threshold)
                        for label, threshold in (("threshold", None), ("no_threshold", 0.0))}
        except ApplicationError as exc:
            raise CommandError(exc.message) from exc
        if opts["json"]:
            write_json(self.stdout, report)
            return
        for path, figures in report["files"].items():
            self.stdout.write(path)
            for label, f in figures.items():
                self.stdout.write(f"  {label:<13} {f}")

    def _measure(self, questions: list[dict], workspace: Workspace, user: AbstractBaseUser, opts: dict,
                 threshold: float | None) -> dict:
        off = off_empty = on = on_kept = on_empty = 0
        for q in questions:
            options = RetrievalOptions(mode=opts["mode"], top_k=opts["k"], min_relevance=threshold)
            chunks = retrieve_context(q["question"], workspace, user=user, options=options).chunks
            if q.get("on_topic", True) is False:
                off += 1
                off_empty += not chunks
                continue
            on += 1
            gold = {(g["sfs"], g["ref"]) for g in q.get("gold_refs") or []}
            on_kept += gold_kept(chunks, gold)
            on_empty += not chunks
        out = {}
        if off:
            out.update(off_topic=off, off_topic_no_sources=off_empty, off_topic_no_sources_share=round(off_empty / off, 3))
        if on:
            out.update(on_topic=on, on_topic_gold_kept=on_kept, on_topic_gold_kept_share=round(on_kept / on, 3),
                       on_topic_no_sources=on_empty)
        return out
