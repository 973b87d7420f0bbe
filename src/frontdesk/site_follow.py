"""Site files changed by another process, served here too without a restart.

The site file is the truth; the store's mirror of it (`sites.config_hash`, written by the
process that saved a site's settings in the console or reloaded its file) tells every other
worker and replica that it changed. Each process compares that hash with what it serves,
every `FRONTDESK_SITES_FOLLOW_S` seconds, and reads a changed site's file again: served when
the file says what the store says (the sites folder is shared), else left as it was with a
warning — a replica whose own copy of the file differs never serves, nor reverts, a change
it cannot see.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from sqlalchemy import select
from starlette.concurrency import run_in_threadpool

from frontdesk.runtime import Runtime
from frontdesk.sites.registry import LoadedSite, SiteConfigError, load_site_file
from frontdesk.store.models import Site
from frontdesk.store.repositories import config_hash

log = logging.getLogger(__name__)


def pick_up_changed_sites(runtime: Runtime, warned: set[str] | None = None) -> list[str]:
    """Serve the sites whose stored mirror differs from what this process serves and whose
    file now matches it; their ids (blocking: one query, and a read of each changed file).
    `warned` remembers the mismatches already logged, so each is logged once."""
    warned = warned if warned is not None else set()
    with runtime.sessions() as session:
        stored = {
            row.id: row.config_hash for row in session.execute(select(Site.id, Site.config_hash))
        }
    fresh: dict[str, LoadedSite] = {}
    for site_id, served in runtime.sites.items():
        digest = stored.get(site_id)
        if digest is None or digest == config_hash(served.config):
            continue
        try:
            loaded = load_site_file(served.path)
        except SiteConfigError as exc:
            if digest not in warned:
                warned.add(digest)
                log.warning(
                    "site %s changed elsewhere, but its file does not load: %s", site_id, exc
                )
            continue
        if config_hash(loaded.config) != digest:
            if digest not in warned:
                warned.add(digest)
                log.warning(
                    "site %s was changed by another process, but %s here says otherwise: "
                    "share the sites folder between replicas (still serving this copy)",
                    site_id,
                    served.path,
                )
            continue
        fresh[site_id] = loaded
    if fresh:
        runtime.sites = runtime.sites | fresh
        log.info("site files changed elsewhere, now served here: %s", ", ".join(sorted(fresh)))
    return sorted(fresh)


async def follow_site_changes(
    runtime: Runtime, interval_s: float, on_change: Callable[[], None] | None = None
) -> None:
    """Run `pick_up_changed_sites` every `interval_s` until cancelled; `on_change` after
    sites changed (to hand the new sites to what holds its own reference to them)."""
    warned: set[str] = set()
    failing = False
    while True:
        await asyncio.sleep(interval_s)
        try:
            changed = await run_in_threadpool(pick_up_changed_sites, runtime, warned)
        except Exception as exc:  # a store outage: logged once, tried again next time
            if not failing:
                log.warning("cannot check the sites for changes made elsewhere (%r)", exc)
            failing = True
            continue
        if failing:
            log.info("checking the sites for changes made elsewhere again")
            failing = False
        if changed and on_change is not None:
            on_change()
