"""Site (tenant) configuration: schema and the registry of site files."""

from frontdesk.sites.registry import LoadedSite, SiteConfigError, load_site, load_sites
from frontdesk.sites.schema import SiteConfig

__all__ = ["LoadedSite", "SiteConfig", "SiteConfigError", "load_site", "load_sites"]
