"""Per-turn accounting of model calls: tokens, model, latency and estimated cost.

`UsageMeter` is a LangChain callback handler; ChatService passes one per turn in the
graph's run config, and every chat model called inside the graph reports to it (the
config travels with LangChain's context). Prices are USD per million tokens, a small
table of well-known models; unknown models (local servers, Ollama) cost 0.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import BaseMessage
from langchain_core.outputs import LLMResult

from frontdesk.engines.base import ModelCall

# (input, output) USD per 1M tokens; matched on the longest prefix of the model name.
PRICES: dict[str, tuple[float, float]] = {
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-5-nano": (0.05, 0.40),
    "gpt-5-mini": (0.25, 2.00),
    "gpt-5": (1.25, 10.00),
    "o4-mini": (1.10, 4.40),
    "claude-haiku-4-5": (1.00, 5.00),
    "claude-3-5-haiku": (0.80, 4.00),
    "claude-sonnet-4": (3.00, 15.00),
    "claude-3-7-sonnet": (3.00, 15.00),
    "claude-opus-4": (15.00, 75.00),
}


def estimate_cost(model: str, tokens_in: int, tokens_out: int) -> float:
    name = model.split(":", 1)[-1].lower()
    best = max((prefix for prefix in PRICES if name.startswith(prefix)), key=len, default=None)
    if best is None:
        return 0.0
    price_in, price_out = PRICES[best]
    return round((tokens_in * price_in + tokens_out * price_out) / 1_000_000, 8)


@dataclass
class CallRecord:
    job: str
    model: str
    latency_ms: float
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    ok: bool = True


@dataclass
class TurnUsage:
    calls: list[CallRecord] = field(default_factory=list)

    @property
    def tokens_in(self) -> int:
        return sum(call.tokens_in for call in self.calls)

    @property
    def tokens_out(self) -> int:
        return sum(call.tokens_out for call in self.calls)

    @property
    def cost_usd(self) -> float:
        return round(sum(call.cost_usd for call in self.calls), 8)

    @property
    def model(self) -> str | None:
        """The model that wrote the answer, else the one called most."""
        writers = [c.model for c in self.calls if c.job == "answer_writer" and c.ok]
        if writers:
            return writers[-1]
        names = [c.model for c in self.calls]
        return max(set(names), key=names.count) if names else None

    def as_nodes(self) -> list[ModelCall]:
        return [
            {
                "node": f"llm:{c.job}",
                "ms": c.latency_ms,
                "model": c.model,
                "tokens_in": c.tokens_in,
                "tokens_out": c.tokens_out,
                "ok": c.ok,
            }
            for c in self.calls
        ]


def _usage(response: LLMResult) -> tuple[int, int]:
    for generations in response.generations:
        for generation in generations:
            message = getattr(generation, "message", None)
            usage = getattr(message, "usage_metadata", None)
            if usage:
                return int(usage.get("input_tokens", 0)), int(usage.get("output_tokens", 0))
    token_usage = (response.llm_output or {}).get("token_usage") or {}
    return int(token_usage.get("prompt_tokens", 0)), int(token_usage.get("completion_tokens", 0))


class UsageMeter(BaseCallbackHandler):
    """Collects one turn's model calls (run inline: no thread hop per callback)."""

    run_inline = True

    def __init__(self) -> None:
        self.usage = TurnUsage()
        self._started: dict[UUID, tuple[float, str, str]] = {}

    def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: list[list[BaseMessage]],
        *,
        run_id: UUID,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        meta = metadata or {}
        provider = meta.get("ls_provider") or ""
        name = meta.get("ls_model_name") or (serialized or {}).get("name") or "unknown"
        model = f"{provider}:{name}" if provider else str(name)
        job = next((t[4:] for t in tags or [] if t.startswith("job:")), "llm")
        self._started[run_id] = (time.perf_counter(), model, job)

    def _finish(self, run_id: UUID, ok: bool, tokens: tuple[int, int] = (0, 0)) -> None:
        started = self._started.pop(run_id, None)
        if started is None:
            return
        began, model, job = started
        self.usage.calls.append(
            CallRecord(
                job=job,
                model=model,
                latency_ms=round((time.perf_counter() - began) * 1000, 3),
                tokens_in=tokens[0],
                tokens_out=tokens[1],
                cost_usd=estimate_cost(model, *tokens),
                ok=ok,
            )
        )

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        self._finish(run_id, True, _usage(response))

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self._finish(run_id, False)
