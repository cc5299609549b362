"""bench_retrieval: the path classification, the query mix and the HNSW recall, on arbetsmiljölagen and LAS
(figures are not asserted, only their shape and bounds)."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator

import numpy as np
import pytest
from django.core.management import call_command
from django.db import connection, transaction
from pytest_django import Settings

from agent.management.commands.bench_retrieval import build_queries, hnsw_recall, query_path, strip_statute_names
from agent.retrieval.chunk_queries import set_vector_search
from chunks.models import ContentChunk
from compliance.models import LegalDocument
from compliance.selectors import AccessScope
from law.statute_directory import StatuteDirectory, statute_directory, statute_directory_invalidate

pytestmark = pytest.mark.django_db


@pytest.fixture
def directory(loaded: list[LegalDocument]) -> Iterator[StatuteDirectory]:
    statute_directory_invalidate()
    yield statute_directory()
    statute_directory_invalidate()


def test_a_question_takes_the_statute_path_only_when_it_names_or_cites_a_statute(directory: StatuteDirectory) -> None:
    assert query_path("Vad säger 3 kap. 2 a § arbetsmiljölagen?", directory) == "statute"
    assert query_path("Hur räknas anställningstid enligt LAS?", directory) == "statute"
    assert query_path("Hur räknas anställningstiden vid turordning?", directory) == "general"
    assert query_path("skyddsombud", directory) == "general"


def test_stripping_the_statute_name_makes_a_question_general(directory: StatuteDirectory) -> None:
    question = "Hur utses skyddsombud enligt Arbetsmiljölag (1977:1160)?"
    stripped = strip_statute_names(question, directory)
    assert "1977:1160" not in stripped and "skyddsombud" in stripped
    assert query_path(stripped, directory) == "general"


def test_the_query_mix_is_at_least_half_general(directory: StatuteDirectory) -> None:
    queries = build_queries(40, directory)
    assert len(queries) == 40
    paths = [query_path(q, directory) for q in dict.fromkeys(queries)]
    assert paths.count("general") >= len(paths) / 2
    assert "statute" in paths


def _chunk_vectors(n: int) -> list[np.ndarray]:
    rows = ContentChunk.objects.filter(embedding__isnull=False, retrievable=True).order_by("id")
    return [np.asarray(v, dtype=np.float32) for v in rows.values_list("embedding", flat=True)[:n]]


def test_hnsw_recall_is_complete_on_a_tiny_corpus_with_a_wide_search(loaded: list[LegalDocument]) -> None:
    scope = AccessScope(workspace_id=0, user_id=0, role="owner")
    vectors = _chunk_vectors(4)
    wide = hnsw_recall(vectors, scope, ef_search=1000)
    assert wide["queries"] == 4 and wide["k"] == 20
    assert wide["mean_recall"] == wide["min_recall"] == 1.0
    production = hnsw_recall(vectors, scope)
    assert 0.0 <= production["min_recall"] <= production["mean_recall"] <= 1.0
    assert production["exact_scan_ms"]["n"] == 4 and production["hnsw_ms"]["n"] == 4


def test_bench_retrieval_reports_each_path_and_the_recall(loaded: list[LegalDocument]) -> None:
    out = io.StringIO()
    call_command("bench_retrieval", "--queries", "12", "--recall-queries", "3", "--json", stdout=out,
                 stderr=io.StringIO())
    report = json.loads(out.getvalue())
    assert report["target"] == "loaded" and report["queries"] == 12
    paths = report["paths"]
    assert paths["general"]["queries"] >= 6 and paths["statute"]["queries"] >= 1
    assert paths["general"]["queries"] + paths["statute"]["queries"] == 12
    for figures in paths.values():
        for key in ("retrieve_context", "hybrid_search", "vector_only", "keyword_only"):
            assert {"p50_ms", "p95_ms", "p99_ms", "qps"} <= set(figures[key])
            assert figures[key]["n"] == figures["queries"]
    recall = report["hnsw_recall"]
    assert recall["queries"] == 3
    # The graph measured is the one the migrations built, with the model's build parameters.
    graph = next(index for index in ContentChunk._meta.indexes if index.name == "chunk_embedding_hnsw")
    assert report["corpus"]["hnsw_index"] == {"m": graph.m, "ef_construction": graph.ef_construction}
    assert 0.0 <= recall["mean_recall"] <= 1.0
    assert recall["exact_scan_ms"]["n"] == 3


def test_the_hnsw_candidate_list_follows_the_setting(loaded: list[LegalDocument], settings: Settings) -> None:
    settings.RETRIEVAL_HNSW_EF_SEARCH = 321
    with transaction.atomic(), connection.cursor() as cursor:
        set_vector_search(cursor)
        cursor.execute("SHOW hnsw.ef_search")
        assert cursor.fetchone()[0] == "321"
        set_vector_search(cursor, 40)  # the benchmark's explicit value wins
        cursor.execute("SHOW hnsw.ef_search")
        assert cursor.fetchone()[0] == "40"
    assert hnsw_recall(_chunk_vectors(1), AccessScope(workspace_id=0, user_id=0, role="owner"))["ef_search"] == 321
