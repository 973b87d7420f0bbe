"""The `llm` engine: LangChain chat models per role (docs/llm.md)."""

from frontdesk.engines.llm.config import EngineConfigError, ResolvedEngine, resolve_engine
from frontdesk.engines.llm.engine import build_llm_engines
from frontdesk.engines.llm.models import ModelSet, build_chat_model, build_models

__all__ = [
    "EngineConfigError",
    "ModelSet",
    "ResolvedEngine",
    "build_chat_model",
    "build_llm_engines",
    "build_models",
    "resolve_engine",
]
