"""Which model does what for one site: the site's `engine` block over the process settings.

Pure: `resolve_engine(site, settings)` reads configuration only; models are built in
`models.py`. Precedence (DESIGN.md): a key written in the site file > FRONTDESK_* > default.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from frontdesk.settings import Settings
from frontdesk.sites.schema import RoutingMode, SiteConfig, StructuredOutput

Role = Literal["fast", "main", "judge"]
ROLES: tuple[Role, ...] = ("fast", "main", "judge")
LOCAL = "local"


class EngineConfigError(ValueError):
    """An `llm` engine that cannot be built as configured (missing model, package, key)."""


@dataclass(frozen=True)
class ResolvedEngine:
    """Everything the LLM engine needs, with every default applied."""

    name: Literal["local", "llm"]
    roles: dict[Role, str]  # role → provider:model, or "local"
    routing_mode: RoutingMode
    hybrid_confidence: float
    fallback: str = ""
    base_url: str = ""
    api_key_env: str = ""
    timeout_s: float = 30.0
    max_retries: int = 2
    stream_timeout_ms: int = 8000
    structured_output: StructuredOutput = "auto"
    complexity_routing: bool = False
    options: dict[str, str | int | float | bool] = field(default_factory=dict)
    langfuse_prompts: bool = False

    @property
    def uses_llm(self) -> bool:
        return self.name == "llm" and any(spec != LOCAL for spec in self.roles.values())


def resolve_engine(site: SiteConfig, settings: Settings) -> ResolvedEngine:
    cfg = site.engine
    explicit = cfg.model_fields_set
    name = cfg.name if "name" in explicit else settings.engine
    global_roles = {
        "fast": settings.llm_fast,
        "main": settings.llm_main,
        "judge": settings.llm_judge,
    }
    roles: dict[Role, str] = {}
    for role in ROLES:
        site_value = getattr(cfg.roles, role)
        chosen = site_value if role in cfg.roles.model_fields_set else global_roles[role]
        roles[role] = chosen or LOCAL
    if name == "llm":
        # Unset roles borrow a neighbour: fast ↔ main, judge ← fast ← main.
        main = roles["main"] if roles["main"] != LOCAL else roles["fast"]
        if main == LOCAL:
            raise EngineConfigError(
                f"site {site.id!r}: engine llm needs a model: set engine.roles.main "
                "(e.g. openai:gpt-4.1-mini) or FRONTDESK_LLM_MAIN"
            )
        if "main" not in cfg.roles.model_fields_set and not settings.llm_main:
            roles["main"] = main
        if "fast" not in cfg.roles.model_fields_set and not settings.llm_fast:
            roles["fast"] = main
        if "judge" not in cfg.roles.model_fields_set and not settings.llm_judge:
            roles["judge"] = roles["fast"]
    mode: RoutingMode = cfg.routing_mode
    if name == "llm" and "routing_mode" not in explicit:
        mode = "hybrid"
    return ResolvedEngine(
        name=name,
        roles=roles,
        routing_mode=mode,
        hybrid_confidence=cfg.hybrid_confidence,
        fallback=cfg.fallback or settings.llm_fallback,
        base_url=cfg.base_url or settings.llm_base_url,
        api_key_env=cfg.api_key_env,
        timeout_s=cfg.timeout_s if cfg.timeout_s is not None else settings.llm_timeout_s,
        max_retries=cfg.max_retries if cfg.max_retries is not None else settings.llm_max_retries,
        stream_timeout_ms=cfg.stream_timeout_ms or settings.llm_stream_timeout_ms,
        structured_output=cfg.structured_output,
        complexity_routing=cfg.complexity_routing,
        options=dict(cfg.options),
        langfuse_prompts=settings.langfuse_prompts,
    )
