"""Optional reranking of the fused candidates through an HTTP /rerank API.

`none` (the default) keeps the fused order. `http` posts to a Cohere/Jina/TEI
style endpoint. A failing reranker never fails retrieval: the fused order stands.
"""

from __future__ import annotations

import json
import logging
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.conf import settings

from .sources import RetrievedChunk

if TYPE_CHECKING:  # hybrid imports this module
    from .hybrid import RetrievalOptions

log = logging.getLogger(__name__)
TIMEOUT_SECONDS = 5.0


def enabled(options: RetrievalOptions) -> bool:
    return settings.RERANK_BACKEND == "http" and getattr(options, "rerank", True)


def _scores(payload: dict | list) -> dict[int, float]:
    # Cohere/Jina: {"results": [{"index", "relevance_score"}]}; TEI: [{"index", "score"}]
    items = payload.get("results", payload.get("data", [])) if isinstance(payload, dict) else payload
    scores = {}
    for item in items or []:
        score = item.get("relevance_score", item.get("score"))
        if isinstance(item.get("index"), int) and isinstance(score, (int, float)):
            scores[item["index"]] = float(score)
    return scores


@dataclass(frozen=True)
class Reranked:
    chunks: list[RetrievedChunk]  # in the reranker's order, or the fused order when it failed
    error: str = ""  # why the fused order stands ("" when the reranker answered)


def rerank(query: str, chunks: list[RetrievedChunk], *, keep_first: int = 0) -> Reranked:
    """The chunks in the reranker's order; the first `keep_first` (exact citations) keep their place."""
    head, tail = chunks[:keep_first], chunks[keep_first:]
    if not tail:
        return Reranked(chunks)
    body = {"query": query, "documents": [f"{c.header}\n{c.text}" for c in tail], "texts": None,
            "top_n": len(tail), "return_documents": False}
    body["texts"] = body["documents"]  # TEI names the field "texts"
    if settings.RERANK_MODEL:
        body["model"] = settings.RERANK_MODEL
    headers = {"Authorization": f"Bearer {settings.RERANK_API_KEY}"} if settings.RERANK_API_KEY else {}
    request = urllib.request.Request(settings.RERANK_URL, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", **headers})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:
            scores = _scores(json.loads(response.read()))
    except (urllib.error.URLError, OSError, ValueError) as exc:
        log.warning("reranker failed, keeping fused order: %s", exc)
        return Reranked(chunks, error=str(exc))
    if not scores:
        return Reranked(chunks, error="empty rerank response")
    order = sorted(range(len(tail)), key=lambda i: (-scores.get(i, float("-inf")), i))
    for i in order:
        tail[i].extra["rerank_score"] = scores.get(i)
    return Reranked(head + [tail[i] for i in order])
