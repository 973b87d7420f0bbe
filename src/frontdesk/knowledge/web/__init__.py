"""Learning a website: crawl (robots.txt, sitemaps, links), extract, re-sync incrementally.

    sync = site_sync(engine, kb, site)           # English sites: the second index too
    summary = await sync.sync(site.id, source)   # CrawlSummary; CrawlAborted on failure

Modules: `urls` (address rules), `fetch` (polite HTTP), `robots` (robots.txt, sitemaps),
`extract` (page → Document), `crawl` (one crawl, staged), `state` (crawl tables),
`sync` (stage, then apply), `schedule` (the worker's re-syncs).
"""

from __future__ import annotations

from frontdesk.knowledge.web.crawl import CrawlAborted
from frontdesk.knowledge.web.state import CrawlStore
from frontdesk.knowledge.web.sync import CrawlSummary, SiteSync, site_sync, source_key
from frontdesk.sites.knowledge import KnowledgeConfig, WebSource


def web_sources(site_id: str, knowledge: KnowledgeConfig, store: CrawlStore) -> list[WebSource]:
    """The site file's web sources, then start URLs added with `kb crawl SITE URL`."""
    sources = list(knowledge.web_sources)
    configured = {source_key(source) for source in sources}
    for url, private in store.added_sources(site_id):
        source = WebSource.model_validate({"url": url, "allow_private_network": private})
        if source_key(source) not in configured:
            sources.append(source)
    return sources


__all__ = ["CrawlAborted", "CrawlStore", "CrawlSummary", "SiteSync", "site_sync", "web_sources"]
