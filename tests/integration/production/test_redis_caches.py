"""Redis caches shared by replicas: question embeddings and visitor enrichment.

Each "replica" here is its own cache object with its own Redis connection, like two API
processes; a closed port stands in for Redis being down.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sqlalchemy import Engine

from frontdesk.conversation.payload import VisitorContext
from frontdesk.enrichment import Enricher, RedisEnrichmentCache, TtlCache
from frontdesk.guard.redis import redis_client, redis_sync_client
from frontdesk.knowledge.embedding.embedders import DEFAULT_EMBEDDING, make_embedder
from frontdesk.knowledge.index.sqlite import SqliteKnowledgeIndex
from frontdesk.knowledge.models import Document
from frontdesk.knowledge.search.query_cache import (
    InMemoryQueryCache,
    LayeredQueryCache,
    RedisQueryCache,
)
from frontdesk.knowledge.search.retriever import Retriever
from frontdesk.knowledge.service import KnowledgeBase
from frontdesk.knowledge.site import SiteKnowledge, second_model
from frontdesk.runtime import Runtime
from frontdesk.settings import get_settings
from frontdesk.sites.knowledge import KnowledgeConfig
from frontdesk.sites.schema import SiteConfig
from frontdesk.store.db import make_engine
from frontdesk.store.migrate import upgrade
from frontdesk.text.embedding import Embedder, Matrix
from tests.support.loopback import HttpReceiver
from tests.support.ports import free_port

pytestmark = [pytest.mark.redis, pytest.mark.integration]
REDIS_URL = "redis://127.0.0.1:6379/0"
QUESTION = "How long does a refund take?"
SITE = SiteKnowledge(
    "acme", KnowledgeConfig(embedding=DEFAULT_EMBEDDING, relevance_threshold=0.0, top_k=3)
)


class CountingEmbedder:
    """The real MiniLM, counting the questions it is asked to embed."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.calls = 0

    @property
    def name(self) -> str:
        return self.inner.name

    def embed_documents(self, texts: Any) -> Matrix:
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> Matrix:
        self.calls += 1
        return self.inner.embed_query(text)


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    """A SQLite knowledge index with three real MiniLM-embedded documents."""
    engine = make_engine(f"sqlite:///{tmp_path / 'knowledge.db'}")
    upgrade(engine)
    KnowledgeBase(engine, query_cache=InMemoryQueryCache()).ingest_documents(
        SITE,
        [
            Document("refunds.md", "Refunds", "Refunds are paid within 14 days.", "markdown", "t"),
            Document("sso.md", "SSO", "We support SAML single sign-on.", "markdown", "t"),
            Document("uptime.md", "Uptime", "Our uptime SLA is 99.9 percent.", "markdown", "t"),
        ],
        progress=False,
    )
    yield engine
    engine.dispose()


@pytest.fixture
def sync_clients() -> Iterator[list[Any]]:
    clients: list[Any] = []
    yield clients
    for client in clients:
        client.close()


def replica(engine: Engine, cache: Any) -> tuple[Retriever, CountingEmbedder]:
    embedder = CountingEmbedder(make_embedder(DEFAULT_EMBEDDING))
    retriever = Retriever(SqliteKnowledgeIndex(engine), embedder, query_cache=cache)
    return retriever, embedder


def redis_layer(client: Any, prefix: str, ttl_s: int = 3600) -> LayeredQueryCache:
    return LayeredQueryCache(InMemoryQueryCache(), RedisQueryCache(client, prefix, ttl_s=ttl_s))


def test_second_replica_reuses_the_question_vector_from_redis(
    engine: Engine, redis_prefix: str, sync_clients: list[Any]
) -> None:
    # Must survive: replica B never runs the model for a question replica A embedded,
    # gets the same vector bit for bit, hence the same answer; the key expires.
    a_client, b_client = redis_sync_client(REDIS_URL), redis_sync_client(REDIS_URL)
    sync_clients += [a_client, b_client]
    a, a_embedder = replica(engine, redis_layer(a_client, redis_prefix))
    b, b_embedder = replica(engine, redis_layer(b_client, redis_prefix))
    options = SITE.search_options()

    first = a.search("acme", QUESTION, options)
    assert a_embedder.calls == 1 and first.chunks[0].doc_id == "refunds.md"
    second = b.search("acme", QUESTION, options)
    assert b_embedder.calls == 0
    assert second == first

    key = RedisQueryCache(b_client, redis_prefix).key(DEFAULT_EMBEDDING, QUESTION)
    stored = np.frombuffer(b_client.get(key), dtype="<f4")
    assert np.array_equal(stored, a_embedder.inner.embed_query(QUESTION))
    assert 0 < b_client.ttl(key) <= 3600
    b.search("acme", QUESTION, options)  # now from B's own process cache
    assert b_embedder.calls == 0


def test_knowledge_base_takes_the_redis_cache_from_the_settings(
    engine: Engine, redis_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Must survive: FRONTDESK_REDIS_URL alone turns the shared cache on for the
    # KnowledgeBase ChatService builds (no argument), with FRONTDESK_QUERY_CACHE_TTL_S.
    monkeypatch.setenv("FRONTDESK_REDIS_URL", REDIS_URL)
    monkeypatch.setenv("FRONTDESK_REDIS_PREFIX", redis_prefix)
    monkeypatch.setenv("FRONTDESK_QUERY_CACHE_TTL_S", "600")
    get_settings.cache_clear()
    kb = KnowledgeBase(engine)
    assert kb.search(SITE, QUESTION).chunks[0].doc_id == "refunds.md"
    client = redis_sync_client(REDIS_URL)
    try:
        keys = sorted(k.decode() for k in client.scan_iter(f"{redis_prefix}qvec:*"))
        # An English site's second model (MiniLM) shares its question vectors too.
        models = [DEFAULT_EMBEDDING, second_model(SITE.config)]
        cache = RedisQueryCache(client, redis_prefix)
        assert keys == sorted(cache.key(str(model), QUESTION) for model in models)
        assert all(0 < client.ttl(key) <= 600 for key in keys)
    finally:
        client.close()


def test_redis_down_still_searches_and_warns_once(
    engine: Engine, sync_clients: list[Any], caplog: pytest.LogCaptureFixture
) -> None:
    # Must survive: an unreachable Redis never fails or changes a search; the model
    # embeds instead, and the operator sees one warning, not one per question.
    down = redis_sync_client(f"redis://127.0.0.1:{free_port()}/0")
    sync_clients.append(down)
    plain, _ = replica(engine, InMemoryQueryCache())
    degraded, embedder = replica(engine, redis_layer(down, "fdtest:down:"))
    options = SITE.search_options()
    with caplog.at_level(logging.WARNING):
        result = degraded.search("acme", QUESTION, options)
        other = degraded.search("acme", "Do you support single sign-on?", options)
    assert result.status == "ok" and result == plain.search("acme", QUESTION, options)
    assert other.chunks[0].doc_id == "sso.md"
    assert embedder.calls == 2
    warnings = [r for r in caplog.records if "Redis unavailable" in r.getMessage()]
    assert len(warnings) == 1 and "query embedding cache" in warnings[0].getMessage()


def acme(cache_ttl_s: float = 120, provider_url: str = "") -> SiteConfig:
    providers = [{"name": "ipapi", "url": provider_url}] if provider_url else []
    return SiteConfig.model_validate(
        {
            "id": "acme",
            "name": "Acme",
            "widget": {"public_key": "pk_acme_000000000001"},
            "business_hours": {"timezone": "Europe/Madrid"},
            "enrichment": {"cache_ttl_s": cache_ttl_s, "providers": providers},
        }
    )


async def test_enrichment_cache_is_shared_by_replicas(runtime: Runtime, redis_prefix: str) -> None:
    # Must survive: a profile a provider found for replica A is replica B's cache hit
    # (priority 1), stored with the site's cache_ttl_s as its expiry. Must not: a
    # browser's reveal data shared that way (it is per session).
    with HttpReceiver() as provider:
        provider.replies["/ip"] = {"company": {"name": "Initech", "industry": "SaaS"}}
        await shared_by_replicas(runtime, redis_prefix, acme(120, provider.url("/ip")))
        # Once per IP: B's "h-reveal" lookup, A's "h-redis" one; B's second is the cache.
        assert len(provider.received_on("/ip")) == 2


async def shared_by_replicas(runtime: Runtime, redis_prefix: str, site: SiteConfig) -> None:
    a = Enricher(
        runtime.sessions, cache=RedisEnrichmentCache(lambda: redis_client(REDIS_URL), redis_prefix)
    )
    b = Enricher(
        runtime.sessions, cache=RedisEnrichmentCache(lambda: redis_client(REDIS_URL), redis_prefix)
    )
    revealed = VisitorContext(ip_hash="h-reveal", reveal={"company": "Umbrella"})
    try:
        assert (await a.enrich(site, revealed))["enrichment_source"] == "reveal"
        assert (await b.enrich(site, VisitorContext(ip_hash="h-reveal")))["company_name"] == (
            "Initech"  # the provider's answer for that IP, not the other session's reveal
        )
        first = await a.enrich(site, VisitorContext(ip_hash="h-redis"))
        assert first["enrichment_source"] == "provider:ipapi"
        again = await b.enrich(site, VisitorContext(ip_hash="h-redis"))
        assert again == {**first, "enrichment_source": "cache"}
        client = redis_client(REDIS_URL)
        try:
            ttl_ms = await client.pttl(f"{redis_prefix}enrich:acme:h-redis")
        finally:
            await client.aclose()
        assert 0 < ttl_ms <= 120_000
    finally:
        await a.aclose()
        await b.aclose()


async def test_enrichment_goes_on_when_redis_is_down(
    runtime: Runtime, caplog: pytest.LogCaptureFixture
) -> None:
    # Must survive: Redis down is a cache miss — the next source answers, the turn goes on.
    url = f"redis://127.0.0.1:{free_port()}/0"
    enricher = Enricher(
        runtime.sessions, cache=RedisEnrichmentCache(lambda: redis_client(url), "fdtest:down:")
    )
    visitor = VisitorContext(ip_hash="h-down", reveal={"company": "Umbrella"})
    try:
        with caplog.at_level(logging.WARNING):
            got = await enricher.enrich(acme(), visitor)
            again = await enricher.enrich(acme(), visitor)
    finally:
        await enricher.aclose()
    assert got["company_name"] == "Umbrella" and got["enrichment_source"] == "reveal"
    assert again == got  # Redis still down (and not retried in the pause): same answer
    warnings = [r for r in caplog.records if "Redis unavailable" in r.getMessage()]
    assert len(warnings) == 1 and "enrichment cache" in warnings[0].getMessage()


def test_enrichment_uses_redis_only_when_configured(monkeypatch: pytest.MonkeyPatch) -> None:
    # Must survive: no FRONTDESK_REDIS_URL, the in-process cache (embedded default).
    from frontdesk.enrichment import enrichment_cache_for

    assert isinstance(enrichment_cache_for(), TtlCache)
    monkeypatch.setenv("FRONTDESK_REDIS_URL", REDIS_URL)
    get_settings.cache_clear()
    assert isinstance(enrichment_cache_for(), RedisEnrichmentCache)
