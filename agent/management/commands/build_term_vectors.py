"""Embed the statutes' index terms for query expansion (agent/retrieval/vocabulary_neighbours.py).

Reads the loaded statutes' chunks, keeps every lexeme at least `--min-df` chunks use (with the word form the
statutes use most for it), embeds each word with the active model (the passage prefix, as at question time)
and writes int8 rows with their scales to data/sfs/terms-<model>.npz (or `--out`). It then prints how close
random pairs of terms come and how close each term's nearest other term is: the base rate a cosine floor
(RETRIEVAL_NEIGHBOURS_MIN_COSINE) must clear.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np
from django.core.management.base import BaseCommand, CommandError, CommandParser

from agent.retrieval import vocabulary_neighbours
from chunks.embedding import active_model_name, get_provider

BATCH = 256
PAIRS = 200_000


class Command(BaseCommand):
    help = "Embed the loaded statutes' index terms into data/sfs/terms-<model>.npz (query expansion by neighbours)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--min-df", type=int, default=vocabulary_neighbours.MIN_DF,
                            help="statute chunks a lexeme must be used in to be an index term")
        parser.add_argument("--out", default="", help="the file (default: data/sfs/terms-<model>.npz)")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **options: Any) -> None:
        started = time.perf_counter()
        terms = vocabulary_neighbours.corpus_terms(options["min_df"])
        if not terms:
            raise CommandError("no statute chunks loaded: run load_sfs first")
        read_s = time.perf_counter() - started
        provider = get_provider()
        t0 = time.perf_counter()
        parts = []
        for i in range(0, len(terms), BATCH):
            parts.append(provider.embed_passages([t.word for t in terms[i:i + BATCH]]))
            if not options["json"] and (i // BATCH) % 10 == 0:
                self.stderr.write(f"{i + len(parts[-1])}/{len(terms)} terms, {time.perf_counter() - t0:.0f} s")
        vectors = np.vstack(parts).astype(np.float32)
        vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        embed_s = time.perf_counter() - t0
        path = Path(options["out"]) if options["out"] else vocabulary_neighbours.default_path()
        vocabulary_neighbours.save(path, terms, vectors, model=active_model_name())
        report = {
            "terms": len(terms), "min_df": options["min_df"], "model": active_model_name(), "file": str(path),
            "file_bytes": path.stat().st_size, "read_s": round(read_s, 1), "embed_s": round(embed_s, 1),
            "terms_per_s": round(len(terms) / max(embed_s, 1e-9), 1),
            **_base_rates(vocabulary_neighbours.load(path).vectors),
        }
        if options["json"]:
            self.stdout.write(json.dumps(report, indent=2))
        else:
            for key, value in report.items():
                self.stdout.write(f"{key}: {value}")


def _base_rates(vectors: np.ndarray) -> dict:
    """Cosine percentiles of random term pairs, and of each (sampled) term's nearest other term."""
    rng = np.random.default_rng(0)
    n = len(vectors)
    a, b = rng.integers(0, n, PAIRS), rng.integers(0, n, PAIRS)
    keep = a != b
    random_pairs = np.einsum("ij,ij->i", vectors[a[keep]], vectors[b[keep]])
    sample = rng.choice(n, size=min(n, 2000), replace=False)
    sims = vectors[sample] @ vectors.T
    sims[np.arange(len(sample)), sample] = -1.0
    nearest = sims.max(axis=1)
    qs = (50, 90, 99, 99.9, 99.99)
    return {
        "random_pair_cosine": {f"p{q}": round(float(np.percentile(random_pairs, q)), 4) for q in qs},
        "nearest_term_cosine": {f"p{q}": round(float(np.percentile(nearest, q)), 4) for q in (10, 50, 90)},
    }
