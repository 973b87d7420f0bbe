"""FastAPI dependencies as `Annotated` aliases, so route signatures read like sentences."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.orm import Session

from frontdesk.runtime import Runtime


def get_runtime(request: Request) -> Runtime:
    runtime: Runtime = request.app.state.runtime
    return runtime


RuntimeDep = Annotated[Runtime, Depends(get_runtime)]


def get_db(runtime: RuntimeDep) -> Iterator[Session]:
    with runtime.sessions() as session:
        yield session


DbDep = Annotated[Session, Depends(get_db)]
