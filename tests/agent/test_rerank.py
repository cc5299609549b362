"""The HTTP reranker: a local stand-in for a Cohere/Jina/TEI-style /rerank service (which we cannot reach)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.contrib.auth.models import User
from pytest_django import Settings

from agent.retrieval.hybrid import RetrievalOptions, retrieve_context
from compliance.models import LegalDocument, Workspace
from tests.helpers import alice_owning_a_workspace

pytestmark = pytest.mark.django_db


class RerankServer:
    """Scores documents by how often they contain `word` (Cohere's response shape), or fails."""

    def __init__(self, word: str, fail: bool = False) -> None:
        self.word, self.fail, self.requests = word, fail, []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append({"body": body, "auth": self.headers.get("Authorization")})
                if server.fail:
                    self.send_response(503)
                    self.end_headers()
                    return
                results = [{"index": i, "relevance_score": doc.lower().count(server.word)}
                           for i, doc in enumerate(body["documents"])]
                payload = json.dumps({"results": sorted(results, key=lambda r: -r["relevance_score"])}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/rerank"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def alice_ws(loaded: list[LegalDocument]) -> tuple[User, Workspace]:
    return alice_owning_a_workspace()


QUESTION = "Vilka skyldigheter har arbetsgivaren när det gäller arbetsmiljön?"


def test_http_reranker_reorders_the_fused_candidates(alice_ws: tuple[User, Workspace], settings: Settings) -> None:
    alice, ws = alice_ws
    plain = retrieve_context(QUESTION, ws, user=alice, options=RetrievalOptions(use_references=False))
    server = RerankServer("skyddsombud")
    try:
        settings.RERANK_BACKEND, settings.RERANK_URL, settings.RERANK_API_KEY = "http", server.url, "nyckel"
        reranked = retrieve_context(QUESTION, ws, user=alice, options=RetrievalOptions(use_references=False))
    finally:
        server.close()
    sent = server.requests[0]
    assert sent["auth"] == "Bearer nyckel" and sent["body"]["query"] == QUESTION
    assert len(sent["body"]["documents"]) > len(plain.chunks)  # the wider candidate pool is reranked
    scores = [c.text.lower().count("skyddsombud") + c.header.lower().count("skyddsombud") for c in reranked.chunks]
    assert scores == sorted(scores, reverse=True) and scores[0] > 0
    assert "rerank" in reranked.timings_ms and not reranked.notice


def test_a_failing_reranker_keeps_the_fused_order(alice_ws: tuple[User, Workspace], settings: Settings) -> None:
    alice, ws = alice_ws
    # The same candidate pool as the reranking search fetches (RERANK_CANDIDATES), unreranked.
    plain = retrieve_context(QUESTION, ws, user=alice,
                             options=RetrievalOptions(use_references=False, top_k=settings.RERANK_CANDIDATES))
    server = RerankServer("skyddsombud", fail=True)
    try:
        settings.RERANK_BACKEND, settings.RERANK_URL = "http", server.url
        result = retrieve_context(QUESTION, ws, user=alice, options=RetrievalOptions(use_references=False))
    finally:
        server.close()
    assert server.requests and "Omrankningen misslyckades" in result.notice
    assert [c.chunk_id for c in result.chunks] == [c.chunk_id for c in plain.chunks[:20]]


def test_the_reranker_gets_rerank_candidates_sources(alice_ws: tuple[User, Workspace], settings: Settings) -> None:
    """It can only promote what it is given: RERANK_CANDIDATES sets the pool, not top_k."""
    alice, ws = alice_ws
    sent = []
    for pool in (20, 60):
        server = RerankServer("skyddsombud")
        try:
            settings.RERANK_BACKEND, settings.RERANK_URL, settings.RERANK_CANDIDATES = "http", server.url, pool
            retrieve_context(QUESTION, ws, user=alice,
                             options=RetrievalOptions(use_references=False, top_k=5, min_relevance=0))
        finally:
            server.close()
        sent.append(len(server.requests[0]["body"]["documents"]))
    assert sent[0] <= 20 + 10 < sent[1] <= 60 + 10
