"""Which bus a process uses (`FRONTDESK_LIVE_BUS`, auto by default) and the desk around it."""

from __future__ import annotations

from frontdesk.runtime import Runtime
from frontdesk.takeover.bus import LiveBus, PostgresBus, RedisBus
from frontdesk.takeover.desk import TakeoverDesk
from frontdesk.takeover.events import Clock, utc_clock


def choose_bus(runtime: Runtime) -> LiveBus:
    settings = runtime.settings
    kind = settings.live_bus
    postgres = runtime.engine.dialect.name == "postgresql"
    if kind == "auto":
        kind = "redis" if settings.redis_url else "postgres" if postgres else "process"
    if kind == "redis":
        if not settings.redis_url:
            raise ValueError("FRONTDESK_LIVE_BUS=redis needs FRONTDESK_REDIS_URL")
        return RedisBus(
            settings.redis_url,
            settings.redis_prefix,
            publish_timeout_s=settings.redis_timeout_s,
            pause_s=settings.redis_retry_s,
        )
    if kind == "postgres":
        if not postgres:
            raise ValueError("FRONTDESK_LIVE_BUS=postgres needs a PostgreSQL store")
        url = runtime.engine.url.set(drivername="postgresql")
        return PostgresBus(url.render_as_string(hide_password=False))
    return LiveBus()


def build_desk(runtime: Runtime, *, clock: Clock = utc_clock) -> TakeoverDesk:
    settings = runtime.settings
    return TakeoverDesk(
        runtime.sessions,
        choose_bus(runtime),
        clock=clock,
        poll_s=settings.live_poll_s,
        presence_ttl_s=settings.live_presence_ttl_s,
    )
