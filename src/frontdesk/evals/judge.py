"""LLM-as-judge answer quality (`AnswerQualityMetric`), used when a judge model is
configured: the site's `engine.roles.judge` ("provider:model"), or `--judge` on the CLI.

The judge scores five criteria from 1 to 5, each with its reasoning first (the
reasoning is kept in the report): correctness, completeness, groundedness,
conversation flow and format. Scores are normalised to [0, 1] as (score - 1) / 4; an
answer counts as correct when its correctness is at least `CORRECT_AT` (4 of 5).
The role is resolved like the engine's other roles (`engines.llm.config.resolve_engine`:
the site file, then FRONTDESK_LLM_JUDGE) and the model is built on first use by
`engines.llm.models.build_chat_model` (LangChain's `init_chat_model` with the site's base
URL, key and timeouts), so the provider package is only needed when a judge is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from frontdesk.evals.runner import Outcome
from frontdesk.settings import Settings, get_settings
from frontdesk.sites.schema import SiteConfig

if TYPE_CHECKING:
    from frontdesk.engines.llm.config import ResolvedEngine

CRITERIA = ("correctness", "completeness", "groundedness", "conversation_flow", "format")
CORRECT_AT = 4
LOCAL = "local"

JUDGE_PROMPT = """You evaluate one reply of a company website assistant.

Site: {site}
Conversation so far:
{history}
Visitor's message: {query}

What the reply should do (rubric): {rubric}
A correct reference answer: {reference}

Knowledge-base passages the reply cites:
{sources}

The assistant's reply:
{answer}

Score each criterion from 1 (bad) to 5 (excellent), reasoning first:
- correctness: the facts agree with the reference and the passages; nothing invented;
- completeness: everything the rubric asks for is there;
- groundedness: every claim is supported by the cited passages (5 if it makes none);
- conversation_flow: it fits the conversation, answers in the visitor's language and
  ends in a sensible next step;
- format: concise, readable, citations where facts are used."""


class CriterionScore(BaseModel):
    reasoning: str = Field(description="Why this score: short and specific.")
    score: int = Field(ge=1, le=5)


class AnswerQuality(BaseModel):
    """Structured output of the judge; reasoning precedes each score."""

    correctness: CriterionScore
    completeness: CriterionScore
    groundedness: CriterionScore
    conversation_flow: CriterionScore
    format: CriterionScore


def judge_spec(
    site_config: SiteConfig, override: str | None = None, settings: Settings | None = None
) -> str | None:
    """The judge model's "provider:model", or None when evaluation stays model-free."""
    from frontdesk.engines.llm.config import EngineConfigError, resolve_engine

    spec = override
    if not spec:
        try:
            spec = resolve_engine(site_config, settings or get_settings()).roles["judge"]
        except EngineConfigError:
            spec = site_config.engine.roles.judge
    spec = (spec or LOCAL).strip()
    return None if spec == LOCAL else spec


def normalised(score: int) -> float:
    return (score - 1) / 4


def prompt_for(outcome: Outcome, site_name: str) -> str:
    item = outcome.item
    history = (
        "\n".join(f"{m.role}: {m.content}" for m in item.metadata.history) or "(first message)"
    )
    sources = "\n".join(f"[{n}] {text[:1200]}" for n, text in sorted(outcome.chunks.items()))
    return JUDGE_PROMPT.format(
        site=site_name,
        history=history,
        query=item.query,
        rubric=item.expected_output.response or "(none: judge the reply on its merits)",
        reference=item.expected_output.reference or "(none)",
        sources=sources or "(none)",
        answer=outcome.answer,
    )


def as_scores(quality: AnswerQuality) -> dict[str, Any]:
    scores: dict[str, Any] = {}
    for name in CRITERIA:
        criterion: CriterionScore = getattr(quality, name)
        scores[name] = {
            "score": criterion.score,
            "normalised": normalised(criterion.score),
            "reasoning": criterion.reasoning,
        }
    scores["correct"] = quality.correctness.score >= CORRECT_AT
    return scores


class Judge:
    """Scores outcomes with one chat model (built on first use)."""

    def __init__(self, spec: str, engine: ResolvedEngine | None = None) -> None:
        self.spec = spec
        self.engine = engine  # provider options (base URL, key, timeouts) of the site
        self._model: Any = None

    def _structured(self) -> Any:
        if self._model is None:
            if self.engine is not None:
                from frontdesk.engines.llm.models import build_chat_model

                model = build_chat_model(self.spec, self.engine)
            else:
                from langchain.chat_models import init_chat_model

                model = init_chat_model(self.spec)
            self._model = model.with_structured_output(AnswerQuality)
        return self._model

    async def score(self, outcome: Outcome, site_name: str) -> dict[str, Any]:
        try:
            quality = await self._structured().ainvoke(prompt_for(outcome, site_name))
        except Exception as exc:  # a judge failure marks the item, not the run
            return {"error": f"{type(exc).__name__}: {exc}"}
        if not isinstance(quality, AnswerQuality):
            quality = AnswerQuality.model_validate(quality)
        return as_scores(quality)


def make_judge(spec: str, site_config: SiteConfig, settings: Settings | None = None) -> Judge:
    """A judge with the site's provider options when its engine resolves, else bare."""
    from frontdesk.engines.llm.config import EngineConfigError, resolve_engine

    try:
        engine: ResolvedEngine | None = resolve_engine(site_config, settings or get_settings())
    except EngineConfigError:
        engine = None
    return Judge(spec, engine)
