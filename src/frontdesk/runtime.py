"""What a Frontdesk process holds once: settings, the store, and the sites it serves."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from frontdesk.settings import Settings, get_settings
from frontdesk.sites.origins import RefusalThrottle
from frontdesk.sites.registry import LoadedSite, SiteConfigError, deployment_sites
from frontdesk.store import migrate
from frontdesk.store.db import make_engine, session_factory, transaction
from frontdesk.store.repositories import SiteRepository

log = logging.getLogger(__name__)


@dataclass
class Runtime:
    settings: Settings
    engine: Engine
    sessions: sessionmaker[Session]
    sites: dict[str, LoadedSite] = field(default_factory=dict)
    # Which widget origin refusals this process still has to log and record.
    origin_refusals: RefusalThrottle = field(default_factory=RefusalThrottle)

    def site(self, site_id: str) -> LoadedSite:
        try:
            return self.sites[site_id]
        except KeyError:
            known = ", ".join(sorted(self.sites)) or "none"
            raise SiteConfigError(f"unknown site {site_id!r} (known: {known})") from None

    def site_by_key(self, public_key: str) -> LoadedSite | None:
        for site in self.sites.values():
            if site.config.widget.public_key == public_key:
                return site
        return None

    def close(self) -> None:
        self.engine.dispose()


def build_runtime(settings: Settings | None = None, *, migrate_schema: bool = True) -> Runtime:
    """Open the store (migrating it), load and validate every site file, mirror them."""
    settings = settings or get_settings()
    settings.ensure_dirs()
    sites = deployment_sites(settings)
    engine = make_engine(settings.database_url)
    if migrate_schema:
        migrate.upgrade(engine)
    sessions = session_factory(engine)
    with transaction(sessions) as session:
        migrate.startup_lock(session.connection())
        repo = SiteRepository(session)
        for site in sites.values():
            repo.upsert(site.config)
    log.info("store ready at %s; sites: %s", engine.url.render_as_string(), ", ".join(sites))
    return Runtime(settings=settings, engine=engine, sessions=sessions, sites=sites)
