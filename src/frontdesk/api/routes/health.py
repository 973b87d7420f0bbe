"""Liveness and readiness."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError

from frontdesk.api.deps import RuntimeDep
from frontdesk.store import migrate

router = APIRouter(tags=["health"])


@router.get("/healthz", summary="The process is up")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


@router.get("/readyz", summary="The database is reachable and migrations are current")
def readyz(runtime: RuntimeDep) -> JSONResponse:
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
    checks["sites"] = len(runtime.sites)
    ready = checks.get("database") == "ok" and checks.get("migrations") == "ok"
    return JSONResponse(
        {"status": "ready" if ready else "not_ready", "checks": checks},
        status_code=200 if ready else 503,
    )
