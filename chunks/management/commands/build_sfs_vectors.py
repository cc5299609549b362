"""Rebuild the shipped statute vectors (chunks/shipped_vectors.py) from the bundled corpus.

Chunks every selected statute with the current parser and embeds each chunk's
passage text with the local model. A vector already stored in a database for
the same text hash and model is the same computation's result and is reused
(`--reuse-from`, and this project's own database unless `--no-reuse`), so a
rebuild after a parser change computes only the chunks whose text changed.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import psycopg
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from pgvector.psycopg import register_vector
from tqdm import tqdm

from chunks.chunking import chunk_statute
from chunks.embedding import active_model_name, get_provider, passage_text
from chunks.models import ContentChunk
from chunks.sfs_corpus import read_corpus
from chunks.shipped_vectors import default_path, save
from compliance.models import SFS_NUMBER_RE, content_hash


def corpus_passages(corpus: Path, only: set[str] | None) -> tuple[dict[str, str], int, int]:
    """{content hash: passage text} of every chunk of the selected statutes, plus statute and chunk counts."""
    passages: dict[str, str] = {}
    statutes = chunks = 0
    for record in read_corpus(corpus):
        if only is not None and record["sfs"] not in only:
            continue
        statutes += 1
        for draft in chunk_statute(record["title"], record["sfs"], record["text"]):
            text = passage_text(draft.header, draft.text)
            passages[content_hash(text)] = text
            chunks += 1
    return passages, statutes, chunks


def stored_vectors(hashes: list[str], model: str, url: str | None) -> dict[str, np.ndarray]:
    """Vectors some database already holds for these texts and this model (`url` None: our own)."""
    found: dict[str, np.ndarray] = {}
    step = 2000
    if url is None:
        for i in range(0, len(hashes), step):
            rows = (ContentChunk.objects.filter(content_hash__in=hashes[i:i + step], embedding_model=model,
                                                embedding__isnull=False)
                    .values_list("content_hash", "embedding"))
            found.update((h, np.asarray(v, dtype=np.float32)) for h, v in rows)
        return found
    with psycopg.connect(url) as conn:
        conn.read_only = True
        register_vector(conn)
        for i in range(0, len(hashes), step):
            rows = conn.execute(
                "SELECT content_hash, embedding FROM chunks_contentchunk "
                "WHERE content_hash = ANY(%s) AND embedding_model = %s AND embedding IS NOT NULL",
                (hashes[i:i + step], model),
            ).fetchall()
            found.update((h, np.asarray(v, dtype=np.float32)) for h, v in rows)
    return found


class Command(BaseCommand):
    help = "Compute the statute chunk vectors shipped with the corpus (data/sfs/vectors-<model>.npz)."

    def add_arguments(self, parser):
        parser.add_argument("--only", help="comma-separated SFS numbers (default: the whole corpus)")
        parser.add_argument("--corpus", default=str(settings.SFS_CORPUS_PATH))
        parser.add_argument("--output", help="default: the path load_sfs reads for the active model")
        parser.add_argument("--reuse-from", action="append", default=[], metavar="DATABASE_URL",
                            help="also reuse matching vectors stored in this database (read-only; repeatable)")
        parser.add_argument("--no-reuse", action="store_true", help="compute every vector with the model")
        parser.add_argument("--no-progress", action="store_true")

    def handle(self, *args, **opts):
        if settings.EMBEDDING_BACKEND != "local":
            raise CommandError("shipped vectors are for the local model: set EMBEDDING_BACKEND=local")
        only = None
        if opts["only"]:
            only = {s.strip() for s in opts["only"].split(",") if s.strip()}
            bad = sorted(n for n in only if not SFS_NUMBER_RE.match(n))
            if bad:
                raise CommandError(f"invalid SFS number(s): {', '.join(bad)}")
        t0 = time.perf_counter()
        model = active_model_name()
        passages, statutes, n_chunks = corpus_passages(Path(opts["corpus"]), only)
        if only is not None and statutes != len(only):
            raise CommandError("some SFS numbers are not in the corpus")
        vectors: dict[str, np.ndarray] = {}
        if not opts["no_reuse"]:
            for url in [None, *opts["reuse_from"]]:
                missing = [h for h in passages if h not in vectors]
                if missing:
                    vectors.update(stored_vectors(missing, model, url))
        reused = len(vectors)
        todo = sorted((h for h in passages if h not in vectors), key=lambda h: len(passages[h]))
        provider = get_provider()
        batch = settings.EMBEDDING_BATCH_SIZE
        for i in tqdm(range(0, len(todo), batch), desc="Inbäddning", unit="sats", disable=opts["no_progress"]):
            keys = todo[i:i + batch]
            for key, vector in zip(keys, provider.embed_passages([passages[k] for k in keys])):
                vectors[key] = vector
        output = Path(opts["output"]) if opts["output"] else default_path(model)
        saved = save(output, vectors, model=model, dimensions=provider.dimensions)
        self.stdout.write(json.dumps({
            "output": str(output), "model": model, "statutes": statutes, "chunks": n_chunks,
            "unique_texts": saved, "reused": reused, "computed": len(todo),
            "bytes": output.stat().st_size, "seconds": round(time.perf_counter() - t0, 1),
        }))
