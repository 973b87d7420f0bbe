"""How a console page writes: its work runs in one transaction, off the event loop."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from frontdesk.runtime import Runtime
from frontdesk.store.db import transaction

_Result = TypeVar("_Result")


async def in_transaction(runtime: Runtime, work: Callable[[Session], _Result]) -> _Result:
    """What `work` returns, its writes committed together (or none of them)."""

    def run() -> _Result:
        with transaction(runtime.sessions) as session:
            return work(session)

    return await run_in_threadpool(run)
