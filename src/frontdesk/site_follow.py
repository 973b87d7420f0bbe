"""Site files changed by another process, served here too without a restart.

The site file is the truth; the store's mirror of it (`sites.config_hash`, written by the
process that saved a site's settings in the console or reloaded its file) tells every other
worker and replica that it changed. Each process checks that hash every
`FRONTDESK_SITES_FOLLOW_S` seconds; when another process changed it (it differs from the
last one seen and from what this process serves), the site's file is read again: served when
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


class SiteFollower:
    """One process's view of the store's site mirror: which hash it last saw per site."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        # At start-up this process wrote its own files into the mirror: that is its start.
        self.seen = {site_id: config_hash(site.config) for site_id, site in runtime.sites.items()}
        self.warned: set[str] = set()

    def check(self) -> list[str]:
        """Serve the sites whose stored mirror another process changed since the last
        check, when this process's file now says the same; their ids (blocking: one
        query, and a read of each changed file)."""
        runtime = self.runtime
        with runtime.sessions() as session:
            rows = session.execute(select(Site.id, Site.config_hash))
            stored = {row.id: row.config_hash for row in rows}
        fresh: dict[str, LoadedSite] = {}
        for site_id, served in runtime.sites.items():
            digest = stored.get(site_id)
            if digest is None or digest == self.seen.get(site_id):
                continue
            self.seen[site_id] = digest
            if digest == config_hash(served.config):
                continue
            loaded = self._read(site_id, served, digest)
            if loaded is not None:
                fresh[site_id] = loaded
        if fresh:
            runtime.sites = runtime.sites | fresh
            log.info("site files changed elsewhere, now served here: %s", ", ".join(sorted(fresh)))
        return sorted(fresh)

    def _read(self, site_id: str, served: LoadedSite, digest: str) -> LoadedSite | None:
        try:
            loaded = load_site_file(served.path)
        except SiteConfigError as exc:
            log.warning("site %s changed elsewhere, but its file does not load: %s", site_id, exc)
            return None
        if config_hash(loaded.config) != digest:
            log.warning(
                "site %s was changed by another process, but %s here says otherwise: share "
                "the sites folder between replicas (still serving this copy)",
                site_id,
                served.path,
            )
            return None
        return loaded


async def follow_site_changes(
    runtime: Runtime, interval_s: float, on_change: Callable[[], None] | None = None
) -> None:
    """Run a `SiteFollower` every `interval_s` until cancelled; `on_change` after sites
    changed (to hand the new sites to what holds its own reference to them)."""
    follower = SiteFollower(runtime)
    failing = False
    while True:
        await asyncio.sleep(interval_s)
        try:
            changed = await run_in_threadpool(follower.check)
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
