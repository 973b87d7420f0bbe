"""Liveness and readiness.

`/readyz` answers 503 when this process cannot take a turn and keep it: the store is
unreachable, behind on migrations, or cannot write (a write probe, free disk space on
SQLite, a turn write that failed in the last 30 s — `store/health.py`). Redis is an
accelerator: when it is down or slow the process still serves (per-process limits and
locks), so `/readyz` stays 200 with `"status": "degraded"` and `checks.redis` saying why.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError

from frontdesk.api.deps import RuntimeDep
from frontdesk.runtime import Runtime
from frontdesk.store import migrate
from frontdesk.store.health import write_probe

router = APIRouter(tags=["health"])


@router.get("/healthz", summary="The process is up")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


def _store_checks(runtime: Runtime) -> dict[str, Any]:
    checks: dict[str, Any] = {}
    try:
        with runtime.engine.connect() as connection:
            connection.execute(text("SELECT 1"))
        checks["database"] = "ok"
        current = migrate.current_revision(runtime.engine)
        head = migrate.head_revision()
        checks["migrations"] = "ok" if current == head else f"at {current}, expected {head}"
    except SQLAlchemyError as exc:
        checks["database"] = f"unreachable: {type(exc).__name__}"
        return checks
    try:
        problem = write_probe(runtime.engine)
    except (SQLAlchemyError, OSError) as exc:
        problem = f"{type(exc).__name__}: {str(exc).splitlines()[0][:160]}"
    checks["writes"] = "ok" if problem is None else f"failing: {problem}"
    return checks


async def _redis_check(request: Request) -> str | None:
    """None when Redis is not configured, "ok", or "down: …" (one bounded PING; its
    outcome also closes or opens the guards' breaker)."""
    client = getattr(request.app.state, "redis", None)
    outage = getattr(request.app.state, "redis_outage", None)
    if client is None or outage is None:
        return None
    try:
        await outage.call(client.ping(), 1.0)
    except Exception:
        return f"down: {outage.error}"
    return "ok"


@router.get(
    "/readyz",
    summary="The store is reachable, migrated and writable (Redis down: 200, degraded)",
)
async def readyz(runtime: RuntimeDep, request: Request) -> JSONResponse:
    checks = await asyncio.to_thread(_store_checks, runtime)
    redis = await _redis_check(request)
    if redis is not None:
        checks["redis"] = redis
    checks["sites"] = len(runtime.sites)
    ready = all(checks.get(name) == "ok" for name in ("database", "migrations", "writes"))
    status = "not_ready" if not ready else "ready" if redis in (None, "ok") else "degraded"
    return JSONResponse({"status": status, "checks": checks}, status_code=200 if ready else 503)
