"""Every error leaves the API as JSON `{"error": {"code", "message"}}`, never a stack trace."""

from __future__ import annotations

import logging

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import InterfaceError, InternalError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError
from starlette.exceptions import HTTPException as StarletteHTTPException

log = logging.getLogger(__name__)

STORE_RETRY_AFTER_S = 5
# The store is down or cannot write (not: the request's data is wrong — that is a 4xx).
STORE_DOWN_ERRORS: tuple[type[Exception], ...] = (
    OperationalError,
    InterfaceError,
    PoolTimeoutError,
)
# SQLSTATE of a write refused by a read-only PostgreSQL (a replica, or a database set
# `default_transaction_read_only`): psycopg raises it as an InternalError.
READ_ONLY_SQLSTATE = "25006"


class ApiError(HTTPException):
    """An error with a stable machine-readable code."""

    def __init__(
        self,
        status_code: int,
        code: str,
        message: str,
        headers: dict[str, str] | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(status_code=status_code, detail=message, headers=headers)
        self.code = code
        self.hint = hint


def error_body(code: str, message: str, hint: str | None = None) -> dict[str, dict[str, str]]:
    """`hint`: what to change, only where the caller may see the configuration."""
    detail = {"code": code, "message": message}
    if hint:
        detail["hint"] = hint
    return {"error": detail}


_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "payload_too_large",
    429: "rate_limited",
}


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def _api_error(_: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse(
            error_body(exc.code, str(exc.detail), exc.hint), exc.status_code, headers=exc.headers
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = _CODES.get(exc.status_code, "http_error")
        return JSONResponse(error_body(code, str(exc.detail)), exc.status_code, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors()
        )
        return JSONResponse(error_body("invalid_request", problems or "invalid request"), 422)

    async def _store_down(request: Request, exc: Exception) -> JSONResponse:
        # The database is unreachable, read-only, full or out of connections: a retry
        # later may pass (503 + Retry-After); a 500 would say the request itself is wrong.
        cause = getattr(exc, "orig", None) or exc
        log.error(
            "store unavailable on %s %s: %s: %s",
            request.method,
            request.url.path,
            type(cause).__name__,
            (str(cause).splitlines() or [""])[0][:200],
        )
        return JSONResponse(
            error_body("store_unavailable", "Our storage is unavailable; try again shortly."),
            503,
            headers={"Retry-After": str(STORE_RETRY_AFTER_S)},
        )

    for store_error in STORE_DOWN_ERRORS:
        app.add_exception_handler(store_error, _store_down)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return JSONResponse(error_body("internal_error", "Something went wrong on our side."), 500)

    @app.exception_handler(InternalError)
    async def _internal(request: Request, exc: InternalError) -> JSONResponse:
        if getattr(exc.orig, "sqlstate", None) == READ_ONLY_SQLSTATE:
            return await _store_down(request, exc)
        return await _unexpected(request, exc)
