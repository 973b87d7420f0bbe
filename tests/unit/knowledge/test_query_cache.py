"""Question-vector caches without Redis: the in-process LRU, the layering, the outage rule."""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
import pytest

from frontdesk.guard.redis import RedisOutage
from frontdesk.knowledge.embedding.embedders import HashingEmbedder
from frontdesk.knowledge.search.query_cache import (
    CachedQueryEmbedder,
    InMemoryQueryCache,
    LayeredQueryCache,
    RedisQueryCache,
)
from frontdesk.knowledge.search.retriever import Retriever
from frontdesk.text.embedding import Matrix

pytestmark = pytest.mark.unit

MODEL = "hash:8"


def vec(*values: float) -> Matrix:
    return np.array(values, dtype=np.float32)


class CountingEmbedder(HashingEmbedder):
    def __init__(self) -> None:
        super().__init__(dim=8)
        self.calls = 0

    def embed_query(self, text: str) -> Matrix:
        self.calls += 1
        return super().embed_query(text)


class DownRedis:
    """A Redis client whose every call fails the way an unreachable server does."""

    def __init__(self) -> None:
        self.calls = 0

    def get(self, key: str) -> Any:
        self.calls += 1
        raise ConnectionError("Connection refused")

    def set(self, key: str, value: bytes, ex: int) -> Any:
        self.calls += 1
        raise ConnectionError("Connection refused")


def test_lru_hit_returns_the_stored_vector() -> None:
    # Must survive: a repeated question gets the very vector stored, per model.
    cache = InMemoryQueryCache(max_items=4)
    vector = vec(1, 0)
    cache.put(MODEL, "pricing?", vector)
    assert cache.get(MODEL, "pricing?") is vector
    assert cache.get("other:model", "pricing?") is None  # keys name the model
    assert cache.get(MODEL, "Pricing?") is None  # exact text, no normalisation


def test_lru_evicts_the_least_recently_used() -> None:
    # Must survive: the size bound, and a read counts as a use (hot questions stay).
    cache = InMemoryQueryCache(max_items=2)
    cache.put(MODEL, "a", vec(1))
    cache.put(MODEL, "b", vec(2))
    assert cache.get(MODEL, "a") is not None  # "a" is now the most recent
    cache.put(MODEL, "c", vec(3))
    assert len(cache) == 2
    assert cache.get(MODEL, "b") is None
    assert cache.get(MODEL, "a") is not None and cache.get(MODEL, "c") is not None


def test_layered_reads_near_first_and_keeps_far_hits() -> None:
    # Must survive: the order this process → Redis, and a Redis hit kept in-process.
    near, far = InMemoryQueryCache(), InMemoryQueryCache()
    cache = LayeredQueryCache(near, far)
    far.put(MODEL, "shared", vec(1, 2))
    assert np.array_equal(cache.get(MODEL, "shared"), vec(1, 2))
    assert near.get(MODEL, "shared") is not None
    cache.put(MODEL, "new", vec(3))
    assert near.get(MODEL, "new") is not None and far.get(MODEL, "new") is not None
    assert cache.get(MODEL, "unknown") is None


def test_retriever_embeds_a_repeated_question_once() -> None:
    # Must survive: the hot path — the second identical question never reaches the model.
    embedder = CountingEmbedder()
    retriever = Retriever(index=None, embedder=embedder)  # type: ignore[arg-type]
    first = retriever.embed_query("How much does it cost?")
    second = retriever.embed_query("How much does it cost?")
    assert embedder.calls == 1 and second is first
    retriever.embed_query("Do you support SSO?")
    assert embedder.calls == 2


def test_a_question_the_search_embedded_is_not_embedded_again() -> None:
    # Must survive: the turn's other readings of the question (its fact kind, a team
    # answer) share the search's vector, which is the one the model would give them.
    embedder, cache = CountingEmbedder(), InMemoryQueryCache()
    retriever = Retriever(index=None, embedder=embedder, query_cache=cache)  # type: ignore[arg-type]
    searched = retriever.embed_query("When are you open on Saturday?")
    reader = CachedQueryEmbedder(embedder, cache)
    assert reader.name == embedder.name
    assert reader.embed_query("When are you open on Saturday?") is searched
    assert embedder.calls == 1
    fresh = reader.embed_query("Where are you?")
    assert embedder.calls == 2
    np.testing.assert_array_equal(fresh, HashingEmbedder(dim=8).embed_query("Where are you?"))
    assert retriever.embed_query("Where are you?") is fresh and embedder.calls == 2


def test_a_shouted_question_is_embedded_as_written() -> None:
    # The search keeps a shouted question's vector in lower case: not the vector of the
    # text as written, so it is neither read nor kept.
    embedder, cache = CountingEmbedder(), InMemoryQueryCache()
    retriever = Retriever(index=None, embedder=embedder, query_cache=cache)  # type: ignore[arg-type]
    shouted = "WHEN ARE YOU OPEN ON SATURDAY?"
    retriever.embed_query(shouted)
    as_written = CachedQueryEmbedder(embedder, cache).embed_query(shouted)
    assert embedder.calls == 2
    np.testing.assert_array_equal(as_written, HashingEmbedder(dim=8).embed_query(shouted))
    assert cache.get(embedder.name, shouted) is not as_written


def test_redis_failure_is_a_miss_with_one_warning_per_outage(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # Must survive: Redis down never raises, warns once per pause (not per question),
    # and is not retried until the pause is over.
    now = [100.0]
    client = DownRedis()
    outage = RedisOutage("query embedding cache", pause_s=30, clock=lambda: now[0])
    cache = RedisQueryCache(client, "t:", outage=outage)
    with caplog.at_level(logging.WARNING, logger="frontdesk.guard.redis"):
        assert cache.get(MODEL, "q1") is None
        cache.put(MODEL, "q1", vec(1))
        assert cache.get(MODEL, "q2") is None
        assert client.calls == 1  # the pause skips Redis after the first failure
        now[0] += 31
        assert cache.get(MODEL, "q3") is None
    assert client.calls == 2
    warnings = [r for r in caplog.records if "Redis unavailable" in r.getMessage()]
    assert len(warnings) == 2  # one per pause window
