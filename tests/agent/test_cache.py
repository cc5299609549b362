"""Retrieval cache: keys, both backends, TTL and LRU. No DB."""

from __future__ import annotations

import threading
from dataclasses import dataclass

import pytest
from django.core.cache import caches
from pytest_django import Settings

from agent.retrieval.cache import (
    DjangoRetrievalCache,
    InMemoryRetrievalCache,
    RetrievalCache,
    RetrievalCacheKey,
    get_retrieval_cache,
    options_fingerprint,
    retrieval_cache_key,
)
from agent.retrieval.query_analysis import analyse_query
from agent.retrieval.sources import RetrievedChunk


@dataclass(frozen=True)
class Scope:
    """Duck-typed AccessScope: the cache only reads workspace_id and key."""

    workspace_id: int
    user_id: int = 1

    @property
    def key(self) -> str:
        return f"ws{self.workspace_id}"


@dataclass(frozen=True)
class OtherScope(Scope):
    @property
    def key(self) -> str:
        return f"ws{self.workspace_id}:restricted"


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def chunks(n: int = 2) -> list[RetrievedChunk]:
    return [
        RetrievedChunk(chunk_id=i, source_type="LEGAL_DOCUMENT", source_id=1, document_number="1977:1160",
                       document_title="Arbetsmiljölag", header=f"Arbetsmiljölag (1977:1160) > {i} §",
                       path=f"{i:04d}", ordinal=i, citation=f"{i} §", text=f"Text {i}.", token_count=3, score=0.5)
        for i in range(n)
    ]


def key(workspace: int = 1, version: int = 1, topic: str = "Vad gäller för buller på arbetsplatsen?",
        scope: Scope | None = None, options: dict | None = None) -> RetrievalCacheKey:
    return retrieval_cache_key(scope or Scope(workspace), version, analyse_query(topic), options)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def memory(clock: FakeClock) -> InMemoryRetrievalCache:
    return InMemoryRetrievalCache(max_size=20, ttl_ms=300_000, clock=clock)


@pytest.fixture
def django_cache(settings: Settings) -> DjangoRetrievalCache:
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache",
                                   "LOCATION": "retrieval-cache-test"}}
    cache = DjangoRetrievalCache(ttl_ms=300_000)
    cache.clear()
    return cache


# --------------------------------------------------------------------------- keys


def test_topic_key_is_order_and_filler_insensitive() -> None:
    assert key(topic="Vad gäller för buller på arbetsplatsen?") == key(topic="buller arbetsplatsen, vad gäller?")
    assert key(topic="buller") != key(topic="belysning")


def test_cited_sections_are_part_of_the_key_in_order() -> None:
    # Same words once sorted ("2 3 kap"), different sections: a follow-up must not get the previous section.
    questions = ["Vad säger 3 kap. 2 § arbetsmiljölagen?", "Vad säger 2 kap. 3 § arbetsmiljölagen?",
                 "Vad säger 3 kap. 2 a § arbetsmiljölagen?", "Vad säger 3 kap. 2 § och 4 kap. 1 § arbetsmiljölagen?",
                 "Vad säger 4 kap. 1 § och 3 kap. 2 § arbetsmiljölagen?"]
    assert len({key(topic=q).digest() for q in questions}) == len(questions)
    assert key(topic=questions[0]) == key(topic="Vad säger 3 kap. 2 § arbetsmiljölagen?")


def test_options_fingerprint_is_stable_and_sensitive() -> None:
    assert options_fingerprint({"top_k": 20, "w": 1.0}) == options_fingerprint({"w": 1.0, "top_k": 20})
    assert options_fingerprint({"top_k": 20}) != options_fingerprint({"top_k": 10})


def test_key_digest_differs_for_every_part() -> None:
    base = key()
    variants = [key(workspace=2), key(version=2), key(topic="belysning"), key(options={"top_k": 5}),
                key(scope=OtherScope(1))]
    digests = {base.digest(), *(v.digest() for v in variants)}
    assert len(digests) == 6


# --------------------------------------------------------------------------- shared behaviour


@pytest.fixture(params=["memory", "django"])
def any_cache(request: pytest.FixtureRequest, memory: InMemoryRetrievalCache,
              django_cache: DjangoRetrievalCache) -> RetrievalCache:
    return memory if request.param == "memory" else django_cache


def test_follow_up_on_same_topic_hits(any_cache: RetrievalCache) -> None:
    any_cache.set(key(topic="Vad gäller för buller på arbetsplatsen?"), chunks())
    hit = any_cache.get(key(topic="Och buller på arbetsplatsen, vad gäller där?"))
    assert hit == chunks()


def test_miss_across_workspaces_and_scopes(any_cache: RetrievalCache) -> None:
    any_cache.set(key(workspace=1), chunks())
    assert any_cache.get(key(workspace=2)) is None
    assert any_cache.get(key(scope=OtherScope(1))) is None
    assert any_cache.get(key(workspace=1)) == chunks()


def test_miss_after_knowledge_version_bump(any_cache: RetrievalCache) -> None:
    any_cache.set(key(version=7), chunks())
    assert any_cache.get(key(version=8)) is None


def test_empty_list_is_a_hit_and_values_are_copies(any_cache: RetrievalCache) -> None:
    any_cache.set(key(topic="tomt"), [])
    assert any_cache.get(key(topic="tomt")) == []
    any_cache.set(key(), chunks())
    got = any_cache.get(key())
    got[0].score = 99.0
    assert any_cache.get(key())[0].score == 0.5


def test_clear(any_cache: RetrievalCache) -> None:
    any_cache.set(key(), chunks())
    any_cache.clear()
    assert any_cache.get(key()) is None


# --------------------------------------------------------------------------- in-memory specifics


def test_ttl_expiry(memory: InMemoryRetrievalCache, clock: FakeClock) -> None:
    memory.set(key(), chunks())
    clock.now += 299.9
    assert memory.get(key()) is not None
    clock.now += 0.2
    assert memory.get(key()) is None
    assert len(memory) == 0


def test_lru_eviction_at_twenty(memory: InMemoryRetrievalCache) -> None:
    for i in range(20):
        memory.set(key(topic=f"ämne{i}"), chunks(1))
    assert memory.get(key(topic="ämne0")) is not None  # now most recently used
    memory.set(key(topic="ämne20"), chunks(1))
    assert len(memory) == 20
    assert memory.get(key(topic="ämne1")) is None  # the least recently used went
    assert memory.get(key(topic="ämne0")) is not None
    assert memory.get(key(topic="ämne20")) is not None


def test_zero_ttl_disables_caching(clock: FakeClock) -> None:
    cache = InMemoryRetrievalCache(max_size=20, ttl_ms=0, clock=clock)
    cache.set(key(), chunks())
    assert cache.get(key()) is None


def test_thread_safety(memory: InMemoryRetrievalCache) -> None:
    def worker(n: int) -> None:
        for i in range(200):
            memory.set(key(topic=f"t{n}-{i}"), chunks(1))
            memory.get(key(topic=f"t{n}-{i % 7}"))

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(memory) == 20


# --------------------------------------------------------------------------- configured singleton


def test_get_retrieval_cache_follows_settings(settings: Settings) -> None:
    settings.RETRIEVAL_CACHE_BACKEND = "memory"
    settings.RETRIEVAL_CACHE_SIZE = 20
    settings.RETRIEVAL_CACHE_TTL_MS = 300_000
    first = get_retrieval_cache()
    assert isinstance(first, InMemoryRetrievalCache) and first.max_size == 20
    assert get_retrieval_cache() is first
    settings.RETRIEVAL_CACHE_BACKEND = "django"
    assert isinstance(get_retrieval_cache(), DjangoRetrievalCache)


def test_django_backend_uses_sha256_keys(django_cache: DjangoRetrievalCache) -> None:
    django_cache.set(key(), chunks())
    full = django_cache._full_key(key())
    assert full.endswith(":" + key().digest()) and len(key().digest()) == 64
    assert caches["default"].get(full) == chunks()
