"""The question vectors already embedded: an identical question is embedded once, by any worker.

retrieve_context (agent.retrieval.hybrid) asks `query_vectors` for a question's vector; the benchmarks clear it
to measure a cache miss.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from dataclasses import dataclass

import numpy as np
from cachetools import LRUCache
from django.conf import settings
from django.core.cache import caches

from chunks.embedding import get_provider

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class QueryVector:
    vector: np.ndarray
    cached: bool  # found in this process's or the shared cache, not embedded now


class QueryVectorCache:
    """An in-process LRU in front of Django's cache (Redis in production), so every
    gunicorn worker and thread reuses a vector any of them embedded.

    The shared entry is keyed by model name + SHA-256 of the exact text embedded and
    holds the vector as float32 bytes. The shared tier is an optimisation only: any
    error reading or writing it falls back to embedding (an unreachable Redis must
    never block an answer). QUERY_VECTOR_CACHE_TTL_SECONDS = 0 keeps vectors per process.
    """

    def __init__(self, size: int = 256, alias: str = "default", prefix: str = "qvec:") -> None:
        self._data: LRUCache = LRUCache(maxsize=size)
        self._lock = threading.Lock()
        self._alias, self._prefix = alias, prefix
        self._generation: int | None = None

    def get_or_embed(self, model: str, text: str) -> QueryVector:
        key = (model, text)
        with self._lock:
            found = self._data.get(key)
        if found is not None:
            return QueryVector(found, cached=True)
        vector = self._shared_get(model, text)
        cached = vector is not None
        if vector is None:
            vector = get_provider().embed_query(text)
            self._shared_set(model, text, vector)
        with self._lock:
            self._data[key] = vector
        return QueryVector(vector, cached=cached)

    def clear_local(self) -> None:
        """Forget this process's vectors only (as a freshly started worker would have none)."""
        with self._lock:
            self._data.clear()

    def clear(self) -> None:
        """Forget every vector, this process's and the shared ones (benchmarks measuring a miss)."""
        self.clear_local()
        generation = time.time_ns()
        self._generation = generation
        if self._ttl() > 0:
            try:
                # A new generation instead of cache.clear(): sessions and the rest share the cache.
                caches[self._alias].set(f"{self._prefix}generation", generation, timeout=None)
            except Exception as exc:  # noqa: BLE001 - see _shared_get
                log.warning("query vector cache unavailable: %s", exc)

    @staticmethod
    def _ttl() -> int:
        return settings.QUERY_VECTOR_CACHE_TTL_SECONDS

    def shared_key(self, model: str, text: str) -> str:
        """The shared cache's key for the vector of `text` embedded by `model`."""
        if self._generation is None:
            # Read once per process: a vector is the same in every generation, so a process that
            # missed another's clear() serves old vectors, never wrong ones.
            self._generation = caches[self._alias].get(f"{self._prefix}generation") or 0
        return f"{self._prefix}{self._generation}:{model}:{hashlib.sha256(text.encode()).hexdigest()}"

    def _shared_get(self, model: str, text: str) -> np.ndarray | None:
        if self._ttl() <= 0:
            return None
        try:
            raw = caches[self._alias].get(self.shared_key(model, text))
        except Exception as exc:  # noqa: BLE001 - whatever the backend raises, embedding still answers
            log.warning("query vector cache unavailable, embedding instead: %s", exc)
            return None
        if not isinstance(raw, bytes) or not raw or len(raw) % 4:
            return None
        return np.frombuffer(raw, dtype="<f4")

    def _shared_set(self, model: str, text: str, vector: np.ndarray) -> None:
        if self._ttl() <= 0:
            return
        try:
            caches[self._alias].set(self.shared_key(model, text), np.asarray(vector, dtype="<f4").tobytes(),
                                    timeout=self._ttl())
        except Exception as exc:  # noqa: BLE001 - see _shared_get
            log.warning("query vector cache unavailable: %s", exc)


query_vectors = QueryVectorCache()
