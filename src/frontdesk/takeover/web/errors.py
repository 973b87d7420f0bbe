"""The takeover's domain errors as API errors: each error's HTTP status, one place."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from frontdesk.api.errors import error_body
from frontdesk.takeover.errors import (
    BadMessage,
    NotJoined,
    OwnedByOther,
    TakeoverError,
    UnknownSession,
)

STATUS: dict[type[TakeoverError], int] = {
    UnknownSession: 404,
    NotJoined: 409,
    OwnedByOther: 409,
    BadMessage: 422,
}


def status_of(exc: TakeoverError) -> int:
    for kind in type(exc).__mro__:
        if kind in STATUS:
            return STATUS[kind]
    return 400


async def _takeover_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, TakeoverError)
    return JSONResponse(error_body(exc.code, str(exc)), status_of(exc))


def install_takeover_errors(app: FastAPI) -> None:
    app.add_exception_handler(TakeoverError, _takeover_error)
