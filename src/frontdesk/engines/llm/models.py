"""Chat models per role, built in ONE place from `provider:model` strings.

`init_chat_model` imports the provider's integration package lazily: `openai:` and
`azure_openai:` need `langchain-openai` (the `openai` extra), `anthropic:` needs
`langchain-anthropic`, `ollama:` needs `langchain-ollama`. Any OpenAI-compatible server
(vLLM, llama.cpp, LM Studio, a gateway) is `openai:<model>` with a `base_url`.

Provider clients are built with their own retries off: the attempt loops of
`structured.py` and of the writer are the only retry layers, so timeouts and backoff are
predictable. The clients themselves are the integration packages' own, as they come.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from langchain_core.language_models import BaseChatModel

from frontdesk.engines.llm.config import LOCAL, ROLES, EngineConfigError, ResolvedEngine, Role

PACKAGES = {
    "openai": "langchain-openai (pip install 'frontdesk[openai]')",
    "azure_openai": "langchain-openai (pip install 'frontdesk[openai]')",
    "anthropic": "langchain-anthropic (pip install langchain-anthropic)",
    "ollama": "langchain-ollama (pip install langchain-ollama)",
}
_KEY_ENV = {
    "openai": "OPENAI_API_KEY",
    "azure_openai": "AZURE_OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
}


def split_spec(spec: str) -> tuple[str, str]:
    provider, sep, model = spec.partition(":")
    if not sep or not provider or not model:
        raise EngineConfigError(f"model {spec!r} must look like provider:model")
    return provider, model


def model_kwargs(spec: str, engine: ResolvedEngine) -> dict[str, Any]:
    """Provider-specific keyword arguments for `init_chat_model` (pure, tested)."""
    provider, model = split_spec(spec)
    kwargs: dict[str, Any] = {}
    key_env = engine.api_key_env or _KEY_ENV.get(provider, "")
    api_key = os.environ.get(key_env, "") if key_env else ""
    if provider in ("openai", "azure_openai"):
        kwargs.update(timeout=engine.timeout_s, max_retries=0, stream_usage=True)
        if provider == "openai" and engine.base_url:
            kwargs["base_url"] = engine.base_url
            kwargs["api_key"] = api_key or "not-needed"  # local servers take any key
        elif api_key:
            kwargs["api_key"] = api_key
        if provider == "azure_openai":
            if engine.base_url:
                kwargs["azure_endpoint"] = engine.base_url
            kwargs.setdefault("azure_deployment", model)
    elif provider == "anthropic":
        kwargs.update(default_request_timeout=engine.timeout_s, max_retries=0)
        if engine.base_url:
            kwargs["base_url"] = engine.base_url
        if api_key:
            kwargs["api_key"] = api_key
    elif provider == "ollama":
        if engine.base_url:
            kwargs["base_url"] = engine.base_url
        kwargs["client_kwargs"] = {"timeout": engine.timeout_s}
    else:
        if engine.base_url:
            kwargs["base_url"] = engine.base_url
        if api_key:
            kwargs["api_key"] = api_key
        kwargs["timeout"] = engine.timeout_s
    kwargs.update(engine.options)
    if provider == "openai" and engine.base_url and "max_tokens" in engine.options:
        # langchain-openai sends the limit as `max_completion_tokens`, which OpenAI-compatible
        # servers such as llama.cpp's do not read: without `max_tokens` beside it a small
        # model writing JSON went on until its context was full (minutes per call).
        kwargs["extra_body"] = {"max_tokens": engine.options["max_tokens"]}
    return kwargs


def build_chat_model(spec: str, engine: ResolvedEngine) -> BaseChatModel:
    """The one call to `init_chat_model` in the code base."""
    from langchain.chat_models import init_chat_model

    provider, _ = split_spec(spec)
    kwargs = model_kwargs(spec, engine)
    if provider in ("openai", "azure_openai"):
        # A connection pool per model instead of langchain-openai's process-wide cached
        # client: that one belongs to the event loop that first used it, so any later
        # loop in the process (a second `asyncio.run`: tests, evaluations, tools) gets
        # "Event loop is closed" from it.
        import httpx

        kwargs.setdefault("http_async_client", httpx.AsyncClient(timeout=engine.timeout_s))
    try:
        model: BaseChatModel = init_chat_model(spec, **kwargs)
    except ImportError as exc:
        package = PACKAGES.get(provider, f"the LangChain integration package for {provider}")
        raise EngineConfigError(f"model {spec!r} needs {package}") from exc
    except Exception as exc:  # unknown provider, missing API key, bad option
        raise EngineConfigError(f"model {spec!r}: {exc}") from exc
    return model


@dataclass(frozen=True)
class ModelSet:
    """One chat model per role (None = the local engine does that role) and a fallback."""

    fast: BaseChatModel | None = None
    main: BaseChatModel | None = None
    judge: BaseChatModel | None = None
    fallback: BaseChatModel | None = None
    names: dict[str, str] = field(default_factory=dict)  # role / "fallback" → provider:model

    def role(self, role: Role) -> BaseChatModel | None:
        model: BaseChatModel | None = getattr(self, role)
        return model


def build_models(engine: ResolvedEngine) -> ModelSet:
    """Build each distinct model once; roles naming the same spec share the instance."""
    built: dict[str, BaseChatModel] = {}

    def get(spec: str) -> BaseChatModel | None:
        if not spec or spec == LOCAL:
            return None
        if spec not in built:
            built[spec] = build_chat_model(spec, engine)
        return built[spec]

    models = {role: get(engine.roles[role]) for role in ROLES}
    names: dict[str, str] = {role: engine.roles[role] for role in ROLES}
    if engine.fallback:
        names["fallback"] = engine.fallback
    return ModelSet(
        fast=models["fast"],
        main=models["main"],
        judge=models["judge"],
        fallback=get(engine.fallback),
        names=names,
    )
