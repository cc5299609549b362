"""Retrieval cache: reuse ranked chunks for follow-ups on the same topic.

Key = (workspace id, access-scope key, knowledge_version, options fingerprint,
topic key, cited sections, profile fingerprint). Every part matters:

- workspace id + `AccessScope.key`: two users share an entry only if they would
  see exactly the same sources, so nothing leaks across workspaces or scopes.
  A scope widened to named workspaces has its own key, and those workspaces'
  knowledge_versions join the key (`extra_versions`).
- knowledge_version: the caller passes the workspace's counter, which is bumped
  whenever its documents change. That IS workspace invalidation: old entries are
  never read again and simply age out (TTL / LRU), so there is deliberately no
  `invalidate_workspace()` to call — and no way to forget calling it.
- options fingerprint: different top-k/weights/filters give different results.
- topic key: the query analysis's significant words, lower-cased,
  de-duplicated and sorted, so "Vad gäller för buller?" and a rephrased
  follow-up "buller, vad gäller?" hit the same entry.
- cited sections, in order, as the analysis resolved them: "3 kap. 2 §",
  "2 kap. 3 §" and "3 kap. 2 a §" share their words but are different questions.

Two backends share one tiny interface (get/set/clear): an in-process LRU with a
TTL, and Django's cache (Redis in production) for sharing across workers.
Values must be picklable (lists of RetrievedChunk are); both backends store a
pickled copy, so a caller mutating what it got back cannot corrupt the cache.
`get` returns None on a miss: a cached empty list is a hit, check `is None`.
"""

from __future__ import annotations

import hashlib
import json
import pickle
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, is_dataclass
from typing import Any, Protocol

from cachetools import TTLCache
from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.base import BaseCache

from compliance.selectors import AccessScope
from law.legal_refs import citation

from .query_analysis import QueryAnalysis


def options_fingerprint(options: Any) -> str:
    """A stable short hash of the retrieval options (dataclass, mapping or None)."""
    if options is None:
        data: Any = None
    elif is_dataclass(options) and not isinstance(options, type):
        data = asdict(options)
    elif isinstance(options, Mapping):
        data = dict(options)
    else:
        data = repr(options)
    raw = json.dumps(data, sort_keys=True, default=repr, ensure_ascii=False)
    return hashlib.sha256(raw.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class RetrievalCacheKey:
    workspace_id: int
    scope_key: str
    knowledge_version: int
    options_fingerprint: str
    topic_key: str
    references: tuple[str, ...] = ()
    # What the "Användarprofil" section says (agent.memory.profile.Memory.fingerprint): a changed or
    # deleted fact, or another user's preferences, never reuse an entry.
    profile_key: str = ""
    # (workspace id, knowledge_version) of each other workspace in the scope: their changes invalidate too.
    extra_versions: tuple[tuple[int, int], ...] = ()
    period: str = ""  # the question's date range: it picks a §'s temporal version

    def digest(self) -> str:
        # JSON of the full tuple: unambiguous separators, so distinct keys never hash alike.
        raw = json.dumps(
            [self.workspace_id, self.scope_key, self.knowledge_version, self.options_fingerprint, self.topic_key,
             list(self.references), self.profile_key, [list(v) for v in self.extra_versions], self.period],
            ensure_ascii=False,
        )
        return hashlib.sha256(raw.encode()).hexdigest()


def retrieval_cache_key(
    scope: AccessScope, knowledge_version: int, analysis: QueryAnalysis, options: Any = None, *,
    profile_key: str = "", extra_versions: tuple[tuple[int, int], ...] = (),
) -> RetrievalCacheKey:
    return RetrievalCacheKey(
        workspace_id=scope.workspace_id,
        scope_key=scope.key,
        knowledge_version=int(knowledge_version),
        options_fingerprint=options_fingerprint(options),
        # The restored words too: the same question typed with its marks is answered without "sökt som".
        topic_key=(analysis.topic_key or analysis.text) + "".join(f" {w}>{r}" for w, r in sorted(analysis.restored.items())),
        references=tuple(f"{ref.sfs or ref.statute_name or ''} {citation(ref)}".strip()
                         for ref in analysis.references if ref.chapter or ref.section),
        profile_key=profile_key,
        extra_versions=tuple(extra_versions),
        period=f"{analysis.dates.start.isoformat()}..{analysis.dates.end.isoformat()}" if analysis.dates else "",
    )


class RetrievalCache(Protocol):
    def get(self, key: RetrievalCacheKey) -> Any | None: ...

    def set(self, key: RetrievalCacheKey, value: Any) -> None: ...

    def clear(self) -> None: ...


class InMemoryRetrievalCache:
    """Thread-safe LRU with a TTL, per process (cachetools' TTLCache under a lock). ttl_ms <= 0 disables caching."""

    def __init__(self, max_size: int, ttl_ms: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.max_size = max(1, max_size)
        self.ttl_seconds = ttl_ms / 1000
        self._lock = threading.Lock()
        # The clock is injectable so that expiry is tested without waiting.
        self._entries: TTLCache = TTLCache(maxsize=self.max_size, ttl=max(self.ttl_seconds, 0.001), timer=clock)

    def get(self, key: RetrievalCacheKey) -> Any | None:
        with self._lock:
            payload = self._entries.get(key)  # counts as a use: least recently used entries go first
        return None if payload is None else pickle.loads(payload)

    def set(self, key: RetrievalCacheKey, value: Any) -> None:
        if value is None or self.ttl_seconds <= 0:
            return
        payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)  # outside the lock: may be slow
        with self._lock:
            self._entries[key] = payload

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)


class DjangoRetrievalCache:
    """Django's cache (Redis when configured), shared by all workers.

    Keys are `<prefix><generation>:<sha256 of the key tuple>`. `clear()` bumps the
    generation instead of calling cache.clear(), which would also wipe sessions
    and everything else sharing the cache; old entries expire by TTL.
    """

    def __init__(self, ttl_ms: int, alias: str = "default", prefix: str = "retrieval:") -> None:
        self.ttl_seconds = ttl_ms / 1000
        self.alias = alias
        self.prefix = prefix

    @property
    def _cache(self) -> BaseCache:
        return caches[self.alias]

    def _generation(self) -> int:
        gen_key = f"{self.prefix}generation"
        generation = self._cache.get(gen_key)
        if generation is None:
            # Time-based start: if the counter is ever evicted, a fresh one can
            # never coincide with an earlier generation and revive old entries.
            self._cache.add(gen_key, time.time_ns(), timeout=None)
            generation = self._cache.get(gen_key, time.time_ns())
        return int(generation)

    def _full_key(self, key: RetrievalCacheKey) -> str:
        return f"{self.prefix}{self._generation()}:{key.digest()}"

    def get(self, key: RetrievalCacheKey) -> Any | None:
        return self._cache.get(self._full_key(key))

    def set(self, key: RetrievalCacheKey, value: Any) -> None:
        if value is None or self.ttl_seconds <= 0:
            return
        self._cache.set(self._full_key(key), value, timeout=self.ttl_seconds)

    def clear(self) -> None:
        gen_key = f"{self.prefix}generation"
        try:
            self._cache.incr(gen_key)
        except ValueError:  # no counter yet: any fresh one is already a new generation
            self._cache.add(gen_key, time.time_ns(), timeout=None)


@dataclass(frozen=True)
class CacheConfig:
    """The settings a cache is built from: a change (tests) builds it again."""

    backend: str  # "memory" (per process) or "django" (CACHES, shared)
    size: int
    ttl_ms: int


_singleton: RetrievalCache | None = None
_singleton_config: CacheConfig | None = None
_singleton_lock = threading.Lock()


def _configured() -> CacheConfig:
    return CacheConfig(backend=settings.RETRIEVAL_CACHE_BACKEND, size=settings.RETRIEVAL_CACHE_SIZE,
                       ttl_ms=settings.RETRIEVAL_CACHE_TTL_MS)


def get_retrieval_cache() -> RetrievalCache:
    """The configured cache, one per process; rebuilt if the settings change (tests)."""
    global _singleton, _singleton_config
    config = _configured()
    with _singleton_lock:
        if _singleton is None or _singleton_config != config:
            _singleton = (DjangoRetrievalCache(config.ttl_ms) if config.backend == "django"
                          else InMemoryRetrievalCache(config.size, config.ttl_ms))
            _singleton_config = config
        return _singleton
