"""Rebuild the shipped statute vectors (chunks/shipped_vectors.py) from the bundled corpus.

Chunks every selected statute with the current parser and embeds each chunk's
passage text with the local model. A vector already stored for the same text
hash and model is the same computation's result and is reused: from the
current shipped file, this project's own database, and `--reuse-from`
databases (unless `--no-reuse`), so a rebuild after a parser change computes
only the chunks whose text changed. `--reuse-only` computes nothing and ships
only what it found (a partial file: load_sfs embeds the rest as usual).

`--book` builds the second file, for the rest of the statute book (SFS_BOOK_PATH): int8, the kinds given by
`--kind` in that order (default lag, then förordning), newest statute first within a kind, saved at
least every minute, so a build stopped at any time ships the statutes it finished.

`--only` rebuilds the statutes it names in the file and keeps the others' vectors there.

`--regulations` builds the third file, for the agency regulations and the GDPR as `load_regulations` reads
them (law.regulations, chunked by chunks.chunking.chunk_regulation): int8, `vectors-<model>-regulations.npz`.

`--records FILE` builds the fourth, for the texts the official records give (`sync_sfs --file`, which `make run`
applies: data/sfs/rkrattsbaser-2026.jsonl.gz): int8, `vectors-<model>-records.npz`, holding only the chunks no other
shipped file has (an amended statute's unchanged §§ are there already).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from pgvector.psycopg import register_vector
from tqdm import tqdm

from chunks.chunking import ChunkDraft, chunk_regulation, chunk_statute
from chunks.embedding import active_model_name, get_provider, passage_text
from chunks.models import ContentChunk
from chunks.shipped_vectors import (
    ShippedVectors,
    book_path,
    default_path,
    load,
    records_path,
    regulations_path,
    save,
    shipped_paths,
)
from compliance.models import content_hash
from compliance.numbers import is_sfs_number
from law.regulations import FORESKRIFTER_PATH, GDPR_PATH, RecordError, read_records, regulation_from_record
from law.sfs_corpus import read_corpus
from law.sfs_records import RecordError as OfficialRecordError
from law.sfs_records import parse_record
from law.sfs_records import read_records as read_official_records


BOOK_KINDS = ("lag", "förordning")
SAVE_EVERY_SECONDS = 60.0


def book_order(records: list[dict], kinds: list[str]) -> list[dict]:
    """The book's records of `kinds`, kind by kind in that order, the newest statute first within a kind."""
    chosen = [r for r in records if r.get("kind") in kinds and r.get("text")]
    chosen.sort(key=lambda r: r.get("issued") or "", reverse=True)
    return sorted(chosen, key=lambda r: kinds.index(r["kind"]))  # stable: newest first within a kind


def by_hash(drafts: list[ChunkDraft]) -> dict[str, str]:
    """{content hash: passage text} of a document's chunks: what the model embeds, keyed as the shipped files key it."""
    texts = [passage_text(draft.header, draft.text) for draft in drafts]
    return {content_hash(text): text for text in texts}


def corpus_passages(corpus: Path, only: set[str] | None, kinds: list[str] | None = None) -> dict[str, dict[str, str]]:
    """{sfs: {content hash: passage text}} of every chunk of the selected statutes, in corpus order (the book's
    order with `kinds`)."""
    statutes: dict[str, dict[str, str]] = {}
    records = list(read_corpus(corpus))
    for record in (book_order(records, kinds) if kinds else records):
        if only is not None and record["sfs"] not in only:
            continue
        statutes.setdefault(record["sfs"], {}).update(by_hash(chunk_statute(record["title"], record["sfs"],
                                                                            record["text"])))
    return statutes


def regulation_passages(only: set[str] | None) -> dict[str, dict[str, str]]:
    """{number: {content hash: passage text}} of every chunk of the shipped regulations and the GDPR, the way
    load_regulations chunks them. A record load_regulations skips (malformed) is skipped here too."""
    documents: dict[str, dict[str, str]] = {}
    for path in (FORESKRIFTER_PATH, GDPR_PATH):
        for record in read_records(path):
            if record.data is None:
                continue
            try:
                data = regulation_from_record(record.data)
            except RecordError:
                continue
            if only is not None and data.sfs_number not in only:
                continue
            # As chunks.services chunks a legal document: by its structure, else as a statute's text.
            drafts = (chunk_regulation(data.title, data.sfs_number, data.structure) if data.structure
                      else chunk_statute(data.title, data.sfs_number, data.full_text))
            documents.setdefault(data.sfs_number, {}).update(by_hash(drafts))
    return documents


def record_passages(path: Path, only: set[str] | None) -> dict[str, dict[str, str]]:
    """{sfs: {content hash: passage text}} of every chunk of the texts the official records give, chunked as
    `sync_sfs` chunks them (the record's title and normalised text); a repeal or a malformed record has none."""
    statutes: dict[str, dict[str, str]] = {}
    for line in read_official_records(path):
        if line.record is None:
            continue
        try:
            record = parse_record(line.record)
        except OfficialRecordError:
            continue
        if record.repealed or (only is not None and record.sfs not in only):
            continue
        statutes.setdefault(record.sfs, {}).update(by_hash(chunk_statute(record.title, record.sfs, record.text)))
    return statutes


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
            found.update((h, np.asarray(v.to_numpy(), dtype=np.float32)) for h, v in rows)  # pgvector.Vector
    return found


class Command(BaseCommand):
    help = "Compute the statute chunk vectors shipped with the corpus (data/sfs/vectors-<model>.npz)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--only", help="comma-separated SFS numbers (default: the whole corpus)")
        parser.add_argument("--corpus", default=str(settings.SFS_CORPUS_PATH))
        parser.add_argument("--output", help="default: the path load_sfs reads for the active model")
        parser.add_argument("--reuse-from", action="append", default=[], metavar="DATABASE_URL",
                            help="also reuse matching vectors stored in this database (read-only; repeatable)")
        parser.add_argument("--no-reuse", action="store_true", help="compute every vector with the model")
        parser.add_argument("--reuse-only", action="store_true",
                            help="compute nothing: ship only the vectors found stored (the rest is embedded on load)")
        parser.add_argument("--book", action="store_true",
                            help="the rest of the statute book (SFS_BOOK_PATH) into vectors-<model>-book.npz, int8")
        parser.add_argument("--regulations", action="store_true",
                            help="the agency regulations and the GDPR into vectors-<model>-regulations.npz, int8")
        parser.add_argument("--records", metavar="FILE",
                            help="the texts of these official records into vectors-<model>-records.npz, int8, "
                                 "only the chunks no other shipped file has")
        parser.add_argument("--kind", action="append", dest="kinds",
                            help=f"with --book: kinds to embed, in this order (default: {', '.join(BOOK_KINDS)})")
        parser.add_argument("--no-progress", action="store_true")

    def handle(self, *args: Any, **opts: Any) -> None:
        if settings.EMBEDDING_BACKEND != "local":
            raise CommandError("shipped vectors are for the local model: set EMBEDDING_BACKEND=local")
        only = None
        if sum(bool(opts[name]) for name in ("book", "regulations", "records")) > 1:
            raise CommandError("--book, --regulations and --records build different files: one at a time")
        if opts["only"]:
            only = {s.strip() for s in opts["only"].split(",") if s.strip()}
            # The book holds historical numbers too ("1736:0123 2", Handelsbalken).
            bad = [] if opts["regulations"] else sorted(n for n in only if not is_sfs_number(n))
            if bad:
                raise CommandError(f"invalid SFS number(s): {', '.join(bad)}")
        t0 = time.perf_counter()
        model = active_model_name()
        kinds = list(opts["kinds"] or BOOK_KINDS) if opts["book"] else None
        corpus = Path(settings.SFS_BOOK_PATH) if opts["book"] else Path(opts["corpus"])
        by_statute = (regulation_passages(only) if opts["regulations"]
                      else record_passages(Path(opts["records"]), only) if opts["records"]
                      else corpus_passages(corpus, only, kinds))
        if only is not None and len(by_statute) != len(only):
            raise CommandError("some SFS numbers are not in the corpus")
        # The shipped files as they are, each read once, when needed: what they hold is reused, and the records' file
        # leaves out what the others hold.
        current: dict[Path, ShippedVectors] = {}
        if opts["records"] or not opts["no_reuse"]:
            current = {path: shipped for path in shipped_paths(model) if path.exists()
                       if (shipped := load(path)).model == model
                       and shipped.dimensions == settings.EMBEDDING_DIMENSIONS}
        if opts["records"]:
            # Only what no other file ships: the loaders find those there.
            elsewhere = [shipped for path, shipped in current.items() if path != records_path(model)]
            by_statute = {sfs: {h: text for h, text in texts.items() if not any(h in shipped for shipped in elsewhere)}
                          for sfs, texts in by_statute.items()}
        passages = {h: text for texts in by_statute.values() for h, text in texts.items()}
        vectors: dict[str, np.ndarray] = {}
        dtype = "int8" if opts["book"] or opts["regulations"] or opts["records"] else "float16"
        output = (Path(opts["output"]) if opts["output"] else book_path(model) if opts["book"]
                  else regulations_path(model) if opts["regulations"]
                  else records_path(model) if opts["records"] else default_path(model))
        if opts["no_reuse"] and opts["reuse_only"]:
            raise CommandError("--no-reuse and --reuse-only exclude each other")
        if not opts["no_reuse"]:
            for shipped in current.values():
                vectors.update((h, v) for h in passages if (v := shipped.get(h)) is not None)
            for url in [None, *opts["reuse_from"]]:
                missing = [h for h in passages if h not in vectors]
                if missing:
                    vectors.update(stored_vectors(missing, model, url))
        reused = len(vectors)
        provider = get_provider()
        batch = settings.EMBEDDING_BATCH_SIZE
        computed = 0
        # Statute by statute, saving after each: an interrupted build still leaves a usable file, and
        # the file only ever holds whole statutes (a statute partly covered means its text changed).
        complete: dict[str, np.ndarray] = {}
        if only is not None and output.exists():
            # --only rebuilds those statutes in the file: the other statutes' vectors stay in it.
            existing = current[output] if output in current else load(output)
            if existing.model == model and existing.dimensions == settings.EMBEDDING_DIMENSIONS:
                complete.update((key, existing.get(key)) for key in existing.keys())
        last_save = time.perf_counter()
        for sfs, texts in tqdm(by_statute.items(), desc="Författningar", unit="st", disable=opts["no_progress"]):
            todo = sorted((h for h in texts if h not in vectors), key=lambda h: len(texts[h]))
            if todo and opts["reuse_only"]:
                continue
            for i in range(0, len(todo), batch):
                keys = todo[i:i + batch]
                for key, vector in zip(keys, provider.embed_passages([texts[k] for k in keys])):
                    vectors[key] = vector
            computed += len(todo)
            complete.update((h, vectors[h]) for h in texts)
            if todo and time.perf_counter() - last_save >= SAVE_EVERY_SECONDS:
                save(output, complete, model=model, dimensions=provider.dimensions, dtype=dtype)
                last_save = time.perf_counter()
        saved = save(output, complete, model=model, dimensions=provider.dimensions, dtype=dtype)
        statutes = sum(1 for texts in by_statute.values() if all(h in complete for h in texts))
        self.stdout.write(json.dumps({
            "output": str(output), "model": model, "statutes": len(by_statute), "statutes_shipped": statutes,
            "chunks": len(passages), "shipped": saved, "reused": reused, "computed": computed,
            "bytes": output.stat().st_size, "seconds": round(time.perf_counter() - t0, 1),
        }))
