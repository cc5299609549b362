"""Retrieval quality on a question set: recall@k, MRR, nDCG@10 and latency per mode.

Input: JSON lines (optionally gzipped) with `question` and `gold_refs`
([{"sfs": "1977:1160", "ref": "3 kap. 2 a §"}, ...]), e.g. data/sfs/dev_questions.jsonl.gz.

Scoring. A retrieved chunk is a hit when its (document_number, citation) is one
of the question's gold refs. A split section's parts share their citation, so
the ranked list is first reduced to unique (sfs, citation) pairs in rank order:
a section counts once, at its best rank. Any gold ref counts as a hit (the dev
set lists every section under a heading), so:

- recall@k: share of questions with at least one gold section in the top k
  unique sections (hit rate);
- MRR: mean of 1 / rank of the first gold section (0 if none in the list);
- nDCG@10: binary gains over the top 10 unique sections, ideal = min(|gold|, 10)
  gold sections first.

Context recall: the share of questions whose gold section is in the assembled context block, what the
model answers from. Each question also goes through the real pre-model step (`prepare_context`: intent,
retrieval in the same mode, the token budget; no cache), and the block's sources are matched like the
ranked list. With it come the sources and tokens per block. `--no-context` skips it (half the time).

Latency is wall time per retrieve_context call, query embedding included (the
query-vector cache is cleared before each mode); `sql_ms` is the SQL part alone.
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import asdict, dataclass
from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from django.core.management.base import BaseCommand, CommandError, CommandParser

from agent.answering.prepare import PrepareOptions, prepare_context
from agent.evaluation.benchmarking import (
    BenchAccount,
    eval_user_and_workspace,
    latency_summary,
    machine_info,
    read_jsonl,
    write_json,
)
from agent.evaluation.company import add_company_arguments, company_for, company_from_options
from agent.retrieval.hybrid import RetrievalOptions, retrieve_context
from agent.retrieval.query_vector_cache import query_vectors
from agent.retrieval.sources import RetrievedChunk
from compliance.errors import ApplicationError
from compliance.models import LegalDocument, ProcessingStatus, Workspace

KS = (1, 5, 10, 20)
# With a deep --k (up to 200), how far down the gold section sits: the most a reranker given that many
# fused sources could find (docs/retrieval.md, "Where the gap is").
DEEP_KS = (50, 100, 200)
MODES = ("hybrid", "vector", "keyword")


def unique_sections(chunks: list[RetrievedChunk]) -> list[tuple[str, str]]:
    seen: set[tuple[str, str]] = set()
    out: list[tuple[str, str]] = []
    for chunk in chunks:
        key = (chunk.document_number, chunk.citation)
        if key not in seen:
            seen.add(key)
            out.append(key)
    return out


def recall_cutoffs(k: int) -> tuple[int, ...]:
    return KS + tuple(x for x in DEEP_KS if x <= k)


def score(ranked: list[tuple[str, str]], gold: set[tuple[str, str]], ks: tuple[int, ...] = KS) -> dict:
    hits = [key in gold for key in ranked]
    first = next((i for i, hit in enumerate(hits) if hit), None)
    out = {f"recall@{k}": 1.0 if any(hits[:k]) else 0.0 for k in ks}
    out["mrr"] = 0.0 if first is None else 1.0 / (first + 1)
    dcg = sum(1.0 / math.log2(i + 2) for i, hit in enumerate(hits[:10]) if hit)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(gold), 10)))
    out["ndcg@10"] = dcg / ideal if ideal else 0.0
    return out


@dataclass(frozen=True)
class ContextBlock:
    sections: set[tuple[str, str]]  # (document number, citation) of the block's sources
    sources: int
    tokens: int


def context_block(question: str, workspace: Workspace, user: AbstractBaseUser,
                  options: RetrievalOptions) -> ContextBlock:
    """What the model would be given for `question` alone: the real pre-model step, uncached."""
    prepared = prepare_context([{"role": "user", "content": question}], workspace, user,
                               PrepareOptions(retrieval=options, use_cache=False))
    return ContextBlock(sections={(row["document_number"], row["citation"]) for row in prepared.citations},
                        sources=prepared.metrics["chunks_included"], tokens=prepared.metrics["tokens_used"])


class Command(BaseCommand):
    help = "Evaluate retrieval on a question file (question + gold_refs): recall@k, MRR, nDCG@10, latency."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--questions", required=True, help="JSON lines file, .jsonl or .jsonl.gz")
        parser.add_argument("--k", type=int, default=20, help="chunks retrieved per question (top_k)")
        parser.add_argument("--mode", default="hybrid", choices=[*MODES, "all"])
        parser.add_argument("--limit", type=int, default=0, help="only the first N questions")
        parser.add_argument("--json", action="store_true")
        parser.add_argument("--loaded-only", action="store_true",
                            help="search only the statutes the questions may use (fully loaded ones): a "
                                 "sub-corpus measurement while embedding is still under way")
        add_company_arguments(parser)
        parser.add_argument("--no-context", action="store_true",
                            help="skip the context recall (the pre-model step run for every question)")

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            questions = [q for q in read_jsonl(opts["questions"]) if q.get("question") and q.get("gold_refs")]
        except OSError as exc:
            raise CommandError(f"cannot read {opts['questions']}: {exc}") from exc
        if opts["limit"]:
            questions = questions[:opts["limit"]]
        if not questions:
            raise CommandError("no questions with `question` and `gold_refs` in the file")

        needs_vectors = opts["mode"] != "keyword"
        status = {sfs: (st, n) for sfs, st, n in LegalDocument.objects.values_list("sfs_number", "status", "chunks_total")}
        # Keyword search needs chunks only; the vector modes need every chunk embedded.
        loaded = {sfs for sfs, (st, n) in status.items()
                  if st == ProcessingStatus.DONE or (not needs_vectors and n and st != ProcessingStatus.FAILED)}
        not_done = {sfs for sfs in status if sfs not in loaded}
        usable, missing = [], {}
        for q in questions:
            gold_sfs = {g["sfs"] for g in q["gold_refs"]}
            if gold_sfs & loaded:
                usable.append(q)
            else:
                for sfs in gold_sfs:
                    missing[sfs] = missing.get(sfs, 0) + 1
        for sfs, n in sorted(missing.items()):
            state = "not fully chunked/embedded" if sfs in not_done else "not loaded"
            self.stderr.write(f"warning: gold statute {sfs} is {state}: {n} question(s) skipped")
        if not usable:
            raise CommandError("none of the questions' gold statutes is loaded (run load_sfs and embed)")

        try:
            company = company_from_options(opts)
        except ApplicationError as exc:
            raise CommandError(exc.message) from exc
        account = eval_user_and_workspace()
        modes = MODES if opts["mode"] == "all" else (opts["mode"],)
        k = max(opts["k"], 1)
        report = {
            "questions_file": str(opts["questions"]),
            "questions": len(questions),
            "questions_with_gold_loaded": len(usable),
            "questions_skipped": len(questions) - len(usable),
            "k": k,
            "searched_statutes": len(loaded) if opts["loaded_only"] else "all",
            "machine": machine_info(),
            "modes": {},
        }
        try:
            with company_for(account, company) as setup:
                if setup is not None:
                    report["company"] = asdict(setup)
                report["modes"] = {mode: self._mode(mode, usable, k, loaded, account, opts) for mode in modes}
        except ApplicationError as exc:
            raise CommandError(exc.message) from exc

        if opts["json"]:
            write_json(self.stdout, report)
        else:
            self._table(report)

    def _mode(self, mode: str, usable: list[dict], k: int, loaded: set[str], account: BenchAccount,
              opts: dict[str, Any]) -> dict:
        """One mode's figures over the usable questions."""
        user, workspace = account.user, account.workspace
        query_vectors.clear()
        options = RetrievalOptions(mode=mode, top_k=k,
                                   sfs_numbers=sorted(loaded) if opts["loaded_only"] else [])
        ks = recall_cutoffs(k)
        names = [*(f"recall@{x}" for x in ks), "mrr", "ndcg@10"]
        totals = {name: 0.0 for name in names}
        by_kind: dict[str, dict] = {}
        wall, sql, degraded, no_sources = [], [], 0, 0
        in_block, sources, tokens = 0, 0, 0
        for q in usable:
            gold = {(g["sfs"], g["ref"]) for g in q["gold_refs"]}
            t0 = time.perf_counter()
            result = retrieve_context(q["question"], workspace, user=user, options=options)
            wall.append((time.perf_counter() - t0) * 1000)
            sql.append(float(result.timings_ms.get("sql", 0.0)))
            degraded += bool(result.degraded)
            no_sources += not result.chunks
            kind = by_kind.setdefault(q.get("kind") or "", {"n": 0, **{name: 0.0 for name in names}})
            kind["n"] += 1
            for name, value in score(unique_sections(result.chunks), gold, ks).items():
                totals[name] += value
                kind[name] += value
            if not opts["no_context"]:
                block = context_block(q["question"], workspace, user, options)
                in_block += bool(block.sections & gold)
                sources += block.sources
                tokens += block.tokens
        n = len(usable)
        figures = {name: round(value / n, 4) for name, value in totals.items()}
        if not opts["no_context"]:
            figures["context_recall"] = round(in_block / n, 4)
            figures["context_sources_avg"] = round(sources / n, 2)
            figures["context_tokens_avg"] = round(tokens / n, 1)
        if len(by_kind) > 1:
            figures["by_kind"] = {
                kind: {"n": row["n"], **{name: round(row[name] / row["n"], 4) for name in names}}
                for kind, row in sorted(by_kind.items())}
        figures["latency"] = latency_summary(wall)
        figures["sql_ms"] = latency_summary(sql)
        figures["degraded"] = degraded
        # Left with no source at all: the answer says the knowledge base has nothing on the question.
        figures["no_sources"] = no_sources
        return figures

    def _table(self, report: dict) -> None:
        w = self.stdout.write
        w(f"{report['questions_with_gold_loaded']} of {report['questions']} questions evaluated "
          f"({report['questions_skipped']} skipped: gold statute not loaded), top_k={report['k']}")
        cols = [*(f"recall@{k}" for k in recall_cutoffs(report["k"])), "mrr", "ndcg@10"]
        w(f"{'mode':<8} " + " ".join(f"{c:>9}" for c in cols) + f" {'p50 ms':>8} {'p95 ms':>8}")
        for mode, fig in report["modes"].items():
            w(f"{mode:<8} " + " ".join(f"{fig[c]:>9.3f}" for c in cols)
              + f" {fig['latency']['p50_ms']:>8.1f} {fig['latency']['p95_ms']:>8.1f}"
              + f"  sql p50 {fig['sql_ms']['p50_ms']:.1f} p95 {fig['sql_ms']['p95_ms']:.1f}"
              + f"  no source {fig['no_sources']}")
            if "context_recall" in fig:
                w(f"  context recall {fig['context_recall']:.3f} ({fig['context_sources_avg']:.1f} sources, "
                  f"{fig['context_tokens_avg']:.0f} tokens per block)")
            for kind, row in fig.get("by_kind", {}).items():
                w(f"  {kind} (n={row['n']}) " + " ".join(f"{row[c]:>9.3f}" for c in cols))
        sys.stdout.flush()
