"""Running queued trust reports in the background (`frontdesk worker`, or the API process
when it dispatches in process), one site at a time (see `store/trust.py`)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from frontdesk.evals.trust import counts_for, llm_caller, open_trust_workspace, run_report
from frontdesk.store.trust import TrustStore, keep_alive

log = logging.getLogger(__name__)
TICK_S = 15.0


async def execute(runtime: Any, store: TrustStore, run_id: str, site_id: str) -> None:
    """Run one claimed report and record its outcome (done with figures, or failed)."""
    try:
        site = runtime.site(site_id)
        call = llm_caller(site.config, runtime.settings)
        async with (
            keep_alive(store, run_id),
            open_trust_workspace(runtime.settings, site_id, runtime.engine) as space,
        ):
            report = await run_report(
                space, counts_for(runtime.settings.trust_questions), call=call
            )
        await asyncio.to_thread(store.finish, run_id, report["figures"], report, report["engine"])
    except asyncio.CancelledError:
        await asyncio.to_thread(store.fail, run_id, "interrupted: the worker stopped")
        raise
    except Exception as exc:
        log.exception("trust_report_failed site=%s run=%s", site_id, run_id)
        await asyncio.to_thread(store.fail, run_id, f"{type(exc).__name__}: {exc}")


async def run_queued(runtime: Any) -> list[str]:
    """Every queued run this process can claim, one after another; the ids it ran."""
    store = TrustStore(runtime.engine)
    await asyncio.to_thread(store.fail_stale)
    ran = []
    for run in await asyncio.to_thread(store.next_queued):
        if run.site_id not in runtime.sites:
            await asyncio.to_thread(store.fail, run.id, f"unknown site {run.site_id!r}")
            continue
        if not await asyncio.to_thread(store.claim, run.id):
            continue  # another worker has it, or the site's report is already running
        await execute(runtime, store, run.id, run.site_id)
        ran.append(run.id)
    return ran


async def trust_loop(runtime: Any, stop: asyncio.Event, tick_s: float = TICK_S) -> None:
    """Until `stop`: run queued trust reports."""
    while not stop.is_set():
        try:
            await run_queued(runtime)
        except Exception:  # the store hiccuped: try again next tick
            log.exception("trust_queue_failed")
        try:
            await asyncio.wait_for(stop.wait(), timeout=tick_s)
        except TimeoutError:
            continue
