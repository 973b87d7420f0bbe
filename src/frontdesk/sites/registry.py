"""Loading site YAML files: one file per site, validated, with errors naming file and field."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from frontdesk.settings import DEMO_DIR, Settings, get_settings
from frontdesk.sites.schema import SiteConfig


class SiteConfigError(ValueError):
    """A site file that cannot be used; the message names the file and the field."""


@dataclass(frozen=True)
class LoadedSite:
    config: SiteConfig
    path: Path

    @property
    def base_dir(self) -> Path:
        """Folder that relative paths in the site file (knowledge sources) start from."""
        return self.path.parent


def _describe(error: ValidationError, path: Path) -> str:
    lines = [f"{path}: invalid site configuration"]
    for item in error.errors():
        field = ".".join(str(part) for part in item["loc"]) or "(root)"
        lines.append(f"  - {field}: {item['msg']}")
    return "\n".join(lines)


def load_site_file(path: Path) -> LoadedSite:
    """Parse and validate one site file, raising `SiteConfigError` that names file and field."""
    try:
        raw: Any = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SiteConfigError(f"{path}: cannot read file ({exc.strerror})") from exc
    except yaml.YAMLError as exc:
        raise SiteConfigError(f"{path}: not valid YAML ({exc})") from exc
    if not isinstance(raw, dict):
        raise SiteConfigError(f"{path}: expected a mapping of site settings at the top level")
    try:
        config = SiteConfig.model_validate(raw)
    except ValidationError as exc:
        raise SiteConfigError(_describe(exc, path)) from exc
    if path.stem != config.id:
        raise SiteConfigError(f"{path}: id: file name must be '{config.id}.yaml' to match the id")
    return LoadedSite(config=config, path=path)


def site_files(sites_dir: Path) -> list[Path]:
    return sorted([*sites_dir.glob("*.yaml"), *sites_dir.glob("*.yml")])


def load_sites(sites_dir: Path | None = None) -> dict[str, LoadedSite]:
    """All sites in the folder; any invalid file fails the whole load (fail at start-up)."""
    folder = sites_dir or get_settings().sites_dir
    if not folder.is_dir():
        raise SiteConfigError(f"{folder}: sites folder does not exist")
    sites: dict[str, LoadedSite] = {}
    keys: dict[str, str] = {}
    for path in site_files(folder):
        site = load_site_file(path)
        if site.config.id in sites:
            raise SiteConfigError(f"{path}: id: duplicate site id {site.config.id!r}")
        key = site.config.widget.public_key
        if key in keys:
            raise SiteConfigError(f"{path}: widget.public_key: already used by site {keys[key]!r}")
        keys[key] = site.config.id
        sites[site.config.id] = site
    return sites


BUNDLED_SITES_DIR = DEMO_DIR / "sites"


def deployment_sites(settings: Settings) -> dict[str, LoadedSite]:
    """The sites a deployment serves: every file in `sites_dir`, plus the bundled demo
    (`settings.demo_site`), so adding a site folder no longer hides the demo. A site of
    the folder with the demo's id or widget key wins over the bundled one."""
    sites = load_sites(settings.sites_dir)
    if not settings.demo_site or settings.sites_dir.resolve() == BUNDLED_SITES_DIR.resolve():
        return sites
    keys = {site.config.widget.public_key for site in sites.values()}
    for path in site_files(BUNDLED_SITES_DIR):
        demo = load_site_file(path)
        if demo.config.id not in sites and demo.config.widget.public_key not in keys:
            sites[demo.config.id] = demo
    return sites


def load_site(site_id: str, sites_dir: Path | None = None) -> LoadedSite:
    """One site by id, with a helpful error listing the known ids."""
    sites = load_sites(sites_dir)
    try:
        return sites[site_id]
    except KeyError:
        known = ", ".join(sorted(sites)) or "none"
        raise SiteConfigError(f"unknown site {site_id!r} (known: {known})") from None
