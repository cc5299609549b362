"""Latency of the retrieval SQL path, query embedding excluded.

Two targets:

* the corpus loaded in the current database (default);
* `--chunks N`: a synthetic corpus of N chunks in a SEPARATE database
  (`--db`, default lagrum_bench) on the same server. The dev database is only
  read (its real chunks and vectors seed the synthetic ones). The bench
  database is built once and reused while it holds N chunks.

The synthetic corpus: every embedded chunk of the current database (real
statutes, real vectors, real citations) plus generated statute chunks whose
text recombines real statute sentences and whose vectors are real embeddings
perturbed with noise (so the HNSW graph has realistic clusters); about 10 % of
the chunks are workspace files spread over 50 workspaces (a few private or
deleted, so the scope EXISTS is exercised). Rows are streamed with binary COPY
with secondary indexes dropped, then the indexes (GIN, btree, HNSW) are built.

Timing: the queries (dev questions, paraphrased and short questions, section
citations) are embedded first, into the process's query-vector cache, so the
timed `retrieve_context` calls only run the reference lookup and the SQL; the
general `hybrid_search` and its vector-only and keyword-only halves are also
timed on their own. Everything runs as a member of one workspace, so the
workspace scope filter is on.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
import re
import time
from contextlib import contextmanager
from datetime import datetime
from datetime import timezone as dt_timezone

import numpy as np
import psycopg
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import connection, connections
from pgvector.psycopg import register_vector

from agent.benchmarking import eval_user_and_workspace, latency_summary, machine_info, ms_since, warn, write_json
from agent.query_analysis import analyse_query
from agent.retrieval import (
    MAX_EMBED_CHARS,
    RetrievalOptions,
    clean_query,
    hybrid_search,
    keyword_terms,
    query_vectors,
    retrieve_context,
)
from agent.statute_names import names_for
from chunks.embedding import active_model_name
from chunks.models import ContentChunk
from chunks.sfs_corpus import content_type_for, parse_date, read_corpus
from compliance.models import LegalDocument, Membership, UserFile, Workspace
from compliance.selectors import AccessScope

WORKSPACES = 50
FILES_PER_WORKSPACE = 20
WORKSPACE_SHARE = 0.10
CHUNKS_PER_SYNTHETIC_STATUTE = 250
NOISE_NORM = 0.45  # |noise| relative to a unit vector: cosine to the seed vector ~0.9

# Questions users type that are not "Vad säger <lag> om <rubrik>?".
PARAPHRASED = [
    "Hur länge får en anställd jobba övertid per år?",
    "Måste vi ha ett skyddsombud på arbetsplatsen?",
    "Vilka regler gäller när man säger upp någon på grund av arbetsbrist?",
    "Hur många semesterdagar har man rätt till?",
    "Får arbetsgivaren kamerabevaka personalen?",
    "Vad ska en riskbedömning innehålla?",
    "Hur länge ska bokföringen sparas?",
    "Vilka uppgifter omfattas av sekretess hos en kommun?",
    "När behövs bygglov för en tillbyggnad?",
    "Vad är en verklig huvudman och hur kontrolleras den?",
    "Vem ansvarar för brandskyddet i en hyrd lokal?",
    "Vad räknas som diskriminering vid rekrytering?",
    "Hur hanterar vi personuppgifter om anställdas hälsa?",
    "Får en minderårig arbeta på kvällar?",
    "Vad gäller för föräldraledighet och återgång i arbete?",
    "Vilka krav finns på kemikalieförteckning?",
    "Hur anmäler man ett allvarligt tillbud?",
    "Vad innebär turordningsreglerna vid uppsägning?",
    "Vilka tillstånd krävs för miljöfarlig verksamhet?",
    "Hur snabbt måste en personuppgiftsincident anmälas?",
]
SHORT = ["övertid", "skyddsombud", "semester", "uppsägning", "arbetsbrist", "bygglov", "sekretess",
         "penningtvätt", "kameraövervakning", "diskriminering", "brandskydd", "riskbedömning",
         "provanställning", "arkivering", "miljötillstånd"]
CITATIONS = [
    "3 kap. 2 a § arbetsmiljölagen", "AML 3:2 a", "22 § LAS", "7 § anställningsskyddslagen",
    "Vad säger 6 kap. 4 § arbetsmiljölagen?", "4 § semesterlagen", "2 kap. 1 § diskrimineringslagen",
    "1 kap. 2 § offentlighets- och sekretesslagen", "9 kap. 2 § plan- och bygglagen", "2 kap. 2 § LSO",
    "Vad innebär 5 kap. 3 § bokföringslagen?", "3 kap. 1 § penningtvättslagen", "2 kap. 3 § miljöbalken",
    "11 § LAS", "1 kap. 1 § arbetsmiljöförordningen",
]


def build_queries(count: int, seed: int = 7) -> list[str]:
    """A realistic mix: ~65 % dev-set questions, the rest paraphrased, short and cited."""
    rng = random.Random(seed)
    path = settings.BASE_DIR / "data" / "sfs" / "dev_questions.jsonl.gz"
    dev = []
    if path.exists():
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            dev = [json.loads(line)["question"] for line in fh if line.strip()]
    rng.shuffle(dev)
    extras = PARAPHRASED + SHORT + CITATIONS
    n_dev = max(0, count - len(extras)) if count > len(extras) * 2 else int(count * 0.65)
    mix = dev[:n_dev] + extras
    rng.shuffle(mix)
    unique = list(dict.fromkeys(mix))[:min(count, 250)]  # the query-vector cache holds 256
    return [unique[i % len(unique)] for i in range(count)]


# --------------------------------------------------------------------------- database switching


def _dsn(settings_dict: dict, dbname: str) -> str:
    parts = {"dbname": dbname, "user": settings_dict.get("USER"), "password": settings_dict.get("PASSWORD"),
             "host": settings_dict.get("HOST"), "port": settings_dict.get("PORT")}
    return " ".join(f"{k}={v}" for k, v in parts.items() if v)


@contextmanager
def use_database(name: str):
    """Point the default connection at database `name` for this process, then back."""
    conn = connections["default"]
    original = conn.settings_dict["NAME"]
    conn.close()
    conn.settings_dict["NAME"] = name
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT current_database()")
            actual = cur.fetchone()[0]
        if actual != name:
            raise CommandError(f"expected database {name}, connected to {actual}")
        yield
    finally:
        conn.close()
        conn.settings_dict["NAME"] = original


def ensure_database(name: str) -> bool:
    """Create the bench database (with the extensions) if missing. True if created."""

    base = connections["default"].settings_dict
    if name == base["NAME"]:
        raise CommandError("the bench database must not be the dev database")
    with psycopg.connect(_dsn(base, "postgres"), autocommit=True) as admin:
        exists = admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if not exists:
            admin.execute(f'CREATE DATABASE "{name}"')
    with psycopg.connect(_dsn(base, name), autocommit=True) as db:
        db.execute("CREATE EXTENSION IF NOT EXISTS vector")
        db.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    return not exists


# --------------------------------------------------------------------------- synthetic corpus

_SENTENCE = re.compile(r"(?<=[.;:])\s+(?=[A-ZÅÄÖ0-9])")


def _sentence_pool(records: list[dict], limit: int = 200_000) -> list[str]:
    pool: list[str] = []
    for record in records:
        for paragraph in record["text"].split("\n\n"):
            for sentence in _SENTENCE.split(paragraph.strip()):
                if 20 <= len(sentence) <= 600:
                    pool.append(sentence)
    random.Random(1).shuffle(pool)
    return pool[:limit]


def _seed_rows() -> tuple[list[tuple], np.ndarray]:
    """Embedded chunks of the current (dev) database: read only."""

    rows = list(ContentChunk.objects.filter(legal_document__isnull=False, embedding__isnull=False,
                                            embedding_model=active_model_name())
                .order_by("id").values_list("document_number", "document_title", "header", "path", "ordinal",
                                            "citation", "chapter", "section", "kind", "text", "token_count",
                                            "content_hash", "embedding"))
    if not rows:
        raise CommandError("the current database has no embedded statute chunks to seed the synthetic corpus")
    vectors = np.asarray([np.asarray(r[-1], dtype=np.float32) for r in rows], dtype=np.float32)
    return [r[:-1] for r in rows], vectors


def _perturbed(seeds: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    a = seeds[rng.integers(0, len(seeds), n)]
    b = seeds[rng.integers(0, len(seeds), n)]
    mix = rng.uniform(0.0, 0.35, (n, 1)).astype(np.float32)
    noise = rng.standard_normal((n, seeds.shape[1])).astype(np.float32) * (NOISE_NORM / np.sqrt(seeds.shape[1]))
    v = (1 - mix) * a + mix * b + noise
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _meta_get(cur) -> dict | None:
    cur.execute("CREATE TABLE IF NOT EXISTS bench_meta (key text PRIMARY KEY, value jsonb NOT NULL)")
    cur.execute("SELECT value FROM bench_meta WHERE key = 'corpus'")
    row = cur.fetchone()
    if not row:
        return None
    return json.loads(row[0]) if isinstance(row[0], str) else row[0]


def build_synthetic(n: int, dbname: str, log) -> dict:
    """Fill `dbname` with n chunks (reused if it already holds them). Returns build figures."""

    created = ensure_database(dbname)
    with use_database(dbname):
        call_command("migrate", verbosity=0, interactive=False)
        with connection.cursor() as cur:
            meta = _meta_get(cur)
            cur.execute("SELECT count(*) FROM chunks_contentchunk")
            have = cur.fetchone()[0]
        if meta and meta.get("chunks") == n and have == n:
            log(f"reusing {dbname}: {have} chunks")
            return {**meta, "reused": True}
    # Read the seeds from the dev database before touching the bench one.
    t_all = time.perf_counter()
    seed_meta, seed_vectors = _seed_rows()
    index_defs = _chunk_index_defs()
    records = list(read_corpus(settings.SFS_CORPUS_PATH))
    pool = _sentence_pool(records)
    log(f"seeds: {len(seed_meta)} real chunks, {len(pool)} sentences")
    figures = {"chunks": n, "database": dbname, "database_created": created, "seed_chunks": len(seed_meta)}
    with use_database(dbname):
        t0 = time.perf_counter()
        ids = _create_sources(records, n, seed_meta)
        figures["sources_s"] = round(ms_since(t0) / 1000, 2)
        t0 = time.perf_counter()
        _drop_chunk_indexes()
        figures["copy_s"] = round(_copy_chunks(n, ids, seed_meta, seed_vectors, pool, log) / 1000, 2)
        log(f"copied {n} chunks in {figures['copy_s']} s")
        figures.update(_create_indexes(index_defs, log))
        with connection.cursor() as cur:
            cur.execute("ANALYZE chunks_contentchunk")
            cur.execute("SELECT pg_total_relation_size('chunks_contentchunk'), "
                        "pg_relation_size('chunk_embedding_hnsw')")
            total, hnsw = cur.fetchone()
            figures["table_total_mb"] = round(total / 2**20)
            figures["hnsw_mb"] = round(hnsw / 2**20)
            figures["build_total_s"] = round(ms_since(t_all) / 1000, 2)
            figures["built_at"] = datetime.now(dt_timezone.utc).isoformat()
            figures["bench_user_id"] = ids["user_id"]
            figures["bench_workspace_id"] = ids["workspace_ids"][0]
            cur.execute("INSERT INTO bench_meta VALUES ('corpus', %s) ON CONFLICT (key) DO UPDATE "
                        "SET value = EXCLUDED.value", [json.dumps(figures)])
    figures["reused"] = False
    return figures


def _create_sources(records: list[dict], n: int, seed_meta: list[tuple]) -> dict:


    with connection.cursor() as cur:
        cur.execute("TRUNCATE chunks_contentchunk, compliance_userfile, compliance_legaldocument, "
                    "compliance_membership, compliance_workspace CASCADE")
        cur.execute("DELETE FROM bench_meta")
    assert ContentChunk.objects.count() == 0
    user, _ = get_user_model().objects.get_or_create(username="bench", defaults={"email": "bench@example.invalid"})
    workspaces = Workspace.objects.bulk_create(
        [Workspace(name=f"Bench {i:02d} AB", slug=f"bench-{i:02d}") for i in range(WORKSPACES)])
    Membership.objects.create(user=user, workspace=workspaces[0], role=Membership.Role.OWNER)
    files = []
    rng = random.Random(3)
    for ws in workspaces:
        for j in range(FILES_PER_WORKSPACE):
            private, deleted = rng.random() < 0.05, rng.random() < 0.03
            files.append(UserFile(workspace=ws, title=f"Policy {j}", original_name=f"policy-{j}.pdf",
                                  file=f"bench/{ws.pk}/{j}.pdf", status="done", is_private=private,
                                  deleted_at=datetime.now(dt_timezone.utc) if deleted else None))
    files = UserFile.objects.bulk_create(files)
    docs = []
    seeded = {row[0] for row in seed_meta}
    for record in records:  # every real statute, so references and names resolve
        names = names_for(record["sfs"], record["title"])
        docs.append(LegalDocument(sfs_number=record["sfs"], title=record["title"], full_text="",
                                  content_type=content_type_for(record["title"]),
                                  short_names=list(names.short_names), abbreviations=list(names.abbreviations),
                                  issued=parse_date(record.get("issued")), status="done",
                                  content_hash=record["sfs"], chunked_hash=record["sfs"]))
    shared = int(n * (1 - WORKSPACE_SHARE)) - len(seed_meta)
    n_synth = max(1, shared // CHUNKS_PER_SYNTHETIC_STATUTE)
    for i in range(n_synth):
        title = f"Förordning (2099:{i + 1}) om syntetiska regler {i + 1}"
        docs.append(LegalDocument(sfs_number=f"2099:{i + 1}", title=title, full_text="", status="done",
                                  content_type="SFS_ORDINANCE", content_hash=str(i), chunked_hash=str(i)))
    docs = LegalDocument.objects.bulk_create(docs, batch_size=1000)
    by_sfs = {d.sfs_number: d.pk for d in docs}
    return {
        "user_id": user.pk,
        "workspace_ids": [w.pk for w in workspaces],
        "files": [(f.pk, f.workspace_id, f.title) for f in files],
        "seeded_docs": {sfs: by_sfs[sfs] for sfs in seeded if sfs in by_sfs},
        "synthetic_docs": [(by_sfs[f"2099:{i + 1}"], f"2099:{i + 1}",
                            f"Förordning (2099:{i + 1}) om syntetiska regler {i + 1}") for i in range(n_synth)],
    }


def _chunk_index_defs() -> list[tuple[str, str]]:
    """Secondary indexes of the chunk table (read from the dev database: same migrations)."""
    with connection.cursor() as cur:
        cur.execute("""SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'chunks_contentchunk'
                       AND indexname NOT IN (SELECT conname FROM pg_constraint)""")
        return cur.fetchall()


def _drop_chunk_indexes() -> None:
    for name, _ in _chunk_index_defs():
        with connection.cursor() as cur:
            cur.execute(f'DROP INDEX IF EXISTS "{name}"')


def _create_indexes(defs: list[tuple[str, str]], log) -> dict:
    out = {}
    with connection.cursor() as cur:
        # The server's default_text_search_config ('pg_catalog.swedish' in the dev cluster) is
        # re-sent to parallel workers as 'pg_catalog.pg_catalog.swedish' and fails; set it plainly.
        cur.execute("SET default_text_search_config = 'swedish'")
        cur.execute("SET maintenance_work_mem = '6GB'")
        cur.execute("SET max_parallel_maintenance_workers = 2")
        t0 = time.perf_counter()
        for name, sql in defs:
            if "hnsw" in sql:
                continue
            cur.execute(sql)
        out["btree_gin_index_s"] = round(ms_since(t0) / 1000, 2)
        log(f"btree/GIN indexes in {out['btree_gin_index_s']} s")
        t0 = time.perf_counter()
        for name, sql in defs:
            if "hnsw" in sql:
                cur.execute(sql)
        out["hnsw_index_s"] = round(ms_since(t0) / 1000, 2)
        log(f"HNSW index in {out['hnsw_index_s']} s")
    return out


COPY_COLUMNS = ("source_type", "legal_document_id", "user_file_id", "workspace_id", "document_number",
                "document_title", "header", "path", "ordinal", "citation", "chapter", "section", "page", "kind",
                "text", "token_count", "content_hash", "embedding", "embedding_model", "created_at")
COPY_TYPES = ("text", "int8", "int8", "int8", "text", "text", "text", "text", "int4", "text", "text", "text",
              "int4", "text", "text", "int4", "text", "vector", "text", "timestamptz")


def _copy_chunks(n: int, ids: dict, seed_meta, seed_vectors, pool, log) -> float:
    """Binary COPY straight through Django's psycopg connection. Returns ms."""


    model = active_model_name()
    now = datetime.now(dt_timezone.utc)
    rng = np.random.default_rng(11)
    prng = random.Random(11)
    connection.ensure_connection()
    raw = connection.connection
    register_vector(raw)
    n_ws = int(n * WORKSPACE_SHARE)
    n_seed = min(len(seed_meta), n - n_ws)
    n_synth = n - n_ws - n_seed
    t0 = time.perf_counter()

    def text_of() -> str:
        return " ".join(prng.choice(pool) for _ in range(prng.randint(1, 6)))

    def digest(text: str) -> str:
        return hashlib.sha256(text.encode()).hexdigest()

    def rows():
        for i, meta in enumerate(seed_meta[:n_seed]):
            (number, title, header, path, ordinal, citation, chapter, section, kind, text, tokens, chash) = meta
            yield ("LEGAL_DOCUMENT", ids["seeded_docs"][number], None, None, number, title, header, path, ordinal,
                   citation, chapter, section, None, kind, text, tokens, chash, seed_vectors[i], model, now)
        docs = ids["synthetic_docs"]
        block = 20_000
        for start in range(0, n_synth, block):
            vectors = _perturbed(seed_vectors, min(block, n_synth - start), rng)
            for j, vec in enumerate(vectors):
                k = start + j
                doc_id, sfs, title = docs[min(k // CHUNKS_PER_SYNTHETIC_STATUTE, len(docs) - 1)]
                ordinal = k % CHUNKS_PER_SYNTHETIC_STATUTE
                chapter, section = str(ordinal // 20 + 1), str(ordinal % 20 + 1)
                citation = f"{chapter} kap. {section} §"
                text = text_of()
                yield ("LEGAL_DOCUMENT", doc_id, None, None, sfs, title, f"{title} > {chapter} kap. > {section} §",
                       f"{ordinal:05d}.00000", ordinal, citation, chapter, section, None, "section", text,
                       len(text) // 4, digest(text), vec, model, now)
        files = ids["files"]
        for start in range(0, n_ws, block):
            vectors = _perturbed(seed_vectors, min(block, n_ws - start), rng)
            for j, vec in enumerate(vectors):
                k = start + j
                file_id, ws_id, title = files[k % len(files)]
                page = k // len(files) + 1
                text = text_of()
                yield ("USER_FILE", None, file_id, ws_id, "", title, f"{title} > Sida {page}", f"{page:05d}",
                       page - 1, f"Sida {page}", "", "", page, "page", text, len(text) // 4, digest(text), vec,
                       model, now)

    with raw.cursor() as cur:
        cur.execute("SET session_replication_role = replica")  # no per-row FK checks: the data is consistent
        with cur.copy(f"COPY chunks_contentchunk ({', '.join(COPY_COLUMNS)}) FROM STDIN WITH (FORMAT BINARY)") as cp:
            cp.set_types(list(COPY_TYPES))
            for i, row in enumerate(rows()):
                cp.write_row(row)
                if i and i % 100_000 == 0:
                    log(f"  {i} rows, {ms_since(t0) / 1000:.0f} s")
        cur.execute("SET session_replication_role = origin")
    raw.commit() if not raw.autocommit else None
    return ms_since(t0)


# --------------------------------------------------------------------------- timing


def time_queries(queries: list[str], scope, workspace, *, warmup: int = 10) -> dict:
    model = active_model_name()
    t0 = time.perf_counter()
    vectors = {}
    for text in dict.fromkeys(queries):
        vectors[text], _ = query_vectors.get_or_embed(model, clean_query(text)[:MAX_EMBED_CHARS])
    embed_ms = ms_since(t0)
    options = RetrievalOptions()
    limit = settings.RETRIEVAL_TOP_K

    def run(label, fn):
        for text in queries[:warmup]:
            fn(text)
        times = []
        start = time.perf_counter()
        for text in queries:
            t = time.perf_counter()
            fn(text)
            times.append(ms_since(t))
        wall = (time.perf_counter() - start)
        return {**latency_summary(times), "qps": round(len(queries) / wall, 1)}

    out = {"queries": len(queries), "unique_queries": len(vectors),
           "embed_ms_per_query_untimed": round(embed_ms / max(1, len(vectors)), 1)}
    out["retrieve_context"] = run("retrieve_context", lambda q: retrieve_context(
        q, workspace, user=None, options=options, scope=scope))
    out["hybrid_search"] = run("hybrid", lambda q: hybrid_search(
        keyword_terms(analyse_query(q)), scope, options, limit=limit, qvec=vectors[q], mode="hybrid"))
    out["vector_only"] = run("vector", lambda q: hybrid_search(
        keyword_terms(analyse_query(q)), scope, options, limit=limit, qvec=vectors[q], mode="vector"))
    out["keyword_only"] = run("keyword", lambda q: hybrid_search(
        keyword_terms(analyse_query(q)), scope, options, limit=limit, qvec=vectors[q], mode="keyword"))
    return out


def corpus_size() -> dict:
    with connection.cursor() as cur:
        cur.execute("SELECT count(*), count(*) FILTER (WHERE workspace_id IS NOT NULL), "
                    "count(*) FILTER (WHERE embedding IS NOT NULL) FROM chunks_contentchunk")
        total, ws, embedded = cur.fetchone()
    return {"chunks": total, "workspace_chunks": ws, "embedded": embedded}


class Command(BaseCommand):
    help = "Latency/throughput of the retrieval SQL (embedding excluded), on the loaded or a synthetic corpus."

    def add_arguments(self, parser):
        parser.add_argument("--chunks", type=int, default=0,
                            help="build/reuse a synthetic corpus of N chunks in --db and time that")
        parser.add_argument("--db", default="lagrum_bench", help="database for the synthetic corpus")
        parser.add_argument("--queries", type=int, default=200)
        parser.add_argument("--build-only", action="store_true")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args, **opts):
        log = (lambda msg: None) if opts["json"] else self.stdout.write
        progress = lambda msg: self.stderr.write(msg)  # noqa: E731
        queries = build_queries(opts["queries"])
        report = {"machine": machine_info(), "target": "synthetic" if opts["chunks"] else "loaded"}
        if not opts["chunks"]:
            user, workspace = eval_user_and_workspace()
            scope = AccessScope(workspace_id=workspace.pk, user_id=user.pk, role="owner")
            report["corpus"] = corpus_size()
            if not report["corpus"]["embedded"]:
                warn("no embedded chunks: the vector half finds nothing")
            report.update(time_queries(queries, scope, workspace))
        else:
            if opts["chunks"] < 1000:
                raise CommandError("--chunks must be at least 1000")
            report["build"] = build_synthetic(opts["chunks"], opts["db"], progress)
            if not opts["build_only"]:
                with use_database(opts["db"]):
                    report["corpus"] = corpus_size()
                    ws_id, user_id = report["build"]["bench_workspace_id"], report["build"]["bench_user_id"]
                    scope = AccessScope(workspace_id=ws_id, user_id=user_id, role="owner")
                    report.update(time_queries(queries, scope, Workspace(pk=ws_id)))
                    query_vectors.clear()
        report["machine_after"] = machine_info()
        if opts["json"]:
            write_json(self.stdout, report)
        else:
            self._print(report, log)

    def _print(self, report: dict, log) -> None:
        log(f"corpus: {report.get('corpus')}")
        if "build" in report:
            log(f"build: {report['build']}")
        for key in ("retrieve_context", "hybrid_search", "vector_only", "keyword_only"):
            if key in report:
                f = report[key]
                log(f"{key:<17} p50 {f['p50_ms']:>8.1f} ms  p95 {f['p95_ms']:>8.1f} ms  p99 {f['p99_ms']:>8.1f} ms"
                    f"  {f['qps']:>7.1f} q/s")
        log(f"machine: {report['machine']} -> {report['machine_after']}")
