"""The FastAPI application factory."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI

from frontdesk import __version__
from frontdesk.api.errors import install_error_handlers
from frontdesk.api.metrics import ApiMetrics
from frontdesk.api.middleware import BodySizeLimit, RequestMetrics, SecurityHeaders, SiteCors
from frontdesk.api.routes import (
    appointments,
    crawls,
    demo,
    demo_site,
    documents,
    feedback,
    handoffs,
    health,
    leads,
    metrics,
    sessions,
    stats,
    traces,
    widget,
)
from frontdesk.api.routes import (
    chat as chat_routes,
)
from frontdesk.api.security import any_site_allows
from frontdesk.api.sse import DEFAULT_PING_S
from frontdesk.api.turns import TurnGuard
from frontdesk.console.app import install_console
from frontdesk.conversation.backend import ChatBackend
from frontdesk.guard.limits import InMemoryRateLimiter, RateLimiter
from frontdesk.guard.locks import InMemorySessionLocks, SessionLocks
from frontdesk.handoff.dispatcher import start_dispatcher, stop_dispatcher
from frontdesk.runtime import Runtime, build_runtime
from frontdesk.settings import Settings, get_settings
from frontdesk.site_follow import follow_site_changes
from frontdesk.takeover.desk import TakeoverDesk, expire_waits
from frontdesk.takeover.setup import build_desk
from frontdesk.takeover.web import operator_api, pages, slack_events, visitor_api
from frontdesk.takeover.web.errors import install_takeover_errors

if TYPE_CHECKING:
    from frontdesk.jobs import ScheduledJobs

log = logging.getLogger(__name__)

DESCRIPTION = """Self-hosted AI assistant for company websites.

Widget routes (`/v1/chat`, `/v1/ask`, `/v1/sessions/…`) need the site's public key in
`X-Frontdesk-Key` (or `site_key` in the body) and a page `Origin` the site allows.
Admin routes (`/v1/admin/…`) need `Authorization: Bearer <admin key or site token>`, or
an operator's console session (cookie; changes also need its `X-CSRF-Token`). Every
error is JSON: `{"error": {"code": "…", "message": "…"}}`. The operator console is at
`/console`.
"""


def build_chat_backend(runtime: Runtime) -> ChatBackend:
    """The conversation graph service (imported lazily: it loads models)."""
    from frontdesk.conversation.service import ChatService  # type: ignore[import-not-found,unused-ignore]

    backend: ChatBackend = ChatService(runtime)
    return backend


def _start_spool_replays(runtime: Runtime) -> asyncio.Task[None]:
    from frontdesk.conversation.replay import spool_replays

    return asyncio.create_task(spool_replays(runtime), name="frontdesk-spool-replay")


def _start_jobs(app: FastAPI) -> ScheduledJobs | None:
    from frontdesk.api.ingestion import IngestionUnavailable, open_knowledge_base
    from frontdesk.jobs import start_jobs

    runtime: Runtime = app.state.runtime
    try:
        knowledge = getattr(app.state, "knowledge", None) or open_knowledge_base(runtime)
    except IngestionUnavailable as exc:
        log.warning("scheduled jobs not started: %s", exc)
        return None
    from frontdesk.knowledge.web.service import api_web_sync

    # One WebSync per process: syncs from the API, the console and the schedules share
    # its sync processes and its leases.
    app.state.web_sync = getattr(app.state, "web_sync", None) or api_web_sync(runtime, knowledge)
    return start_jobs(
        runtime, app.state.web_sync, knowledge, trust_reports=runtime.settings.trust_in_process
    )


async def _close(backend: Any) -> None:
    for name in ("aclose", "close"):
        closer = getattr(backend, name, None)
        if closer is None:
            continue
        result = closer()
        if hasattr(result, "__await__"):
            await result
        return


def _hand_sites_on(app: FastAPI) -> None:
    """Sites changed by another process: re-syncs started here read their web sources."""
    web_sync = getattr(app.state, "web_sync", None)
    if web_sync is not None:
        web_sync.sites = app.state.runtime.sites


def create_app(
    settings: Settings | None = None,
    runtime: Runtime | None = None,
    chat: ChatBackend | None = None,
    *,
    limiter: RateLimiter | None = None,
    locks: SessionLocks | None = None,
    sse_ping_s: float = DEFAULT_PING_S,
    ip_salt: bytes | None = None,
    migrate_schema: bool = True,
    takeover_desk: TakeoverDesk | None = None,
) -> FastAPI:
    """Build the app; the runtime (store, sites) and the chat backend open at start-up
    unless given. `limiter` and `locks` default to in-memory (one process), or Redis when
    `redis_url` is set. `takeover_desk` (tests: a frozen clock) defaults to one whose bus
    follows the settings (`frontdesk.takeover.setup`). `migrate_schema=False` skips the
    store's migrations at start-up (a worker of `frontdesk serve --workers N`, whose
    parent ran them)."""
    api_metrics = ApiMetrics()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        owned_runtime = runtime is None
        app.state.runtime = runtime or build_runtime(settings, migrate_schema=migrate_schema)
        if app.state.redis is not None and ip_salt is None:
            from frontdesk.guard.redis import shared_ip_salt

            # Redis down at start-up: this process keeps its own salt (the breaker logs it).
            with contextlib.suppress(Exception):
                app.state.ip_salt = await app.state.redis_outage.call(
                    shared_ip_salt(app.state.redis, process.redis_prefix),
                    2 * process.redis_timeout_s,
                )
        owned_chat = chat is None
        app.state.chat = chat
        if chat is None:
            try:
                app.state.chat = build_chat_backend(app.state.runtime)
            except ImportError as exc:
                log.warning("conversation service unavailable (%s); chat routes answer 503", exc)
        warm_up = getattr(app.state.chat, "warm_up", None)
        if owned_chat and warm_up is not None:
            # Load models before the first visitor: a cold first turn can take longer
            # than the widget's first-token timeout.
            started = time.perf_counter()
            await warm_up()
            log.info("models loaded in %.1f s", time.perf_counter() - started)
        # Handoff delivery from the outbox (FRONTDESK_DISPATCH_IN_PROCESS; else `frontdesk worker`).
        # With `serve --workers N` each worker runs one: a row is claimed by an atomic
        # conditional UPDATE (pending and due → lease pushed out; rowcount 1 wins), so two
        # dispatchers never deliver the same attempt (OutboxRepository.claim).
        in_process = app.state.runtime.settings.dispatch_in_process
        dispatcher = start_dispatcher(app.state.runtime) if in_process else None
        # Turns kept in the spool while the store could not write go back into the store
        # (and their handoffs into the outbox) at start and periodically.
        replays = _start_spool_replays(app.state.runtime) if in_process else None
        # Live takeover: the event log's wake-ups shared by replicas, and the wait limit.
        desk = takeover_desk or build_desk(app.state.runtime)
        await desk.bus.start()
        app.state.takeover = desk
        if app.state.chat is not None and hasattr(app.state.chat, "live"):
            app.state.chat.live = desk
        sweeper = asyncio.create_task(expire_waits(desk), name="frontdesk-live-waits")
        # The scheduled jobs (re-syncs, trust reports, retention, digest) run here unless
        # FRONTDESK_RUN_JOBS=false (then `frontdesk worker` runs them); each once per period
        # across workers and replicas (frontdesk/jobs.py).
        jobs = _start_jobs(app) if app.state.runtime.settings.run_jobs else None
        # Site settings saved or reloaded by another worker or replica (frontdesk.site_follow).
        follow_s = app.state.runtime.settings.sites_follow_s
        follower = (
            asyncio.create_task(
                follow_site_changes(app.state.runtime, follow_s, lambda: _hand_sites_on(app)),
                name="frontdesk-sites-follow",
            )
            if follow_s > 0
            else None
        )
        try:
            yield
        finally:
            await stop_dispatcher(follower)
            if jobs is not None:
                await jobs.aclose()
            await stop_dispatcher(sweeper)
            await desk.bus.aclose()
            await stop_dispatcher(replays)
            await stop_dispatcher(dispatcher)
            web_sync = getattr(app.state, "web_sync", None)
            if web_sync is not None:  # syncs started over the admin API
                await web_sync.aclose()
            if owned_chat and app.state.chat is not None:
                await _close(app.state.chat)
            if owned_runtime:
                app.state.runtime.close()
            if app.state.redis is not None:
                await app.state.redis.aclose()

    app = FastAPI(
        title="Frontdesk",
        version=__version__,
        description=DESCRIPTION,
        lifespan=lifespan,
    )
    app.state.metrics = api_metrics
    process = settings or (runtime.settings if runtime else get_settings())
    redis: Any = None
    if process.redis_url and (limiter is None or locks is None or ip_salt is None):
        # Shared by replicas: counters, session slots and the IP-hash salt live in Redis.
        # Redis down or slow: per-process limits and locks, one warning per outage
        # (guard/redis.py), and /readyz says "degraded".
        from frontdesk.guard.redis import (
            FallbackRateLimiter,
            FallbackSessionLocks,
            RedisOutage,
            RedisRateLimiter,
            RedisSessionLocks,
            redis_client,
        )

        timeout_s = process.redis_timeout_s
        redis = redis_client(process.redis_url, timeout_s=timeout_s)
        outage = RedisOutage(
            "rate limits and session locks",
            pause_s=process.redis_retry_s,
            fallback="limits and locks are per process",
        )
        app.state.redis_outage = outage
        limiter = limiter or FallbackRateLimiter(
            RedisRateLimiter(redis, process.redis_prefix), outage, timeout_s=timeout_s
        )
        locks = locks or FallbackSessionLocks(
            RedisSessionLocks(redis, process.redis_prefix), outage, timeout_s=timeout_s
        )
    app.state.redis = redis
    app.state.guard = TurnGuard(
        limiter or InMemoryRateLimiter(), locks or InMemorySessionLocks(), api_metrics
    )
    app.state.sse_ping_s = sse_ping_s
    app.state.ip_salt = ip_salt or secrets.token_bytes(16)
    app.state.chat = chat
    app.state.takeover = None  # the takeover desk, opened at start-up

    install_error_handlers(app)
    install_takeover_errors(app)
    for module in (
        health,
        metrics,
        chat_routes,
        sessions,
        visitor_api,
        slack_events,
        pages,
        operator_api,
        feedback,
        documents,
        crawls,
        leads,
        handoffs,
        traces,
        stats,
        widget,
        demo,
        demo_site,
        appointments,
    ):
        app.include_router(module.router)
    install_console(app)

    def origin_allowed(origin: str) -> bool:
        state_runtime: Runtime | None = getattr(app.state, "runtime", None)
        return state_runtime is not None and any_site_allows(state_runtime, origin)

    max_bytes = (settings or (runtime.settings if runtime else get_settings())).max_request_bytes
    # Outermost last: metrics see every response, including 413s and preflights.
    app.add_middleware(SiteCors, origin_allowed=origin_allowed)
    app.add_middleware(BodySizeLimit, max_bytes=max_bytes)
    app.add_middleware(RequestMetrics, metrics=lambda: api_metrics)
    app.add_middleware(SecurityHeaders)  # on every response, 413s and preflights included
    return app


def create_worker_app() -> FastAPI:
    """The app of one `frontdesk serve --workers N` process (uvicorn's factory, called in
    each worker): settings from the environment the CLI prepared, the store already
    migrated by the parent. Locks and limits are in Redis (the CLI requires its URL)."""
    from frontdesk.observability.logging import configure_logging

    settings = get_settings()
    configure_logging(settings.log_level, settings.log_json)
    return create_app(settings, migrate_schema=False)
