"""The vector graph (HNSW) around bulk loads: built once at the end of a large load, kept for a small one, built
again however a load ends, and repaired when a load died with it dropped (chunks/vector_index.py)."""

from __future__ import annotations

import gzip
import io
import json
import threading
import time
from pathlib import Path

import psycopg
import pytest
from django.core.management import call_command
from django.db import connection
from pytest_django import Settings

from chunks.models import ContentChunk
from chunks.tasks import vector_index_repair
from chunks.vector_index import (
    GRAPH_ABSENT_LOCK,
    VECTOR_INDEX_NAME,
    VectorIndexPlan,
    VectorIndexRebuild,
    vector_index_drop,
    vector_index_plan,
    vector_index_rebuilt_after,
    vector_index_status,
)
from compliance.sql import dict_cursor
from tests.helpers import run_at_once
from tests.law.test_load_regulations import shipped_record

# As the loaders run: each document commits on its own, and the graph is dropped and built concurrently. (Inside
# a transaction a load keeps the graph: test_a_load_inside_a_transaction_keeps_the_graph.)
pytestmark = pytest.mark.django_db(transaction=True)

LARGE_SFS = "1977:1160"  # arbetsmiljölagen: about 60,000 characters
SMALL_SFS = "1989:253"  # lagen om allmänna helgdagar: about 1,000 characters


def load_sfs(*args: str) -> tuple[dict, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("load_sfs", *args, "--sync", "--json", "--no-progress", stdout=out, stderr=err)
    return json.loads(out.getvalue()), err.getvalue()


def graph_oid() -> int | None:
    with dict_cursor() as cursor:
        cursor.execute("SELECT to_regclass(%s)::oid AS oid", [VECTOR_INDEX_NAME])
        return cursor.fetchone()["oid"]


def model_graph() -> tuple[int, int]:
    index = next(i for i in ContentChunk._meta.indexes if i.name == VECTOR_INDEX_NAME)
    return index.m, index.ef_construction


def assert_graph_as_the_model_defines_it() -> None:
    status = vector_index_status()
    assert status.usable
    assert (status.m, status.ef_construction) == model_graph()


def test_a_load_into_an_empty_graph_builds_it_once_at_the_end(clean_queue: None) -> None:
    before = graph_oid()

    report, err = load_sfs("--only", LARGE_SFS)

    assert report["changed"] == 1
    assert report["vector_index"]["rebuilt"] is True and report["vector_index"]["reason"] == "bulk"
    assert report["vector_index"]["build_seconds"] >= 0
    assert "Vektorindexet byggs om" in err and "Vektorindexet byggt" in err
    assert graph_oid() not in (None, before)  # a new graph, not the one the migration made
    assert_graph_as_the_model_defines_it()
    assert ContentChunk.objects.filter(embedding__isnull=False).count() > 50  # shipped vectors, in the new graph


def test_a_small_load_against_a_large_graph_inserts_into_it(clean_queue: None) -> None:
    load_sfs("--only", LARGE_SFS)
    before = graph_oid()

    report, err = load_sfs("--only", SMALL_SFS)

    assert report["changed"] == 1
    assert report["vector_index"] == {"rebuilt": False, "reason": "small", "build_seconds": None}
    assert err == ""
    assert graph_oid() == before
    assert ContentChunk.objects.filter(legal_document__sfs_number=SMALL_SFS, embedding__isnull=False).exists()


def test_the_share_that_makes_a_load_large_is_a_setting(clean_queue: None, settings: Settings) -> None:
    load_sfs("--only", SMALL_SFS)
    settings.VECTOR_INDEX_REBUILD_SHARE = 1000.0  # the large statute is some 60 times the small one, not 1000

    report, _ = load_sfs("--only", LARGE_SFS)

    assert report["vector_index"]["reason"] == "small"


def test_keep_vector_index_keeps_the_graph_even_for_a_large_load(clean_queue: None) -> None:
    load_sfs("--only", SMALL_SFS)
    before = graph_oid()

    report, _ = load_sfs("--only", LARGE_SFS, "--keep-vector-index")

    assert report["vector_index"] == {"rebuilt": False, "reason": "kept", "build_seconds": None}
    assert graph_oid() == before


def test_a_load_with_nothing_new_leaves_the_graph_alone(clean_queue: None) -> None:
    load_sfs("--only", LARGE_SFS)
    before = graph_oid()

    report, _ = load_sfs("--only", LARGE_SFS)

    assert report["changed"] == 0
    assert report["vector_index"] == {"rebuilt": False, "reason": "nothing", "build_seconds": None}
    assert graph_oid() == before


def test_a_load_builds_a_missing_graph_even_with_nothing_to_load(clean_queue: None) -> None:
    load_sfs("--only", SMALL_SFS)
    vector_index_drop()
    assert not vector_index_status().exists

    report, err = load_sfs("--only", SMALL_SFS)

    assert report["changed"] == 0
    assert report["vector_index"]["reason"] == "missing" and report["vector_index"]["rebuilt"] is True
    assert "Vektorindexet saknas" in err
    assert_graph_as_the_model_defines_it()


def test_load_regulations_builds_the_graph_once_too(clean_queue: None, tmp_path: Path) -> None:
    one = tmp_path / "one.jsonl.gz"
    with gzip.open(one, "wt", encoding="utf-8") as fh:
        fh.write(json.dumps(shipped_record("MSBFS 2020:5"), ensure_ascii=False) + "\n")
    before = graph_oid()
    err = io.StringIO()

    call_command("load_regulations", "--file", str(one), "--sync", "--no-progress", stdout=io.StringIO(), stderr=err)

    assert "Vektorindexet byggs om" in err.getvalue() and "Vektorindexet byggt" in err.getvalue()
    assert graph_oid() not in (None, before)
    assert_graph_as_the_model_defines_it()
    assert ContentChunk.objects.filter(legal_document__sfs_number="MSBFS 2020:5", embedding__isnull=False).exists()


@pytest.mark.django_db
def test_a_load_inside_a_transaction_keeps_the_graph(clean_queue: None) -> None:
    assert connection.in_atomic_block
    before = graph_oid()

    report, err = load_sfs("--only", LARGE_SFS)

    assert report["changed"] == 1
    assert report["vector_index"] == {"rebuilt": False, "reason": "kept", "build_seconds": None}
    assert graph_oid() == before


def test_the_graph_is_built_again_when_the_load_fails_half_way() -> None:
    plan = vector_index_plan(pending_chars=1_000_000)
    assert plan.rebuild  # nothing is indexed: any load is large

    with pytest.raises(RuntimeError), vector_index_rebuilt_after(plan):
        assert not vector_index_status().exists
        raise RuntimeError("the load fails")

    assert_graph_as_the_model_defines_it()


def test_no_rebuild_plan_leaves_the_graph_alone() -> None:
    before = graph_oid()
    plan = VectorIndexPlan(rebuild=False, reason="small", pending_chars=10, indexed_chars=10_000)

    with vector_index_rebuilt_after(plan) as outcome:
        assert graph_oid() == before

    assert outcome.build_seconds is None and graph_oid() == before


def test_repair_builds_a_missing_graph_unless_a_load_holds_it_dropped() -> None:
    vector_index_drop()
    db = connection.settings_dict
    # A load elsewhere holds the graph dropped: its session has the advisory lock.
    with psycopg.connect(host=db["HOST"], port=db["PORT"], user=db["USER"], password=db["PASSWORD"],
                         dbname=db["NAME"], autocommit=True) as other:
        other.execute("SELECT pg_advisory_lock(%s)", [GRAPH_ABSENT_LOCK])
        assert vector_index_repair() is None
        assert not vector_index_status().exists
        other.execute("SELECT pg_advisory_unlock(%s)", [GRAPH_ABSENT_LOCK])

    assert vector_index_repair() is not None
    assert_graph_as_the_model_defines_it()
    assert vector_index_repair() is None  # nothing left to do


def test_two_bulk_loads_at_once_take_turns_without_a_deadlock() -> None:
    """The second load waits for the first to build its graph, then plans against that graph. While it waits
    it must hold no snapshot: the first load's concurrent build waits for every older snapshot, and a
    blocking lock call would have made the two wait on each other until Postgres aborted the build."""
    vector_index_drop()
    missing = vector_index_plan(pending_chars=1_000)
    assert missing.reason == "missing"
    first_in = threading.Event()
    second_pid: list[int] = []
    outcomes: dict[str, VectorIndexRebuild] = {}

    def second_has_asked_for_the_lock() -> bool:
        with dict_cursor() as cursor:
            cursor.execute("SELECT count(*) AS n FROM pg_stat_activity WHERE pid = %s AND query LIKE %s",
                           [second_pid[0] if second_pid else 0, "%advisory%lock%"])
            return cursor.fetchone()["n"] > 0

    def first() -> None:
        with vector_index_rebuilt_after(missing) as outcome:
            first_in.set()
            for _ in range(600):  # until the second load has asked for the lock (a bound, not a measure)
                if second_has_asked_for_the_lock():
                    break
                time.sleep(0.05)
            assert second_has_asked_for_the_lock()
            assert not vector_index_status().exists
        outcomes["first"] = outcome

    def second() -> None:
        first_in.wait(60)
        with dict_cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid() AS pid")
            second_pid.append(cursor.fetchone()["pid"])
        with vector_index_rebuilt_after(missing) as outcome:
            # Its turn comes once the first load has built the graph.
            assert "first" in outcomes
        outcomes["second"] = outcome

    assert run_at_once(first, second) == []
    assert outcomes["first"].build_seconds is not None
    # Planned again under the lock: the graph it found missing is there now.
    assert outcomes["second"].plan.reason != "missing"
    assert_graph_as_the_model_defines_it()
