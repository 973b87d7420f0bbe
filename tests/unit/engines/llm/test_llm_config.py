"""Per-site engine configuration over process settings; provider kwargs; model building."""

from __future__ import annotations

from typing import Any

import pytest

from frontdesk.engines.llm.config import EngineConfigError, ResolvedEngine, resolve_engine
from frontdesk.engines.llm.models import build_chat_model, build_models, model_kwargs
from frontdesk.settings import Settings
from frontdesk.sites.schema import SiteConfig

pytestmark = pytest.mark.unit


def site(**engine: Any) -> SiteConfig:
    return SiteConfig.model_validate(
        {
            "id": "acme",
            "name": "Acme",
            "widget": {"public_key": "pk_acme_0000000000"},
            "business_hours": {"timezone": "Europe/Berlin"},
            **({"engine": engine} if engine else {}),
        }
    )


def test_local_by_default() -> None:
    resolved = resolve_engine(site(), Settings())
    assert resolved.name == "local"
    assert not resolved.uses_llm
    assert resolved.routing_mode == "local"


def test_llm_site_defaults_to_hybrid_and_shares_models() -> None:
    resolved = resolve_engine(site(name="llm", roles={"main": "openai:gpt-4.1-mini"}), Settings())
    assert resolved.uses_llm
    assert resolved.routing_mode == "hybrid"
    assert resolved.roles == {
        "fast": "openai:gpt-4.1-mini",
        "main": "openai:gpt-4.1-mini",
        "judge": "openai:gpt-4.1-mini",
    }
    assert resolved.stream_timeout_ms == 8000


def test_site_keys_win_over_settings() -> None:
    settings = Settings(
        engine="llm",
        llm_fast="openai:gpt-4.1-nano",
        llm_main="openai:gpt-4.1",
        llm_stream_timeout_ms=3000,
        llm_fallback="ollama:llama3.2",
    )
    resolved = resolve_engine(
        site(roles={"judge": "local"}, routing_mode="llm", stream_timeout_ms=500), settings
    )
    assert resolved.name == "llm"  # from the settings: the site did not choose
    assert resolved.roles == {
        "fast": "openai:gpt-4.1-nano",
        "main": "openai:gpt-4.1",
        "judge": "local",
    }
    assert resolved.routing_mode == "llm"
    assert resolved.stream_timeout_ms == 500
    assert resolved.fallback == "ollama:llama3.2"


def test_explicit_local_site_ignores_llm_settings() -> None:
    resolved = resolve_engine(site(name="local"), Settings(engine="llm", llm_main="openai:x"))
    assert not resolved.uses_llm


def test_llm_without_a_model_is_a_configuration_error() -> None:
    with pytest.raises(EngineConfigError, match="needs a model"):
        resolve_engine(site(name="llm"), Settings())


def engine(**values: Any) -> ResolvedEngine:
    defaults: dict[str, Any] = {
        "name": "llm",
        "roles": {"fast": "openai:m", "main": "openai:m", "judge": "openai:m"},
        "routing_mode": "hybrid",
        "hybrid_confidence": 0.6,
    }
    return ResolvedEngine(**{**defaults, **values})


def test_provider_kwargs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_KEY", "sk-test")
    compatible = model_kwargs("openai:qwen", engine(base_url="http://127.0.0.1:9/v1"))
    assert compatible["base_url"] == "http://127.0.0.1:9/v1"
    assert compatible["api_key"] == "not-needed"
    assert compatible["max_retries"] == 0 and compatible["stream_usage"] is True
    azure = model_kwargs(
        "azure_openai:prod-4o",
        engine(
            base_url="https://x.openai.azure.com",
            api_key_env="MY_KEY",
            options={"api_version": "2024-10-21"},
        ),
    )
    assert azure["azure_endpoint"] == "https://x.openai.azure.com"
    assert azure["azure_deployment"] == "prod-4o"
    assert azure["api_key"] == "sk-test" and azure["api_version"] == "2024-10-21"
    anthropic = model_kwargs("anthropic:claude-haiku-4-5", engine(timeout_s=12))
    assert anthropic["default_request_timeout"] == 12 and anthropic["max_retries"] == 0
    ollama = model_kwargs("ollama:llama3.2", engine(base_url="http://127.0.0.1:11434"))
    assert ollama["base_url"] == "http://127.0.0.1:11434"


def test_an_openai_compatible_server_gets_the_token_limit_it_reads() -> None:
    limited = engine(base_url="http://127.0.0.1:9/v1", options={"max_tokens": 64})
    assert model_kwargs("openai:local", limited)["extra_body"] == {"max_tokens": 64}
    # OpenAI itself reads max_completion_tokens: nothing is added there.
    openai_itself = engine(options={"max_tokens": 64})
    assert "extra_body" not in model_kwargs("openai:gpt-4o-mini", openai_itself)


def test_openai_compatible_model_is_built() -> None:
    model = build_chat_model("openai:local-model", engine(base_url="http://127.0.0.1:9/v1"))
    assert type(model).__name__ == "ChatOpenAI"
    models = build_models(engine(base_url="http://127.0.0.1:9/v1", fallback="openai:other"))
    assert models.fast is models.main is models.judge  # one instance per distinct spec
    assert models.fallback is not None and models.fallback is not models.main


def test_missing_provider_package_is_explained() -> None:
    pytest.importorskip("langchain_openai")
    try:
        import langchain_anthropic  # noqa: F401
    except ImportError:
        with pytest.raises(EngineConfigError, match="langchain-anthropic"):
            build_chat_model("anthropic:claude-haiku-4-5", engine())
    with pytest.raises(EngineConfigError, match="provider:model"):
        build_chat_model("gpt-4o", engine())
