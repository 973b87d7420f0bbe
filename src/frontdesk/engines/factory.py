"""`build_engines(site, settings)`: the jobs one site's turns use (DESIGN.md "Engines").

A site on the `local` engine gets the shared local jobs. A site on `llm` gets LLM jobs
per role and routing mode (engines/llm/engine.py), each backed by its local twin.
"""

from __future__ import annotations

import logging

from frontdesk.engines.base import Engines
from frontdesk.engines.llm.config import EngineConfigError, resolve_engine
from frontdesk.engines.llm.engine import build_llm_engines
from frontdesk.engines.llm.models import ModelSet, build_models
from frontdesk.engines.local.engine import build_local_engines
from frontdesk.settings import Settings
from frontdesk.sites.schema import SiteConfig

log = logging.getLogger(__name__)

__all__ = ["EngineConfigError", "build_engines", "build_engines_or_local"]


def build_engines(
    site: SiteConfig, settings: Settings, *, models: ModelSet | None = None
) -> Engines:
    """Raises `EngineConfigError` when the site's models cannot be built.

    `models` (a `ModelSet`) replaces the configured models (tests pass their doubles here).
    """
    local = build_local_engines(settings)
    resolved = resolve_engine(site, settings)
    if not resolved.uses_llm and models is None:
        return local
    chosen = models if models is not None else build_models(resolved)
    return build_llm_engines(resolved, site.name, site.instructions, local, chosen)


def build_engines_or_local(site: SiteConfig, settings: Settings) -> Engines:
    """The site's engines; the local engine (and an error in the log) when the LLM
    configuration is broken, so a site keeps answering offline."""
    try:
        return build_engines(site, settings)
    except EngineConfigError as exc:
        log.error("site %s: llm engine unavailable, using local: %s", site.id, exc)
        return build_local_engines(settings)


class SiteEngines:
    """Each site's engines (local or llm, per its `engine` block), built once per site;
    `injected` engines (tests, evaluations) serve every site."""

    def __init__(self, settings: Settings, injected: Engines | None = None) -> None:
        self.settings = settings
        self.injected = injected
        self._by_key: dict[tuple[str, ...], Engines] = {}
        self._by_site: dict[str, tuple[SiteConfig, Engines]] = {}

    def default(self) -> Engines:
        """The injected engines, else the local engine (warm-up, tools)."""
        return self.injected or build_local_engines(self.settings)

    def for_site(self, config: SiteConfig) -> Engines:
        if self.injected is not None:
            return self.injected
        # The same config object as last turn: no need to serialize its engine block to
        # find the engines (~80 µs a turn); a reloaded site file brings a new object.
        last = self._by_site.get(config.id)
        if last is not None and last[0] is config:
            return last[1]
        key = (config.id, config.name, config.instructions, config.engine.model_dump_json())
        engines = self._by_key.get(key)
        if engines is None:
            engines = self._by_key[key] = build_engines_or_local(config, self.settings)
        self._by_site[config.id] = (config, engines)
        return engines
